package io.loadgate.cli;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;

/**
 * The demo's source: an {@code orders} table in the embedded PostgreSQL's {@code demo} database, generated in the
 * database itself (deterministic, a few types, some nulls), all of it dated the demo's business key.
 */
final class DemoData {
    private static final String CREATE = """
            CREATE TABLE orders (
                order_id    bigint PRIMARY KEY,
                customer_id integer NOT NULL,
                order_date  date NOT NULL,
                amount      numeric(12,2),
                quantity    integer NOT NULL,
                status      text,
                note        text,
                created_at  timestamptz NOT NULL
            )""";
    private static final String FILL = """
            INSERT INTO orders
            SELECT g,
                   1 + (g * 7919) % 50000,
                   ?::date,
                   CASE WHEN g % 97 = 0 THEN NULL ELSE round(((g * 2654435761) % 100000) / 100.0, 2) END,
                   1 + g % 9,
                   CASE WHEN g % 53 = 0 THEN NULL ELSE (ARRAY['NEW', 'PAID', 'SHIPPED', 'DELIVERED', 'RETURNED'])[1 + g % 5] END,
                   CASE WHEN g % 11 = 0 THEN 'gift ' || (g % 7) END,
                   ?::date + make_interval(secs => g % 86400)
              FROM generate_series(1, ?) g""";

    private DemoData() {
    }

    /** Makes sure {@code orders} holds exactly {@code rows} rows dated {@code day}; returns true if it made them. */
    static boolean ensureOrders(String jdbcUrl, String user, LocalDate day, long rows) throws SQLException {
        try (Connection c = DriverManager.getConnection(jdbcUrl, user, "")) {
            if (matches(c, day, rows)) {
                return false;
            }
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS orders");
                s.execute(CREATE);
            }
            try (PreparedStatement fill = c.prepareStatement(FILL)) {
                fill.setString(1, day.toString());
                fill.setString(2, day.toString());
                fill.setLong(3, rows);
                fill.executeUpdate();
            }
            c.commit();
            try (Statement s = c.createStatement()) {
                s.execute("ANALYZE orders");
            }
            return true;
        }
    }

    private static boolean matches(Connection c, LocalDate day, long rows) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet exists = s.executeQuery("SELECT to_regclass('public.orders') IS NOT NULL")) {
            exists.next();
            if (!exists.getBoolean(1)) {
                return false;
            }
        }
        try (PreparedStatement count = c.prepareStatement(
                "SELECT count(*), count(*) FILTER (WHERE order_date = ?::date) FROM orders")) {
            count.setString(1, day.toString());
            try (ResultSet rs = count.executeQuery()) {
                rs.next();
                return rs.getLong(1) == rows && rs.getLong(2) == rows;
            }
        }
    }

    /** The demo's job spec, as the YAML a user would write for it. */
    static String jobYaml(String jdbcUrl, String stageRoot, int partitions) {
        return jobYaml(jdbcUrl, stageRoot, partitions, null);
    }

    /**
     * The demo's job spec; with a {@code metastoreUri}, the Hive demo's: the same orders into the Hive table
     * {@code lake.orders} of that metastore, partitioned by the day ({@code dt}), {@code created_at} read as a UTC
     * timestamp (Hive has no timestamp with time zone).
     */
    static String jobYaml(String jdbcUrl, String stageRoot, int partitions, String metastoreUri) {
        boolean hive = metastoreUri != null;
        return """
                # The demo job: orders of one day, from the demo database into the %s table lake.orders.
                job_key: %s
                source:
                  jdbc_url: "%s"
                  user: postgres
                  %s
                  split_column: order_id
                  partitions: %d
                  filter: "order_date = CAST(:business_key AS date)"
                  fetch_size: 10000
                target:
                  table: lake.orders
                  business_key_column: order_date
                %sstaging:
                  root: "%s"
                  rows_per_chunk: 250000
                validation:
                  sum: [amount, quantity]
                  min: [amount, created_at]
                  max: [amount, created_at]
                  null_count: [amount, status, note]
                  primary_key: [order_id]
                recovery:
                  mode: FAIL
                # Checks on every row; a row that fails one is kept aside with its reason, and more rejected rows
                # than max_rejected fail the run before anything is published.
                transform:
                  max_rejected: 0
                  steps:
                    - require: [customer_id]
                    - range: {column: quantity, min: 1, max: 99}
                """.formatted(hive ? "Hive" : "Iceberg", hive ? "DEMO_ORDERS_HIVE" : "DEMO_ORDERS", jdbcUrl,
                hive ? "query: \"SELECT order_id, customer_id, order_date, amount, quantity, status, note,"
                        + " created_at AT TIME ZONE 'UTC' AS created_at FROM public.orders\""
                        : "table: public.orders",
                partitions, hive ? "  hive:\n    metastore_uri: \"" + metastoreUri + "\"\n" : "", stageRoot);
    }
}

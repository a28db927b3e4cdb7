package io.loadgate.chaos;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The suite's three databases on the machine's PostgreSQL, made fresh each run: the ledger's, the source (table
 * {@code public.orders}, one business day per key) and the warehouse the job publishes into ({@code chaos.orders}).
 * Everything the oracle knows it reads here with its own SQL.
 */
final class Databases {
    static final String TARGET_SCHEMA = "chaos";
    static final String TABLE = "orders";

    /**
     * One canonical text per row, every column, NULL distinct from any text ({@code quote_nullable}) and no separator
     * a value could imitate; the row's digest is SHA-256 of it. Both sides use the same expression over the same
     * column names, so a row matches only itself.
     */
    private static final String ROW_DIGEST = """
            encode(sha256(convert_to(concat_ws(',', quote_nullable(id::text), quote_nullable(amount::text),
              quote_nullable(qty::text), quote_nullable(label), quote_nullable(to_char(created_at,
              'YYYY-MM-DD"T"HH24:MI:SS.US')), quote_nullable(flag::text), quote_nullable(day::text)), 'UTF8')), 'hex')
            """;

    final String ledger;
    final String source;
    final String warehouse;
    private final String host;
    private final int port;

    /** The databases {@code prefix_ledger}, {@code prefix_source} and {@code prefix_dw}. */
    Databases(String host, int port, String prefix) {
        this.host = host;
        this.port = port;
        this.ledger = prefix + "_ledger";
        this.source = prefix + "_source";
        this.warehouse = prefix + "_dw";
    }

    String url(String database) {
        return "jdbc:postgresql://" + host + ":" + port + "/" + database;
    }

    String host() {
        return host;
    }

    int port() {
        return port;
    }

    Connection connect(String database) throws SQLException {
        return DriverManager.getConnection(url(database), "postgres", "");
    }

    /** Drops and makes the three databases, and the source table. */
    void recreate() throws SQLException {
        try (Connection admin = connect("postgres"); Statement s = admin.createStatement()) {
            for (String database : List.of(ledger, source, warehouse)) {
                s.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
                s.execute("CREATE DATABASE " + database);
            }
        }
        try (Connection c = connect(source); Statement s = c.createStatement()) {
            s.execute("""
                    CREATE TABLE public.orders (id bigint PRIMARY KEY, amount numeric(12,2), qty integer, label text,
                      created_at timestamp(6), flag boolean, day date NOT NULL)""");
            s.execute("CREATE INDEX orders_day ON public.orders (day)");
        }
    }

    void drop() throws SQLException {
        try (Connection admin = connect("postgres"); Statement s = admin.createStatement()) {
            for (String database : List.of(ledger, source, warehouse)) {
                s.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
            }
        }
    }

    /**
     * {@code rows} rows for {@code day}, ids from {@code firstId}: NULLs in several columns, text with quotes,
     * separators and non-ASCII, so that a canonical text that mangled any of them would be caught.
     */
    void insertDay(String day, long firstId, long rows) throws SQLException {
        try (Connection c = connect(source); PreparedStatement s = c.prepareStatement("""
                INSERT INTO public.orders
                SELECT g, CASE WHEN g % 13 = 0 THEN NULL ELSE (g % 100000) / 100.0 END, (g % 50)::int,
                       CASE WHEN g % 7 = 0 THEN NULL ELSE 'o''rder|' || g || ',é' END,
                       TIMESTAMP '2026-01-01 00:00:00' + g * INTERVAL '1.000001 second',
                       CASE WHEN g % 11 = 0 THEN NULL ELSE g % 2 = 0 END, CAST(? AS date)
                  FROM generate_series(?::bigint, ?::bigint) g""")) {
            s.setString(1, day);
            s.setLong(2, firstId);
            s.setLong(3, firstId + rows - 1);
            s.executeUpdate();
        }
    }

    /** A new version of a day: every third row's amount changes, a tenth of the rows go, new ones come. */
    void changeDay(String day, long newFirstId, long newRows) throws SQLException {
        try (Connection c = connect(source); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("UPDATE public.orders SET amount = coalesce(amount, 0) + 1 WHERE day = DATE '" + day
                    + "' AND id % 3 = 0");
            s.execute("DELETE FROM public.orders WHERE day = DATE '" + day + "' AND id % 10 = 1");
            c.commit();
        }
        insertDay(day, newFirstId, newRows);
    }

    /** The multiset of row digests of one day in the source. */
    Map<String, Long> sourceRows(String day) throws SQLException {
        try (Connection c = connect(source)) {
            return digests(c, "public.orders", day);
        }
    }

    /** The multiset of row digests of one day in the warehouse table; empty before the first publish made it. */
    Map<String, Long> targetRows(String day) throws SQLException {
        try (Connection c = connect(warehouse)) {
            if (!exists(c, TARGET_SCHEMA + "." + TABLE)) {
                return Map.of();
            }
            return digests(c, TARGET_SCHEMA + "." + TABLE, day);
        }
    }

    /** The run ids the warehouse's publish markers name for a day, oldest publish first. */
    List<UUID> publishedRuns(String day) throws SQLException {
        try (Connection c = connect(warehouse)) {
            if (!exists(c, TARGET_SCHEMA + ".loadgate_publish")) {
                return List.of();
            }
            try (PreparedStatement s = c.prepareStatement("SELECT run_id FROM " + TARGET_SCHEMA
                    + ".loadgate_publish WHERE business_key = ? ORDER BY committed_at, txid")) {
                s.setString(1, day);
                List<UUID> runs = new ArrayList<>();
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        runs.add(rs.getObject(1, UUID.class));
                    }
                }
                return runs;
            }
        }
    }

    /**
     * Terminates the source backend that holds the run's exported snapshot: while a run extracts, the oldest open
     * transaction on the source database is the submitter's (workers import its snapshot in later ones).
     */
    Integer terminateSnapshotBackend() throws SQLException {
        try (Connection c = connect("postgres"); PreparedStatement s = c.prepareStatement("""
                SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity
                 WHERE pid = (SELECT pid FROM pg_stat_activity WHERE datname = ? AND xact_start IS NOT NULL
                               AND pid <> pg_backend_pid() ORDER BY xact_start LIMIT 1)""")) {
            s.setString(1, source);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? rs.getInt(1) : null;
            }
        }
    }

    /**
     * Waits until a session of the warehouse database is inside a transaction that writes {@code chaos.orders} (it
     * holds a ROW EXCLUSIVE lock on it: a publish between its DELETE and its COMMIT); false when none came in time.
     */
    boolean awaitWarehouseWrite(Duration timeout) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Connection c = connect(warehouse); PreparedStatement s = c.prepareStatement("""
                SELECT count(*) FROM pg_locks
                 WHERE relation = to_regclass(?) AND mode = 'RowExclusiveLock' AND granted
                   AND pid <> pg_backend_pid()""")) {
            s.setString(1, TARGET_SCHEMA + "." + TABLE);
            do {
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    if (rs.getLong(1) > 0) {
                        return true;
                    }
                }
                Thread.sleep(2);
            } while (System.nanoTime() < deadline);
        }
        return false;
    }

    private static boolean exists(Connection c, String relation) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
            s.setString(1, relation);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    private static Map<String, Long> digests(Connection c, String table, String day) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT " + ROW_DIGEST + ", count(*) FROM " + table
                + " WHERE day = CAST(? AS date) GROUP BY 1")) {
            s.setString(1, day);
            Map<String, Long> rows = new HashMap<>();
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    rows.put(rs.getString(1), rs.getLong(2));
                }
            }
            return rows;
        }
    }
}

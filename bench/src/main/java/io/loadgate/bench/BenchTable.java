package io.loadgate.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.Optional;

/**
 * The benchmark's source: {@code public.bench_rows} in database {@code bench} of the machine's PostgreSQL, made
 * once and reused while it still holds exactly the requested rows. Every row carries the same business day, so the
 * business-key filter selects the whole table, as a daily load of a daily table would.
 */
final class BenchTable {
    /** The default size's database; another size has its own, so that runs of two sizes never remake each other's. */
    static final String DATABASE = "bench";
    static final long DEFAULT_ROWS = 5_000_000;
    static final String TABLE = "public.bench_rows";
    static final LocalDate DAY = LocalDate.of(2025, 1, 15);
    static final String COLUMNS = "id, qty, amount, business_day, note, created_at";
    static final String FILTER_COLUMN = "business_day";

    private static final String CREATE = """
            CREATE TABLE bench_rows (
                id           bigint PRIMARY KEY,
                qty          integer NOT NULL,
                amount       numeric(12,2),
                business_day date NOT NULL,
                note         text,
                created_at   timestamptz NOT NULL
            )""";
    // Deterministic, a little varied: some nulls, texts of 20..40 characters, amounts with cents, a day of times.
    private static final String FILL = """
            INSERT INTO bench_rows
            SELECT g,
                   (g * 7919) % 100000,
                   CASE WHEN g % 97 = 0 THEN NULL ELSE round(((g * 2654435761) % 10000000) / 100.0, 2) END,
                   ?::date,
                   CASE WHEN g % 13 = 0 THEN NULL
                        ELSE 'customer ' || (g * 104729) % 1000003 || ' ' || repeat('x', (g % 20)::int) END,
                   ?::date + make_interval(secs => (g % 86400)::double precision)
              FROM generate_series(1, ?) g""";

    private BenchTable() {
    }

    /** {@code bench} for the default 5,000,000 rows, {@code bench_<rows>} for another size. */
    static String database(long rows) {
        return rows == DEFAULT_ROWS ? DATABASE : DATABASE + "_" + rows;
    }

    /** Makes sure the table (in {@link #database}) holds {@code rows} rows; returns true if it (re)made them. */
    static boolean ensure(String serverUrl, String user, long rows) throws SQLException {
        String database = database(rows);
        try (Connection admin = DriverManager.getConnection(serverUrl + "postgres", user, "");
             Statement s = admin.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + database + "'")) {
                if (!rs.next()) {
                    s.execute("CREATE DATABASE " + database);
                }
            }
        }
        try (Connection c = DriverManager.getConnection(serverUrl + database, user, "")) {
            if (matches(c, rows)) {
                return false;
            }
            System.out.printf("making %s: %,d rows (once; later runs reuse it) ...%n", TABLE, rows);
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS bench_rows");
                s.execute(CREATE);
            }
            try (PreparedStatement fill = c.prepareStatement(FILL)) {
                fill.setString(1, DAY.toString());
                fill.setString(2, DAY.toString());
                fill.setLong(3, rows);
                fill.executeUpdate();
            }
            c.commit();
            c.setAutoCommit(true);
            try (Statement s = c.createStatement()) {
                // Frozen and analysed, so that no run pays for hint bits or a stale plan.
                s.execute("VACUUM (FREEZE, ANALYZE) bench_rows");
            }
            return true;
        }
    }

    private static boolean matches(Connection c, long rows) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet exists = s.executeQuery("SELECT to_regclass('" + TABLE + "') IS NOT NULL")) {
            exists.next();
            if (!exists.getBoolean(1)) {
                return false;
            }
        }
        try (PreparedStatement count = c.prepareStatement(
                "SELECT count(*), count(*) FILTER (WHERE business_day = ?::date) FROM " + TABLE)) {
            count.setString(1, DAY.toString());
            try (ResultSet rs = count.executeQuery()) {
                rs.next();
                return rs.getLong(1) == rows && rs.getLong(2) == rows;
            }
        }
    }

    /** The SELECT every measurement reads: the six columns of one business day. */
    static String select() {
        return "SELECT " + COLUMNS + " FROM " + TABLE + " WHERE " + FILTER_COLUMN + " = DATE '" + DAY + "'";
    }

    /**
     * The same job with single-row transforms that rewrite and check every row and reject none: what the transform
     * step costs. The rewritten note can no longer be validated, so its null count is left out.
     */
    static String withTransforms(String yaml) {
        return yaml.replace("null_count: [amount, note]", "null_count: [amount]") + """
                transform:
                  max_rejected: 0
                  steps:
                    - trim: [note]
                    - upper: [note]
                    - require: [id, qty]
                    - range: {column: qty, min: 0, max: 100000}
                    - max_length: {column: note, length: 100}
                """;
    }

    /** The job a load runs, as the YAML a user would write. */
    static String jobYaml(String sourceUrl, String jobKey, String targetTable, int partitions, String stageRoot,
                          String compression) {
        return jobYaml(sourceUrl, jobKey, targetTable, partitions, stageRoot, compression,
                BenchLoadgate.rowsPerChunk());
    }

    /** {@link #jobYaml} with its own {@code staging.rows_per_chunk}, or empty for the default. */
    static String jobYaml(String sourceUrl, String jobKey, String targetTable, int partitions, String stageRoot,
                          String compression, Optional<Integer> rowsPerChunk) {
        return """
                job_key: %s
                source:
                  jdbc_url: "%s"
                  user: postgres
                  table: %s
                  split_column: id
                  partitions: %d
                  filter: "business_day = CAST(:business_key AS date)"
                  fetch_size: 10000
                  metrics: %s
                target:
                  table: %s
                  business_key_column: business_day
                staging:
                  root: "%s"
                  compression: %s%s
                validation:
                  sum: [amount, qty]
                  min: [amount, created_at]
                  max: [amount, created_at]
                  null_count: [amount, note]
                  primary_key: [id]
                recovery:
                  mode: FAIL
                """.formatted(jobKey, sourceUrl, TABLE, partitions,
                        BenchLoadgate.metricsTiming().name().toLowerCase(java.util.Locale.ROOT), targetTable, stageRoot,
                        compression, BenchLoadgate.compressionLevel().map(level -> "\n  compression_level: " + level)
                                .orElse("") + rowsPerChunk.map(rows -> "\n  rows_per_chunk: " + rows)
                                .orElse(""));
    }
}

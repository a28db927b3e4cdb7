package io.loadgate.worker.source.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loadgate.ledger.testing.TestDatabases;
import io.loadgate.ledger.testing.TestDatabases.TestDatabase;
import io.loadgate.worker.source.SourceColumn;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.DateTimeException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The readers {@link CursorRows} uses give what {@link JdbcValues#read} gives, on PgJDBC's binary transfer (as
 * partition cursors run) and on text, for timestamptz values at the edges of what PostgreSQL holds.
 */
class JdbcValuesTest {
    // Pre-1970, pre-Gregorian and BC instants, microseconds on both sides of a second, both ends of the range.
    private static final List<String> TIMESTAMPTZ = List.of(
            "2025-01-15 00:00:00+00", "2025-01-15 23:59:59.999999+00", "2020-06-30 12:34:56.123456+02",
            "2000-01-01 00:00:00+00", "1999-12-31 23:59:59.999999+00", "1970-01-01 00:00:00+00",
            "1969-12-31 23:59:59.000001+00", "1900-02-28 10:00:00.5-05:30", "1582-10-15 00:00:00+00",
            "1582-10-04 23:59:59.999999+00", "0001-01-01 00:00:00+00", "0001-12-31 23:59:59.999999+00 BC",
            "4713-11-24 00:00:00+00 BC", "294276-12-31 23:59:59.999999+00");
    private static TestDatabase db;

    @BeforeAll
    static void createValues() throws SQLException {
        db = TestDatabases.create();
        try (Connection c = db.connect(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE public.instants (n integer NOT NULL, at timestamptz, day date, local timestamp)");
            try (PreparedStatement insert = c.prepareStatement(
                    "INSERT INTO public.instants VALUES (?, CAST(? AS timestamptz), CAST(? AS timestamptz)::date, CAST(? AS timestamptz)::timestamp)")) {
                for (int n = 0; n < TIMESTAMPTZ.size(); n++) {
                    insert.setInt(1, n);
                    insert.setString(2, TIMESTAMPTZ.get(n));
                    insert.setString(3, TIMESTAMPTZ.get(n));
                    insert.setString(4, TIMESTAMPTZ.get(n));
                    insert.executeUpdate();
                }
            }
            st.execute("INSERT INTO public.instants VALUES (-1, NULL, NULL, NULL)");
        }
    }

    @Test
    void binaryTimestamptzIsDecodedFromItsBytesAsTheDriverDecodesIt() throws SQLException {
        List<List<Object>> binary = readAll(binaryConnection(), "SELECT n, at, day, local FROM public.instants ORDER BY n", true);
        List<List<Object>> text = readAll(db.connect(), "SELECT n, at, day, local FROM public.instants ORDER BY n", false);

        assertThat(binary).as("binary rows, read by readers()").hasSize(TIMESTAMPTZ.size() + 1).isEqualTo(text);
        assertThat(binary.get(0)).as("the null row").containsExactly(-1, null, null, null);
        for (int n = 0; n < TIMESTAMPTZ.size(); n++) {
            OffsetDateTime at = (OffsetDateTime) binary.get(n + 1).get(1);
            assertThat(at.getOffset()).as("offset of %s", TIMESTAMPTZ.get(n)).isEqualTo(ZoneOffset.UTC);
            assertThat(List.of(at.toEpochSecond(), at.getNano() / 1_000L)).as("seconds and microseconds of %s", TIMESTAMPTZ.get(n))
                    .isEqualTo(epochSecondAndMicros(TIMESTAMPTZ.get(n)));
        }
    }

    @Test
    void onlyABinaryTimestamptzOfPgJdbcSkipsTheDriversDecoding() throws SQLException {
        String sql = "SELECT n, at FROM public.instants ORDER BY n";
        try (Connection c = binaryConnection(); PreparedStatement s = c.prepareStatement(sql); ResultSet rs = s.executeQuery()) {
            assertThat(JdbcValues.readers(rs, JdbcValues.describe(rs.getMetaData())))
                    .satisfiesExactly(r -> assertThat(r).isNotSameAs(JdbcValues.PG_BINARY_TIMESTAMPTZ),
                            r -> assertThat(r).isSameAs(JdbcValues.PG_BINARY_TIMESTAMPTZ));
        }
        try (Connection c = db.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            assertThat(JdbcValues.readers(rs, JdbcValues.describe(rs.getMetaData())))
                    .as("text transfer").noneMatch(r -> r == JdbcValues.PG_BINARY_TIMESTAMPTZ);
        }
    }

    @Test
    void anInfiniteTimestamptzFailsAsReadDoes() throws SQLException {
        for (String infinity : List.of("infinity", "-infinity")) {
            String sql = "SELECT CAST('" + infinity + "' AS timestamptz) AS at";
            try (Connection c = binaryConnection(); PreparedStatement s = c.prepareStatement(sql); ResultSet rs = s.executeQuery()) {
                List<SourceColumn> columns = JdbcValues.describe(rs.getMetaData());
                JdbcValues.Reader reader = JdbcValues.readers(rs, columns)[0];
                assertThat(reader).isSameAs(JdbcValues.PG_BINARY_TIMESTAMPTZ);
                assertThat(rs.next()).isTrue();
                // OffsetDateTime.MAX and MIN, the driver's infinities, have no instant in UTC.
                assertThatThrownBy(() -> JdbcValues.read(rs, 1, columns.get(0))).as("read() of %s", infinity)
                        .isInstanceOf(DateTimeException.class);
                assertThatThrownBy(() -> reader.read(rs, 1)).as("the reader of %s", infinity)
                        .isInstanceOf(DateTimeException.class);
            }
        }
    }

    private static List<List<Object>> readAll(Connection connection, String sql, boolean prepared) throws SQLException {
        try (connection; Statement s = prepared ? connection.prepareStatement(sql) : connection.createStatement();
             ResultSet rs = prepared ? ((PreparedStatement) s).executeQuery() : s.executeQuery(sql)) {
            List<SourceColumn> columns = JdbcValues.describe(rs.getMetaData());
            JdbcValues.Reader[] readers = JdbcValues.readers(rs, columns);
            List<List<Object>> rows = new ArrayList<>();
            while (rs.next()) {
                List<Object> row = new ArrayList<>();
                for (int i = 0; i < readers.length; i++) {
                    row.add(readers[i].read(rs, i + 1));
                }
                rows.add(row);
            }
            return rows;
        }
    }

    /** By the server, in integers: extract() of a whole second is exact even where it gives a double (before 14). */
    private static List<Long> epochSecondAndMicros(String timestamptz) throws SQLException {
        try (Connection c = db.connect(); PreparedStatement s = c.prepareStatement("""
                SELECT extract(epoch FROM date_trunc('second', t))::bigint, extract(microseconds FROM t)::bigint % 1000000
                FROM (SELECT CAST(? AS timestamptz) AS t) v""")) {
            s.setString(1, timestamptz);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return List.of(rs.getLong(1), rs.getLong(2));
            }
        }
    }

    /** As partition cursors connect: server-prepared from the first execution, so timestamptz comes binary. */
    private static Connection binaryConnection() throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", db.user());
        if (db.password() != null) {
            properties.setProperty("password", db.password());
        }
        properties.setProperty("prepareThreshold", "-1");
        return DriverManager.getConnection(db.jdbcUrl(), properties);
    }
}

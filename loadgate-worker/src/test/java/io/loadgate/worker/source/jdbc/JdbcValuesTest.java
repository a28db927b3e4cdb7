package io.loadgate.worker.source.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loadgate.ledger.testing.TestDatabases;
import io.loadgate.ledger.testing.TestDatabases.TestDatabase;
import io.loadgate.worker.source.ColumnType;
import io.loadgate.worker.source.SourceColumn;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.JulianFields;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.util.ByteConverter;

/**
 * The readers {@link CursorRows} uses give what {@link JdbcValues#read} gives, on PgJDBC's binary transfer (as
 * partition cursors run) and on text, for timestamptz, numeric and date values at the edges of what PostgreSQL holds.
 */
class JdbcValuesTest {
    // Pre-1970, pre-Gregorian and BC instants, microseconds on both sides of a second, both ends of the range.
    private static final List<String> TIMESTAMPTZ = List.of(
            "2025-01-15 00:00:00+00", "2025-01-15 23:59:59.999999+00", "2020-06-30 12:34:56.123456+02",
            "2000-01-01 00:00:00+00", "1999-12-31 23:59:59.999999+00", "1970-01-01 00:00:00+00",
            "1969-12-31 23:59:59.000001+00", "1900-02-28 10:00:00.5-05:30", "1582-10-15 00:00:00+00",
            "1582-10-04 23:59:59.999999+00", "0001-01-01 00:00:00+00", "0001-12-31 23:59:59.999999+00 BC",
            "4713-11-24 00:00:00+00 BC", "294276-12-31 23:59:59.999999+00",
            // Runs of one day and their neighbours, before and after 1970 and 2000: a reader keeps the last day it made.
            "2025-01-15 08:00:00+00", "2025-01-15 08:00:00.000001+00", "2025-01-14 23:59:59.999999+00", "2025-01-16 00:00:00+00",
            "1969-12-31 00:00:00+00", "1969-12-31 12:00:00+00", "1969-12-31 23:59:59.999999+00", "1970-01-01 00:00:00.000001+00",
            "1999-12-31 00:00:00+00", "2000-01-01 00:00:00.5+00", "2000-01-01 23:00:00+00");
    // A numeric of fewer digits is decoded from its bytes, not by the driver.
    private static final BigInteger LONG_DIGITS = BigInteger.TEN.pow(18);
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
    void anInfiniteTimestamptzFailsAsReadDoes() throws SQLException {
        for (String infinity : List.of("infinity", "-infinity")) {
            String sql = "SELECT CAST('" + infinity + "' AS timestamptz) AS at";
            try (Connection c = binaryConnection(); PreparedStatement s = c.prepareStatement(sql); ResultSet rs = s.executeQuery()) {
                List<SourceColumn> columns = JdbcValues.describe(rs.getMetaData());
                JdbcValues.Reader reader = JdbcValues.readers(rs, columns)[0];
                assertThat(readerName(reader)).isEqualTo("timestamptz");
                assertThat(rs.next()).isTrue();
                // OffsetDateTime.MAX and MIN, the driver's infinities, have no instant in UTC.
                assertThatThrownBy(() -> JdbcValues.read(rs, 1, columns.get(0))).as("read() of %s", infinity)
                        .isInstanceOf(DateTimeException.class);
                assertThatThrownBy(() -> reader.read(rs, 1)).as("the reader of %s", infinity)
                        .isInstanceOf(DateTimeException.class);
            }
        }
    }

    @Test
    void binaryNumericIsDecodedAsTheDriverDecodesItAtEveryScale() throws SQLException {
        // Unscaled values, so that each fits numeric(18, s): with trailing zeros in dscale, and 18 digits.
        List<String> unscaled = List.of("0", "1", "-1", "10", "5000", "10000", "-56789", "123456789", "100000000000000000",
                "999999999999999999", "-999999999999999999");
        for (int scale = 0; scale <= 18; scale++) {
            int s = scale;
            List<String> values = new ArrayList<>(unscaled.stream().map(u -> shifted(u, s)).toList());
            values.add(null);
            assertReadersAgree("numeric(18," + scale + ")", "numeric", values);
        }
        // Digits past a long (the driver's BigInteger path) at every scale of numeric(38, s), and at the boundary.
        for (int scale = 0; scale <= 38; scale++) {
            String max = "9".repeat(38 - scale) + (scale > 0 ? "." + "9".repeat(scale) : "");
            assertReadersAgree("numeric(38," + scale + ")", "numeric",
                    Arrays.asList(max, "-" + max, "0", shifted("9223372036854775807", scale), shifted("9223372036854775808", scale),
                            shifted("-9223372036854775808", scale), shifted("999999999999999999", scale),
                            shifted("1000000000000000000", scale), shifted("123456789012345678", scale)));
        }
        assertReadersAgree("numeric(12,2)", "numeric",
                Arrays.asList("44357.61", "0.10", "-0.01", "9999999999.99", "-9999999999.99", "100", "1.5", null));
    }

    @Test
    void aNumericWithoutTypmodKeepsItsDisplayScaleAndItsSpecialValuesFailAsReadDoes() throws SQLException {
        List<String> values = new ArrayList<>(Arrays.asList("1.50000", "-0.000", "0.000000000000000001", "1e-30", "1e20",
                "123456789012345678901234567890", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
                "0.9223372036854775807", "100000000000000000.0", "1000000000000000000", "NaN", null));
        if (serverVersionNum() >= 140_000) {
            values.addAll(List.of("Infinity", "-Infinity"));
        }
        assertReadersAgree("numeric", "numeric", values);
    }

    @Test
    void randomNumericsAreDecodedAsTheDriverDecodesThem() throws SQLException {
        Random random = new Random(20_250_115L);
        for (int scale : new int[] {0, 2, 4, 7, 10, 18, 30}) {
            List<String> values = new ArrayList<>();
            for (int n = 0; n < 500; n++) {
                // Up to 38 digits, so that both sides of a long and of every NBASE digit boundary come up.
                BigInteger unscaled = new BigInteger(random.nextInt(126) + 1, random);
                values.add(new BigDecimal(random.nextBoolean() ? unscaled : unscaled.negate(), scale).toPlainString());
            }
            assertReadersAgree("numeric(38," + scale + ")", "numeric", values);
            assertReadersAgree("numeric", "numeric", values);
        }
    }

    /**
     * Any bytes, not only those a server sends (leading zero digits, digits out of range, digits past dscale, any
     * sign and dscale word): a value only where the driver's decoding gives that same BigDecimal.
     */
    @Property(tries = 20_000)
    void aBinaryNumericIsDecodedOnlyWhereTheDriverGivesTheSameValue(@ForAll("binaryNumerics") byte[] bytes) {
        BigDecimal value = PgBinary.numeric(bytes, 0, bytes.length);
        if (value != null) {
            assertThat(ByteConverter.numeric(bytes)).isInstanceOf(BigDecimal.class).isEqualTo(value);
        }
    }

    @Provide
    Arbitrary<byte[]> binaryNumerics() {
        Arbitrary<Integer> digit = Arbitraries.frequencyOf(
                Tuple.of(20, Arbitraries.integers().between(0, 9_999)),
                Tuple.of(5, Arbitraries.of(0, 1, 10, 100, 1_000, 9_999, 5_000)),
                Tuple.of(1, Arbitraries.integers().between(Short.MIN_VALUE, Short.MAX_VALUE)));
        Arbitrary<Integer> sign = Arbitraries.frequencyOf(Tuple.of(10, Arbitraries.of(0x0000, 0x4000)),
                Tuple.of(1, Arbitraries.of(0xC000, 0xD000, 0xF000, 0x8000, 0x0001)));
        Arbitrary<Integer> dscale = Arbitraries.frequencyOf(Tuple.of(10, Arbitraries.integers().between(0, 24)),
                Tuple.of(1, Arbitraries.of(0x3FFF, 0x4000, 0x7FFF, -1, 1_000)));
        return Arbitraries.integers().between(0, 7).flatMap(ndigits -> Combinators.combine(
                digit.list().ofSize(ndigits), Arbitraries.integers().between(-8, 8), sign, dscale,
                Arbitraries.frequency(Tuple.of(20, 0), Tuple.of(1, -1), Tuple.of(1, 2)))
                .as((digits, weight, s, d, extra) -> {
                    byte[] bytes = new byte[8 + 2 * ndigits + Math.max(0, extra)];
                    ByteConverter.int2(bytes, 0, ndigits + (extra < 0 ? 1 : 0));
                    ByteConverter.int2(bytes, 2, weight);
                    ByteConverter.int2(bytes, 4, s);
                    ByteConverter.int2(bytes, 6, d);
                    for (int i = 0; i < ndigits; i++) {
                        ByteConverter.int2(bytes, 8 + 2 * i, digits.get(i));
                    }
                    return bytes;
                }));
    }

    @Test
    void binaryDateIsDecodedAsTheDriverDecodesIt() throws SQLException {
        List<String> dates = Arrays.asList("4714-11-24 BC", "4713-01-01 BC", "0001-12-31 BC", "0001-01-01", "1582-10-04",
                "1582-10-15", "1900-02-28", "1969-12-31", "1970-01-01", "1999-12-31", "2000-01-01", "2000-01-02",
                "2024-02-29", "2025-01-15", "5874897-12-31", "infinity", "-infinity", null,
                "2025-01-15", "2025-01-15", null, "2025-01-15", "2025-01-14", "2025-01-15", "1969-12-31", "1969-12-31");
        assertReadersAgree("date", "date", dates);
        // And the server's day: its Julian day number (days since 4714-11-24 BC) is the proleptic calendar's.
        List<List<Object>> rows = readAll(binaryConnection(), """
                SELECT d, CAST(d - DATE '4714-11-24 BC' AS bigint) FROM (SELECT CAST(t AS date) AS d FROM unnest(CAST(? AS text[])) AS u(t)) v
                WHERE d NOT IN ('infinity', '-infinity')""", dates.stream().filter(d -> d != null).toList());
        assertThat(rows).hasSize(22).allSatisfy(row ->
                assertThat(((LocalDate) row.get(0)).getLong(JulianFields.JULIAN_DAY)).as("%s", row.get(0)).isEqualTo(row.get(1)));
    }

    @Test
    void onlyBinaryNumericDateAndTimestamptzColumnsOfPgJdbcSkipTheDriversDecoding() throws SQLException {
        String sql = "SELECT n, at, day, local, CAST(n AS numeric(10,2)) AS amount, CAST(n AS text) AS note FROM public.instants";
        try (Connection c = binaryConnection(); PreparedStatement s = c.prepareStatement(sql); ResultSet rs = s.executeQuery()) {
            assertThat(readerNames(rs)).containsExactly("driver", "timestamptz", "date", "driver", "numeric", "driver");
        }
        try (Connection c = db.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            assertThat(readerNames(rs)).as("text transfer").containsOnly("driver");
        }
    }

    private static List<String> readerNames(ResultSet rs) throws SQLException {
        return Arrays.stream(JdbcValues.readers(rs, JdbcValues.describe(rs.getMetaData()))).map(JdbcValuesTest::readerName).toList();
    }

    private static String readerName(JdbcValues.Reader reader) {
        return reader instanceof JdbcValues.PgBinaryTimestamptz ? "timestamptz" : reader instanceof JdbcValues.PgBinaryDate ? "date"
                : reader == JdbcValues.PG_BINARY_NUMERIC ? "numeric" : "driver";
    }

    /**
     * Each of {@code literals}, cast to {@code type} by the server and received binary, read by the reader named {@code fast} (which
     * {@link JdbcValues#readers} must choose) and by {@link JdbcValues#read}: the same value, or the same failure;
     * and the values are those the driver parses from the text protocol.
     */
    private static void assertReadersAgree(String type, String fast, List<String> literals) throws SQLException {
        String sql = "SELECT CAST(t AS " + type + ") AS v FROM unnest(CAST(? AS text[])) WITH ORDINALITY AS u(t, i) ORDER BY i";
        List<Object> viaRead = new ArrayList<>();
        try (Connection c = binaryConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            s.setArray(1, c.createArrayOf("text", literals.toArray()));
            try (ResultSet rs = s.executeQuery()) {
                SourceColumn column = type.equals("numeric") ? new SourceColumn("v", ColumnType.DECIMAL, 38, 0)
                        : JdbcValues.describe(rs.getMetaData()).get(0);
                JdbcValues.Reader reader = JdbcValues.readers(rs, List.of(column))[0];
                assertThat(readerName(reader)).as("the reader of %s", type).isEqualTo(fast);
                for (int n = 0; rs.next(); n++) {
                    Object expected = outcome(() -> JdbcValues.read(rs, 1, column));
                    assertThat(outcome(() -> reader.read(rs, 1))).as("%s as %s", literals.get(n), type).isEqualTo(expected);
                    if (expected instanceof BigDecimal value && value.unscaledValue().abs().compareTo(LONG_DIGITS) < 0) {
                        assertThat(PgBinary.numeric(rs.getBytes(1), 0, rs.getBytes(1).length)).as("%s as %s, from its bytes", literals.get(n), type)
                                .isEqualTo(value);
                    }
                    viaRead.add(expected);
                }
            }
        }
        List<Object> viaText = new ArrayList<>();
        try (Connection c = db.connect(); PreparedStatement s = c.prepareStatement(sql)) {
            s.setArray(1, c.createArrayOf("text", literals.toArray()));
            try (ResultSet rs = s.executeQuery()) {
                SourceColumn column = new SourceColumn("v", type.startsWith("numeric") ? ColumnType.DECIMAL : ColumnType.DATE, 38, 0);
                while (rs.next()) {
                    viaText.add(outcome(() -> JdbcValues.read(rs, 1, column)));
                }
            }
        }
        assertThat(viaRead).as("binary and text values of %s", type).hasSize(literals.size())
                .zipSatisfy(viaText, (binary, text) -> {
                    if (!(binary instanceof String)) {
                        assertThat(binary).isEqualTo(text);
                    }
                });
    }

    @FunctionalInterface
    private interface Read {
        Object read() throws SQLException;
    }

    /** The value read, or the failure's class and message. */
    private static Object outcome(Read read) {
        try {
            return read.read();
        } catch (SQLException | RuntimeException e) {
            return e.getClass().getName() + ": " + e.getMessage();
        }
    }

    private static String shifted(String unscaled, int scale) {
        return new BigDecimal(new BigInteger(unscaled), scale).toPlainString();
    }

    private static int serverVersionNum() throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW server_version_num")) {
            rs.next();
            return Integer.parseInt(rs.getString(1));
        }
    }

    private static List<List<Object>> readAll(Connection connection, String sql, List<String> texts) throws SQLException {
        try (connection; PreparedStatement s = connection.prepareStatement(sql)) {
            s.setArray(1, connection.createArrayOf("text", texts.toArray()));
            try (ResultSet rs = s.executeQuery()) {
                return readAll(rs);
            }
        }
    }

    private static List<List<Object>> readAll(Connection connection, String sql, boolean prepared) throws SQLException {
        try (connection; Statement s = prepared ? connection.prepareStatement(sql) : connection.createStatement();
             ResultSet rs = prepared ? ((PreparedStatement) s).executeQuery() : s.executeQuery(sql)) {
            return readAll(rs);
        }
    }

    private static List<List<Object>> readAll(ResultSet rs) throws SQLException {
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
        return binaryConnection(db);
    }

    /** A connection to {@code db} as a partition reader's: binary transfer from the first execution. */
    static Connection binaryConnection(TestDatabase db) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", db.user());
        if (db.password() != null) {
            properties.setProperty("password", db.password());
        }
        properties.setProperty("prepareThreshold", "-1");
        return DriverManager.getConnection(db.jdbcUrl(), properties);
    }
}

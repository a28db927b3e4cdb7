package io.loadgate.worker.source.jdbc;

import io.loadgate.worker.source.ColumnType;
import io.loadgate.worker.source.SourceColumn;
import io.loadgate.worker.source.SourceException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.postgresql.PGConnection;
import org.postgresql.PGResultSetMetaData;
import org.postgresql.util.ByteConverter;

/** Maps JDBC column metadata to {@link SourceColumn}s and reads values as the classes {@link ColumnType} names. */
public final class JdbcValues {
    private static final int MAX_DECIMAL_PRECISION = 38;
    // PgJDBC's Field.BINARY_FORMAT, as PGResultSetMetaData.getFormat reports it.
    private static final int PG_BINARY_FORMAT = 1;
    // Seconds from 1970-01-01 to 2000-01-01, PostgreSQL's epoch for timestamps on the wire.
    private static final long PG_EPOCH_SECONDS = 946_684_800L;
    // Days from 1970-01-01 to 2000-01-01, PostgreSQL's epoch for dates on the wire.
    private static final long PG_EPOCH_DAYS = 10_957L;
    private static final long SECONDS_PER_DAY = 86_400L;
    // The sign word of a binary numeric: positive, negative (NaN and the infinities are other values).
    private static final int PG_NUMERIC_POS = 0x0000;
    private static final int PG_NUMERIC_NEG = 0x4000;
    // The largest dscale the driver accepts (its NUMERIC_DSCALE_MASK).
    private static final int PG_NUMERIC_MAX_DSCALE = 0x3FFF;
    private static final long[] TEN_POWERS = {1L, 10L, 100L, 1_000L, 10_000L, 100_000L, 1_000_000L, 10_000_000L,
            100_000_000L, 1_000_000_000L, 10_000_000_000L, 100_000_000_000L, 1_000_000_000_000L,
            10_000_000_000_000L, 100_000_000_000_000L, 1_000_000_000_000_000L, 10_000_000_000_000_000L,
            100_000_000_000_000_000L, 1_000_000_000_000_000_000L};

    /** How one column of a result set is read; chosen once per column by {@link #readers}. */
    @FunctionalInterface
    interface Reader {
        Object read(ResultSet rs, int index) throws SQLException;
    }

    /** A PostgreSQL numeric sent binary, decoded from its bytes where its unscaled value fits a long. */
    static final Reader PG_BINARY_NUMERIC = JdbcValues::pgBinaryNumeric;

    private JdbcValues() {
    }

    public static List<SourceColumn> describe(ResultSetMetaData metadata) throws SQLException {
        List<SourceColumn> columns = new ArrayList<>(metadata.getColumnCount());
        for (int i = 1; i <= metadata.getColumnCount(); i++) {
            columns.add(describe(metadata, i));
        }
        return List.copyOf(columns);
    }

    private static SourceColumn describe(ResultSetMetaData metadata, int i) throws SQLException {
        String name = metadata.getColumnLabel(i);
        String typeName = metadata.getColumnTypeName(i).toLowerCase(Locale.ROOT);
        int sqlType = metadata.getColumnType(i);
        switch (sqlType) {
            case Types.TINYINT, Types.SMALLINT, Types.INTEGER:
                return SourceColumn.of(name, ColumnType.INT);
            case Types.BIGINT:
                return SourceColumn.of(name, ColumnType.LONG);
            case Types.NUMERIC, Types.DECIMAL: {
                int precision = metadata.getPrecision(i);
                int scale = metadata.getScale(i);
                // An unconstrained numeric reports precision 0 (or 1000+): no Iceberg decimal holds it exactly.
                if (precision < 1 || precision > MAX_DECIMAL_PRECISION || scale < 0 || scale > precision) {
                    throw new SourceException("column " + name + " is " + typeName + " without a precision of 1.."
                            + MAX_DECIMAL_PRECISION + " and a scale; cast it, e.g. CAST(" + name + " AS numeric(38,10)), in source.query");
                }
                return new SourceColumn(name, ColumnType.DECIMAL, precision, scale);
            }
            case Types.REAL:
                return SourceColumn.of(name, ColumnType.FLOAT);
            case Types.FLOAT, Types.DOUBLE:
                return SourceColumn.of(name, ColumnType.DOUBLE);
            case Types.CHAR, Types.VARCHAR, Types.LONGVARCHAR, Types.NCHAR, Types.NVARCHAR, Types.LONGNVARCHAR, Types.CLOB:
                return SourceColumn.of(name, ColumnType.STRING);
            case Types.BIT, Types.BOOLEAN:
                return SourceColumn.of(name, ColumnType.BOOLEAN);
            case Types.DATE:
                return SourceColumn.of(name, ColumnType.DATE);
            case Types.TIMESTAMP:
                // PostgreSQL reports timestamptz as TIMESTAMP; only the type name tells them apart.
                return SourceColumn.of(name, typeName.equals("timestamptz") ? ColumnType.TIMESTAMPTZ : ColumnType.TIMESTAMP);
            case Types.TIMESTAMP_WITH_TIMEZONE:
                return SourceColumn.of(name, ColumnType.TIMESTAMPTZ);
            case Types.BINARY, Types.VARBINARY, Types.LONGVARBINARY, Types.BLOB:
                return SourceColumn.of(name, ColumnType.BINARY);
            default:
                throw new SourceException("column " + name + " has type " + typeName + ", which Loadgate cannot stage;"
                        + " cast it to text or a number in source.query");
        }
    }

    /**
     * A reader per column of {@code rs} (in the order of {@code columns}), each giving what {@link #read} gives.
     *
     * <p>Some types that PgJDBC receives binary are decoded here from their bytes, more cheaply than the driver
     * does:
     * <ul>
     * <li>timestamptz: the driver's {@code getObject(i, OffsetDateTime.class)} makes it with
     * {@code OffsetDateTime.ofInstant(.., UTC)}, which on Java 17 builds a new {@code ZoneRules} per value (about
     * 5% of an extraction's CPU). Float timestamps (a server built without integer_datetimes, before PostgreSQL
     * 10) keep the driver's decoding.
     * <li>numeric: the driver builds every value through {@code BigInteger} arithmetic (about 9%), where a
     * {@code long} holds the unscaled value of any numeric up to 18 digits.
     * <li>date: the driver's {@code getObject(i, LocalDate.class)} is {@code LocalDate.ofEpochDay} behind
     * a {@code TimestampUtils} and its calendars (about 3%).
     * </ul>
     * The arithmetic is the driver's, so the values are equal; whatever these do not decode (infinities, NaN, a
     * numeric beyond a long, a malformed value) still goes through the driver, and succeeds or fails as it did.
     * Columns sent as text keep the driver's decoding.
     */
    static Reader[] readers(ResultSet rs, List<SourceColumn> columns) throws SQLException {
        Reader[] readers = new Reader[columns.size()];
        ResultSetMetaData metadata = rs.getMetaData();
        boolean pgJdbc = metadata.isWrapperFor(PGResultSetMetaData.class);
        boolean pgIntegerTimestamps = pgJdbc && pgIntegerTimestamps(rs);
        for (int i = 0; i < readers.length; i++) {
            SourceColumn column = columns.get(i);
            Reader binary = pgJdbc && metadata.unwrap(PGResultSetMetaData.class).getFormat(i + 1) == PG_BINARY_FORMAT
                    ? pgBinaryReader(column, metadata.getColumnTypeName(i + 1), pgIntegerTimestamps)
                    : null;
            readers[i] = binary != null ? binary : (r, index) -> read(r, index, column);
        }
        return readers;
    }

    /** The reader of a column PgJDBC receives binary, by its PostgreSQL type; null for the driver's decoding. */
    private static Reader pgBinaryReader(SourceColumn column, String typeName, boolean integerTimestamps) {
        return switch (column.type()) {
            case DECIMAL -> typeName.equalsIgnoreCase("numeric") ? PG_BINARY_NUMERIC : null;
            case DATE -> typeName.equalsIgnoreCase("date") ? new PgBinaryDate() : null;
            case TIMESTAMPTZ -> integerTimestamps && typeName.equalsIgnoreCase("timestamptz") ? new PgBinaryTimestamptz() : null;
            default -> null;
        };
    }

    private static boolean pgIntegerTimestamps(ResultSet rs) throws SQLException {
        if (rs.getStatement() == null) {
            return false;
        }
        Connection connection = rs.getStatement().getConnection();
        return connection.isWrapperFor(PGConnection.class)
                && "on".equals(connection.unwrap(PGConnection.class).getParameterStatus("integer_datetimes"));
    }

    /**
     * The day a reader decoded last, and its {@code LocalDate}. A partition's dates and timestamps mostly fall on a
     * few days (a business day's rows, an hour's events), and {@code LocalDate.ofEpochDay}, a calendar computation,
     * was 11% of an extraction's CPU in a profile when it ran for every value. One per reader: readers are not
     * shared between threads.
     */
    private static final class LastDay {
        private long epochDay = Long.MIN_VALUE;
        private LocalDate date;

        LocalDate of(long epochDay) {
            if (date == null || epochDay != this.epochDay) {
                date = LocalDate.ofEpochDay(epochDay);
                this.epochDay = epochDay;
            }
            return date;
        }
    }

    /** A PostgreSQL timestamptz sent binary, decoded from its 8 bytes; see {@link #readers}. */
    static final class PgBinaryTimestamptz implements Reader {
        private final LastDay days = new LastDay();

        /** Microseconds from PostgreSQL's epoch, big-endian, Long.MAX_VALUE and MIN_VALUE the infinities. */
        @Override
        public Object read(ResultSet rs, int index) throws SQLException {
            // PgJDBC hands a binary column's bytes over as received, without a copy.
            byte[] bytes = rs.getBytes(index);
            if (bytes == null) {
                return null;
            }
            // The driver's shifts rather than ByteBuffer.wrap, a top frame in profiles: about 15 ns less per value.
            long micros = bytes.length == Long.BYTES ? ByteConverter.int8(bytes, 0) : 0;
            if (bytes.length != Long.BYTES || micros == Long.MAX_VALUE || micros == Long.MIN_VALUE) {
                // A width the driver rejects, or an infinity: whatever read() makes of it.
                return utc(rs.getObject(index, OffsetDateTime.class));
            }
            // Floored, as the driver does, and in seconds: the microseconds of 294276 AD overflow a long from 1970.
            // Then LocalDateTime.ofEpochSecond's own steps, with the day from the reader's last one.
            long seconds = Math.floorDiv(micros, 1_000_000L) + PG_EPOCH_SECONDS;
            long nanoOfSecond = Math.floorMod(micros, 1_000_000L) * 1_000L;
            LocalDate day = days.of(Math.floorDiv(seconds, SECONDS_PER_DAY));
            LocalTime time = LocalTime.ofNanoOfDay(Math.floorMod(seconds, SECONDS_PER_DAY) * 1_000_000_000L + nanoOfSecond);
            return OffsetDateTime.of(LocalDateTime.of(day, time), ZoneOffset.UTC);
        }
    }

    /**
     * Binary numeric: int16 ndigits, weight (of the first digit, in powers of 10000), sign and dscale (the display
     * scale, which the driver's BigDecimal keeps), then ndigits base-10000 digits.
     */
    private static Object pgBinaryNumeric(ResultSet rs, int index) throws SQLException {
        byte[] bytes = rs.getBytes(index);
        if (bytes == null) {
            return null;
        }
        BigDecimal value = pgNumeric(bytes);
        // NaN, an infinity, a value beyond a long, or malformed: whatever read() makes of it.
        return value != null ? value : rs.getBigDecimal(index);
    }

    /**
     * The driver's BigDecimal of a binary numeric whose unscaled value at its display scale has up to 18 digits;
     * null for any other bytes, including any the server does not send (leading zero digits, digits out of range,
     * nonzero digits beyond dscale), whose handling stays the driver's.
     */
    static BigDecimal pgNumeric(byte[] bytes) {
        if (bytes.length < 8) {
            return null;
        }
        int ndigits = ByteConverter.int2(bytes, 0) & 0xFFFF;
        int weight = ByteConverter.int2(bytes, 2);
        int sign = ByteConverter.int2(bytes, 4) & 0xFFFF;
        int dscale = ByteConverter.int2(bytes, 6);
        if (bytes.length != 8 + 2 * ndigits || (sign != PG_NUMERIC_POS && sign != PG_NUMERIC_NEG)
                || dscale < 0 || dscale > PG_NUMERIC_MAX_DSCALE) {
            return null;
        }
        if (ndigits == 0) {
            // Zero, whatever its weight.
            return BigDecimal.valueOf(0, dscale);
        }
        int first = ByteConverter.int2(bytes, 8);
        // A unit of the last digit is 10000^(weight + 1 - ndigits): 10^exponent units of the last place of dscale.
        int exponent = 4 * (weight + 1 - ndigits) + dscale;
        if (first < 1 || first > 9_999 || exponent < -3 || digits(first, weight, dscale) > 18) {
            return null;
        }
        long unscaled = 0;
        int last = ndigits - 1;
        for (int i = 0; i < last; i++) {
            int digit = ByteConverter.int2(bytes, 8 + 2 * i);
            if (digit < 0 || digit > 9_999) {
                return null;
            }
            unscaled = unscaled * 10_000 + digit;
        }
        int digit = ByteConverter.int2(bytes, 8 + 2 * last);
        if (digit < 0 || digit > 9_999) {
            return null;
        }
        if (exponent >= 0) {
            unscaled = (unscaled * 10_000 + digit) * TEN_POWERS[exponent];
        } else {
            // The last digit reaches past dscale (1.5 at dscale 1 is 1, 5000): only zeros may be cut, by constants.
            int kept = switch (exponent) {
                case -1 -> digit / 10;
                case -2 -> digit / 100;
                default -> digit / 1_000;
            };
            if (kept * TEN_POWERS[-exponent] != digit) {
                return null;
            }
            unscaled = unscaled * TEN_POWERS[4 + exponent] + kept;
        }
        return BigDecimal.valueOf(sign == PG_NUMERIC_NEG ? -unscaled : unscaled, dscale);
    }

    /**
     * How many digits, at most, a numeric of this first digit, weight and dscale has unscaled: with 18 or fewer, no
     * step of {@link #pgNumeric} overflows a long, so none needs a check (a division per digit cost more than the
     * driver's decoding). The first digit's own width, a branch hard to predict, matters only near 18.
     */
    private static int digits(int first, int weight, int dscale) {
        int upTo = 4 * (weight + 1) + dscale;
        return upTo <= 18 ? upTo : upTo - 4 + (first >= 1_000 ? 4 : first >= 100 ? 3 : first >= 10 ? 2 : 1);
    }

    /** A PostgreSQL date sent binary, decoded from its 4 bytes. */
    static final class PgBinaryDate implements Reader {
        private final LastDay days = new LastDay();

        /** Days from PostgreSQL's epoch, big-endian, Integer.MAX_VALUE and MIN_VALUE the infinities. */
        @Override
        public Object read(ResultSet rs, int index) throws SQLException {
            byte[] bytes = rs.getBytes(index);
            if (bytes == null) {
                return null;
            }
            int pgDays = bytes.length == Integer.BYTES ? ByteConverter.int4(bytes, 0) : Integer.MAX_VALUE;
            if (pgDays == Integer.MAX_VALUE || pgDays == Integer.MIN_VALUE) {
                // A width the driver rejects, or an infinity: whatever read() makes of it.
                return rs.getObject(index, LocalDate.class);
            }
            // The driver's own arithmetic (TimestampUtils.toLocalDateBin): proleptic Gregorian, BC dates included.
            return days.of(pgDays + PG_EPOCH_DAYS);
        }
    }

    /** The value of column {@code index} (1-based) of the current row, as {@code column.type().javaClass()}. */
    public static Object read(ResultSet rs, int index, SourceColumn column) throws SQLException {
        Object value = switch (column.type()) {
            case INT -> rs.getInt(index);
            case LONG -> rs.getLong(index);
            case DECIMAL -> rs.getBigDecimal(index);
            case FLOAT -> rs.getFloat(index);
            case DOUBLE -> rs.getDouble(index);
            case STRING -> rs.getString(index);
            case BOOLEAN -> rs.getBoolean(index);
            case DATE -> rs.getObject(index, LocalDate.class);
            case TIMESTAMP -> rs.getObject(index, LocalDateTime.class);
            case TIMESTAMPTZ -> utc(rs.getObject(index, OffsetDateTime.class));
            case BINARY -> bytes(rs.getBytes(index));
        };
        return rs.wasNull() ? null : value;
    }

    private static OffsetDateTime utc(OffsetDateTime value) {
        return value == null ? null : value.withOffsetSameInstant(ZoneOffset.UTC);
    }

    private static ByteBuffer bytes(byte[] value) {
        return value == null ? null : ByteBuffer.wrap(value);
    }
}

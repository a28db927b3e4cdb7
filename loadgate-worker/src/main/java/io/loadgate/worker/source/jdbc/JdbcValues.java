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
        return rs.getStatement() != null && pgIntegerTimestamps(rs.getStatement().getConnection());
    }

    /** Whether a PostgreSQL server sends timestamps as integer microseconds (always, since PostgreSQL 10). */
    static boolean pgIntegerTimestamps(Connection connection) throws SQLException {
        return connection.isWrapperFor(PGConnection.class)
                && "on".equals(connection.unwrap(PGConnection.class).getParameterStatus("integer_datetimes"));
    }

    /** A PostgreSQL timestamptz sent binary, decoded from its 8 bytes; see {@link #readers}. */
    static final class PgBinaryTimestamptz implements Reader {
        private final PgBinary.LastDay days = new PgBinary.LastDay();

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
            if (bytes.length != Long.BYTES || PgBinary.infiniteTimestamp(micros)) {
                // A width the driver rejects, or an infinity: whatever read() makes of it.
                return utc(rs.getObject(index, OffsetDateTime.class));
            }
            return OffsetDateTime.of(days.ofPgMicros(micros), ZoneOffset.UTC);
        }
    }

    /** A PostgreSQL numeric sent binary, decoded from its bytes where its unscaled value fits a long. */
    private static Object pgBinaryNumeric(ResultSet rs, int index) throws SQLException {
        byte[] bytes = rs.getBytes(index);
        if (bytes == null) {
            return null;
        }
        BigDecimal value = PgBinary.numeric(bytes, 0, bytes.length);
        // NaN, an infinity, a value beyond a long, or malformed: whatever read() makes of it.
        return value != null ? value : rs.getBigDecimal(index);
    }

    /** A PostgreSQL date sent binary, decoded from its 4 bytes. */
    static final class PgBinaryDate implements Reader {
        private final PgBinary.LastDay days = new PgBinary.LastDay();

        /** Days from PostgreSQL's epoch, big-endian, Integer.MAX_VALUE and MIN_VALUE the infinities. */
        @Override
        public Object read(ResultSet rs, int index) throws SQLException {
            byte[] bytes = rs.getBytes(index);
            if (bytes == null) {
                return null;
            }
            int pgDays = bytes.length == Integer.BYTES ? ByteConverter.int4(bytes, 0) : Integer.MAX_VALUE;
            if (PgBinary.infiniteDate(pgDays)) {
                // A width the driver rejects, or an infinity: whatever read() makes of it.
                return rs.getObject(index, LocalDate.class);
            }
            return days.ofPgDays(pgDays);
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

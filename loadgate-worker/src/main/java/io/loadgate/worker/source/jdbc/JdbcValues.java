package io.loadgate.worker.source.jdbc;

import io.loadgate.worker.source.ColumnType;
import io.loadgate.worker.source.SourceColumn;
import io.loadgate.worker.source.SourceException;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.postgresql.PGConnection;
import org.postgresql.PGResultSetMetaData;

/** Maps JDBC column metadata to {@link SourceColumn}s and reads values as the classes {@link ColumnType} names. */
public final class JdbcValues {
    private static final int MAX_DECIMAL_PRECISION = 38;
    // PgJDBC's Field.BINARY_FORMAT, as PGResultSetMetaData.getFormat reports it.
    private static final int PG_BINARY_FORMAT = 1;
    // Seconds from 1970-01-01 to 2000-01-01, PostgreSQL's epoch for timestamps on the wire.
    private static final long PG_EPOCH_SECONDS = 946_684_800L;

    /** How one column of a result set is read; chosen once per column by {@link #readers}. */
    @FunctionalInterface
    interface Reader {
        Object read(ResultSet rs, int index) throws SQLException;
    }

    /** A PostgreSQL timestamptz sent binary, decoded from its 8 bytes; see {@link #readers}. */
    static final Reader PG_BINARY_TIMESTAMPTZ = JdbcValues::pgBinaryTimestamptz;

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
     * <p>A timestamptz that PgJDBC receives binary is decoded here from its bytes: the driver's own
     * {@code getObject(i, OffsetDateTime.class)} makes it with {@code OffsetDateTime.ofInstant(.., UTC)}, which on
     * Java 17 builds a new {@code ZoneRules} per value (about 5% of an extraction's CPU). The arithmetic is the
     * driver's (a proleptic instant, microseconds floored to seconds), so the values are equal; the two
     * infinities still go through the driver, and fail as they did. Float timestamps (a server built without
     * integer_datetimes, before PostgreSQL 10) and text columns keep the driver's decoding.
     */
    static Reader[] readers(ResultSet rs, List<SourceColumn> columns) throws SQLException {
        Reader[] readers = new Reader[columns.size()];
        boolean pgIntegerTimestamps = pgIntegerTimestamps(rs);
        ResultSetMetaData metadata = rs.getMetaData();
        for (int i = 0; i < readers.length; i++) {
            SourceColumn column = columns.get(i);
            boolean binaryTimestamptz = pgIntegerTimestamps && column.type() == ColumnType.TIMESTAMPTZ
                    && metadata.getColumnTypeName(i + 1).equalsIgnoreCase("timestamptz")
                    && metadata.unwrap(PGResultSetMetaData.class).getFormat(i + 1) == PG_BINARY_FORMAT;
            readers[i] = binaryTimestamptz ? PG_BINARY_TIMESTAMPTZ : (r, index) -> read(r, index, column);
        }
        return readers;
    }

    private static boolean pgIntegerTimestamps(ResultSet rs) throws SQLException {
        if (!rs.getMetaData().isWrapperFor(PGResultSetMetaData.class) || rs.getStatement() == null) {
            return false;
        }
        Connection connection = rs.getStatement().getConnection();
        return connection.isWrapperFor(PGConnection.class)
                && "on".equals(connection.unwrap(PGConnection.class).getParameterStatus("integer_datetimes"));
    }

    /** Microseconds from PostgreSQL's epoch, big-endian, Long.MAX_VALUE and MIN_VALUE the infinities. */
    private static Object pgBinaryTimestamptz(ResultSet rs, int index) throws SQLException {
        // PgJDBC hands a binary column's bytes over as received, without a copy.
        byte[] bytes = rs.getBytes(index);
        if (bytes == null) {
            return null;
        }
        long micros = bytes.length == Long.BYTES ? ByteBuffer.wrap(bytes).getLong() : 0;
        if (bytes.length != Long.BYTES || micros == Long.MAX_VALUE || micros == Long.MIN_VALUE) {
            // A width the driver rejects, or an infinity: whatever read() makes of it.
            return utc(rs.getObject(index, OffsetDateTime.class));
        }
        // Floored, as the driver does, and in seconds: the microseconds of 294276 AD overflow a long from 1970.
        long seconds = Math.floorDiv(micros, 1_000_000L) + PG_EPOCH_SECONDS;
        int nanos = (int) Math.floorMod(micros, 1_000_000L) * 1_000;
        return OffsetDateTime.of(LocalDateTime.ofEpochSecond(seconds, nanos, ZoneOffset.UTC), ZoneOffset.UTC);
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

package io.loadgate.worker.source.jdbc;

import io.loadgate.worker.source.ColumnType;
import io.loadgate.worker.source.SourceColumn;
import io.loadgate.worker.source.SourceException;
import java.nio.ByteBuffer;
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

/** Maps JDBC column metadata to {@link SourceColumn}s and reads values as the classes {@link ColumnType} names. */
public final class JdbcValues {
    private static final int MAX_DECIMAL_PRECISION = 38;

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

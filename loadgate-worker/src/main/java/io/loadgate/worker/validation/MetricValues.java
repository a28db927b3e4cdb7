package io.loadgate.worker.validation;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.HexFormat;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.DateTimeUtil;

/**
 * The one text form of a metric value. Source and staging produce values of the same Java classes (a JDBC
 * reader yields what Iceberg's generic records hold), and both format them here, so equal values are equal
 * strings: numbers as plain decimals without trailing zeros ("12.5", never "1.25E+1" or "12.50"), timestamps
 * with zone as UTC instants, and a missing value (a MIN over no rows) as {@value #NONE}.
 */
public final class MetricValues {
    public static final String NONE = "NULL";

    private MetricValues() {
    }

    public static String format(Object value) {
        if (value == null) {
            return NONE;
        }
        if (value instanceof BigDecimal decimal) {
            return decimal(decimal);
        }
        if (value instanceof Integer || value instanceof Long || value instanceof BigInteger || value instanceof Short) {
            return value.toString();
        }
        if (value instanceof Float || value instanceof Double) {
            double number = ((Number) value).doubleValue();
            // NaN and the infinities have no decimal form; their names are what PostgreSQL prints too.
            return Double.isFinite(number) ? decimal(new BigDecimal(value.toString())) : value.toString();
        }
        if (value instanceof OffsetDateTime timestamp) {
            return timestamp.toInstant().toString();
        }
        if (value instanceof LocalDateTime || value instanceof LocalDate || value instanceof LocalTime
                || value instanceof CharSequence || value instanceof Boolean) {
            return value.toString();
        }
        // A JDBC reader yields a byte[], Iceberg's records a ByteBuffer: the same bytes, the same text.
        if (value instanceof byte[] data) {
            return HexFormat.of().formatHex(data);
        }
        if (value instanceof ByteBuffer bytes) {
            ByteBuffer copy = bytes.duplicate();
            byte[] data = new byte[copy.remaining()];
            copy.get(data);
            return HexFormat.of().formatHex(data);
        }
        throw new IllegalArgumentException("no metric format for " + value.getClass().getName());
    }

    /**
     * {@code value} of a column of {@code type} as Iceberg's generic records hold it, given it either so or in Iceberg's
     * internal representation (dates as days, times and timestamps as microseconds since midnight or the epoch), which
     * is what manifest bounds and the staging reader yield: the same instant or day either way, so it formats alike.
     */
    public static Object asGeneric(Type type, Object value) {
        return switch (type.typeId()) {
            case DATE -> value instanceof Integer days ? DateTimeUtil.dateFromDays(days) : value;
            case TIME -> value instanceof Long micros ? DateTimeUtil.timeFromMicros(micros) : value;
            case TIMESTAMP -> value instanceof Long micros ? ((Types.TimestampType) type).shouldAdjustToUTC()
                    ? DateTimeUtil.timestamptzFromMicros(micros) : DateTimeUtil.timestampFromMicros(micros) : value;
            default -> value;
        };
    }

    private static String decimal(BigDecimal decimal) {
        return decimal.signum() == 0 ? "0" : decimal.stripTrailingZeros().toPlainString();
    }
}

package io.loadgate.worker.job;

import static java.util.Objects.requireNonNull;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * A business key parsed against the type of the column it names, and written back in the one canonical form the
 * ledger records. The source's filter casts the key (PostgreSQL reads {@code 20261125}, {@code yesterday} and
 * {@code 2026-11-25} all as dates), the publisher parses it again, and the ledger only compares text: without one
 * form, {@code 20261125} and {@code 2026-11-25} would be two active runs of one partition, and a key the publisher
 * cannot parse would fail only after the rows were extracted.
 *
 * <p>Accepted forms, and the canonical one first:
 * <ul>
 *   <li>date: {@code 2026-11-25}, or {@code 20261125} (Airflow's {@code ds_nodash}). Words such as
 *       {@code yesterday} are refused: the day they name depends on when, and in which time zone, they are read, so
 *       a replay would load another day;</li>
 *   <li>integers: decimal digits with an optional minus, without leading zeros ({@code 007} is {@code 7});</li>
 *   <li>decimal: at the column's scale ({@code 12} in a {@code decimal(8,2)} is {@code 12.00}); more digits are
 *       refused, never rounded;</li>
 *   <li>timestamp: {@code 2026-11-25T10:00:00[.ffffff]} (or a date, for midnight);</li>
 *   <li>timestamp with time zone: with {@code Z} or a negative offset, written in UTC ({@code ...Z}); without an
 *       offset it is refused, since the database session's zone would decide the instant;</li>
 *   <li>boolean: {@code true} or {@code false}; float and double: as Java writes them, finite only;</li>
 *   <li>text: exactly as given (a text key equals only itself).</li>
 * </ul>
 * Binary columns cannot be business keys.
 */
public final class BusinessKeyFormat {
    private static final DateTimeFormatter BASIC_DATE = DateTimeFormatter.BASIC_ISO_DATE;

    private BusinessKeyFormat() {
    }

    /**
     * The canonical form of {@code key} for the business-key column {@code column} of {@code schema} (the staged
     * files' schema, made from the source's columns, or the target table's).
     *
     * @throws JobSpecException when the column is not in the schema or the key is not a value of its type; the
     *     message is one line
     */
    public static String canonical(Schema schema, String column, String key) {
        requireNonNull(schema, "schema is null");
        requireNonNull(column, "column is null");
        Types.NestedField field = schema.findField(column);
        if (field == null) {
            throw new JobSpecException("target.business_key_column " + column + " is not among the source's columns "
                    + schema.columns().stream().map(Types.NestedField::name).toList());
        }
        return canonical(column, field.type(), key);
    }

    /** The canonical form of {@code key} for a column of {@code type}; see {@link #canonical(Schema, String, String)}. */
    public static String canonical(String column, Type type, String key) {
        requireNonNull(key, "key is null");
        try {
            return switch (type.typeId()) {
                case DATE -> date(key).toString();
                case INTEGER -> Integer.toString(Integer.parseInt(key));
                case LONG -> Long.toString(Long.parseLong(key));
                case DECIMAL -> new BigDecimal(key).setScale(((Types.DecimalType) type).scale()).toPlainString();
                case STRING -> key;
                case BOOLEAN -> bool(key);
                case FLOAT -> Float.toString(finite(Float.parseFloat(key)));
                case DOUBLE -> Double.toString(finite(Double.parseDouble(key)));
                case TIMESTAMP -> ((Types.TimestampType) type).shouldAdjustToUTC() ? instant(key) : localDateTime(key);
                default -> throw new JobSpecException("business-key column " + column + " is " + type
                        + ", which a business key cannot be (a date, timestamp, integer, decimal, boolean or text)");
            };
        } catch (DateTimeParseException | ArithmeticException | NumberFormatException e) {
            throw new JobSpecException("business key '" + key + "' is not a " + type + " for column " + column
                    + ": " + expected(type));
        }
    }

    private static LocalDate date(String key) {
        // Eight digits and nothing else: BASIC_ISO_DATE alone would also take an offset after them.
        return key.matches("[0-9]{8}") ? LocalDate.parse(key, BASIC_DATE) : LocalDate.parse(key);
    }

    private static String localDateTime(String key) {
        LocalDateTime value = key.contains("T") ? LocalDateTime.parse(key) : date(key).atStartOfDay();
        return DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(value);
    }

    private static String instant(String key) {
        OffsetDateTime value = OffsetDateTime.parse(key).withOffsetSameInstant(ZoneOffset.UTC);
        return DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(value);
    }

    private static String bool(String key) {
        String lower = key.toLowerCase(Locale.ROOT);
        if (!lower.equals("true") && !lower.equals("false")) {
            throw new NumberFormatException(key);
        }
        return lower;
    }

    private static float finite(float value) {
        if (!Float.isFinite(value)) {
            throw new NumberFormatException("not finite");
        }
        return value;
    }

    private static double finite(double value) {
        if (!Double.isFinite(value)) {
            throw new NumberFormatException("not finite");
        }
        return value;
    }

    private static String expected(Type type) {
        return switch (type.typeId()) {
            case DATE -> "write it as YYYY-MM-DD or YYYYMMDD (words such as 'yesterday' are refused: pass the date,"
                    + " e.g. $(date -d yesterday +%F) or Airflow's {{ ds }})";
            case INTEGER, LONG -> "write it as a whole number that fits the column";
            case DECIMAL -> "write it as a number with at most " + ((Types.DecimalType) type).scale()
                    + " digits after the point";
            case BOOLEAN -> "write it as true or false";
            case FLOAT, DOUBLE -> "write it as a finite number";
            case TIMESTAMP -> ((Types.TimestampType) type).shouldAdjustToUTC()
                    ? "write it as YYYY-MM-DDTHH:MM:SS with Z or a -HH:MM offset (the instant must not depend on a"
                            + " session's time zone)"
                    : "write it as YYYY-MM-DDTHH:MM:SS[.ffffff] or YYYY-MM-DD";
            default -> "its type takes no business key";
        };
    }
}

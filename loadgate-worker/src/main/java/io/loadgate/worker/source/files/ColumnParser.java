package io.loadgate.worker.source.files;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.job.FileColumnSpec;
import io.loadgate.worker.source.ColumnType;
import io.loadgate.worker.source.SourceColumn;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns a field's text into a value of its column's type ({@link ColumnType}'s classes), or says why it does not
 * fit. Nothing is rounded or truncated: a value that does not fit its type rejects the line.
 */
final class ColumnParser {
    private static final Pattern DECIMAL = Pattern.compile("decimal\\(\\s*([0-9]{1,2})\\s*,\\s*([0-9]{1,2})\\s*\\)");

    private final SourceColumn column;
    private final DateTimeFormatter format;

    private ColumnParser(SourceColumn column, DateTimeFormatter format) {
        this.column = requireNonNull(column, "column is null");
        this.format = format;
    }

    /** @throws IllegalArgumentException naming the column when its type or format is not one a file column takes */
    static ColumnParser of(FileColumnSpec spec) {
        SourceColumn column = column(spec.name(), spec.type());
        DateTimeFormatter format = null;
        if (spec.format() != null) {
            if (column.type() != ColumnType.DATE && column.type() != ColumnType.TIMESTAMP) {
                throw new IllegalArgumentException("source.files.columns[" + spec.name() + "].format applies to dates"
                        + " and timestamps only");
            }
            try {
                format = DateTimeFormatter.ofPattern(spec.format(), Locale.ROOT);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("source.files.columns[" + spec.name() + "].format is not a date"
                        + " pattern: " + e.getMessage());
            }
        }
        return new ColumnParser(column, format);
    }

    /** The column a type name declares: Hive's names, as {@code hive_columns.csv} writes them. */
    static SourceColumn column(String name, String type) {
        String lower = type.trim().toLowerCase(Locale.ROOT);
        Matcher decimal = DECIMAL.matcher(lower);
        if (decimal.matches()) {
            int precision = Integer.parseInt(decimal.group(1));
            int scale = Integer.parseInt(decimal.group(2));
            if (precision < 1 || precision > 38 || scale > precision) {
                throw new IllegalArgumentException("column " + name + ": " + type + " is not a decimal(p,s) with"
                        + " 1 <= p <= 38 and s <= p");
            }
            return new SourceColumn(name, ColumnType.DECIMAL, precision, scale);
        }
        ColumnType columnType = switch (lower) {
            case "string", "varchar", "text" -> ColumnType.STRING;
            case "int", "integer" -> ColumnType.INT;
            case "bigint" -> ColumnType.LONG;
            case "double" -> ColumnType.DOUBLE;
            case "boolean" -> ColumnType.BOOLEAN;
            case "date" -> ColumnType.DATE;
            case "timestamp" -> ColumnType.TIMESTAMP;
            default -> throw new IllegalArgumentException("column " + name + " has type '" + type + "'; a file column"
                    + " is string, int, bigint, decimal(p,s), double, boolean, date or timestamp");
        };
        return SourceColumn.of(name, columnType);
    }

    SourceColumn column() {
        return column;
    }

    /**
     * The value of {@code text} (null stays null: an absent field); throws {@link IllegalArgumentException} with
     * the reason when it does not fit.
     */
    Object parse(String text) {
        if (text == null) {
            return null;
        }
        try {
            return switch (column.type()) {
                case STRING -> text;
                case INT -> Integer.parseInt(text.trim());
                case LONG -> Long.parseLong(text.trim());
                case DOUBLE -> finite(Double.parseDouble(text.trim()));
                case BOOLEAN -> bool(text.trim());
                case DECIMAL -> decimal(text.trim());
                case DATE -> format == null ? LocalDate.parse(text.trim()) : LocalDate.parse(text.trim(), format);
                case TIMESTAMP -> format == null ? LocalDateTime.parse(text.trim())
                        : LocalDateTime.parse(text.trim(), format);
                case FLOAT, TIMESTAMPTZ, BINARY -> throw new IllegalStateException("no file column is " + column.type());
            };
        } catch (NumberFormatException | DateTimeParseException | ArithmeticException e) {
            throw new IllegalArgumentException(column.name() + ": '" + shortened(text) + "' is not of type "
                    + typeName() + (format == null ? "" : " in the column's format"));
        }
    }

    private BigDecimal decimal(String text) {
        BigDecimal value = new BigDecimal(text);
        // UNNECESSARY: a value with more fraction digits than the scale is refused, never rounded.
        BigDecimal scaled = value.setScale(column.scale(), RoundingMode.UNNECESSARY);
        if (scaled.precision() > column.precision()) {
            throw new ArithmeticException("too many digits");
        }
        return scaled;
    }

    private static Boolean bool(String text) {
        return switch (text.toLowerCase(Locale.ROOT)) {
            case "true" -> Boolean.TRUE;
            case "false" -> Boolean.FALSE;
            default -> throw new NumberFormatException(text);
        };
    }

    private static double finite(double value) {
        if (!Double.isFinite(value)) {
            throw new NumberFormatException("not finite");
        }
        return value;
    }

    private String typeName() {
        return switch (column.type()) {
            case DECIMAL -> "decimal(" + column.precision() + "," + column.scale() + ")";
            case LONG -> "bigint";
            default -> column.type().name().toLowerCase(Locale.ROOT);
        };
    }

    private static String shortened(String text) {
        return text.length() <= 60 ? text : text.substring(0, 57) + "...";
    }
}

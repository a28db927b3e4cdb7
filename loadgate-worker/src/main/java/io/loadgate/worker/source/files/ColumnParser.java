package io.loadgate.worker.source.files;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.job.FileColumnSpec;
import io.loadgate.worker.source.ColumnType;
import io.loadgate.worker.source.SourceColumn;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
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
                case BOOLEAN -> bool(text);
                case DECIMAL -> decimal(new BigDecimal(text.trim()));
                case DATE -> format == null ? isoDate(text.trim()) : LocalDate.parse(text.trim(), format);
                case TIMESTAMP -> format == null ? isoDateTime(text.trim())
                        : LocalDateTime.parse(text.trim(), format);
                case FLOAT, TIMESTAMPTZ, BINARY -> throw new IllegalStateException("no file column is " + column.type());
            };
        } catch (NumberFormatException | DateTimeException | ArithmeticException e) {
            throw new IllegalArgumentException(column.name() + ": '" + shortened(text) + "' is not of type "
                    + typeName() + (format == null ? "" : " in the column's format"));
        }
    }

    /**
     * {@code LocalDate.parse}, with the common {@code yyyy-MM-dd} read by hand: the formatter's general parse was
     * the largest single cost of a file load's typed values (bench/RESULTS.md, issue 11). Values and refusals are
     * the formatter's: {@code LocalDate.of} refuses what its strict resolver refuses (Feb 30, month 13).
     */
    static LocalDate isoDate(String text) {
        LocalDate date = text.length() == 10 ? shapedDate(text) : null;
        return date != null ? date : LocalDate.parse(text);
    }

    /**
     * {@code LocalDateTime.parse}, with the common {@code yyyy-MM-ddTHH:mm:ss} read by hand, as {@link #isoDate};
     * other ISO forms (no seconds, a fraction, a signed year) go to the formatter.
     */
    static LocalDateTime isoDateTime(String text) {
        if (text.length() == 19 && text.charAt(10) == 'T' && text.charAt(13) == ':' && text.charAt(16) == ':') {
            int hour = digits(text, 11, 13);
            int minute = digits(text, 14, 16);
            int second = digits(text, 17, 19);
            LocalDate date = shapedDate(text);
            if (date != null && (hour | minute | second) >= 0) {
                return LocalDateTime.of(date, LocalTime.of(hour, minute, second));
            }
        }
        return LocalDateTime.parse(text);
    }

    /** The date of {@code dddd-dd-dd} at the start of {@code text}; null when it has another shape. */
    private static LocalDate shapedDate(String text) {
        if (text.charAt(4) != '-' || text.charAt(7) != '-') {
            return null;
        }
        int year = digits(text, 0, 4);
        int month = digits(text, 5, 7);
        int day = digits(text, 8, 10);
        return (year | month | day) < 0 ? null : LocalDate.of(year, month, day);
    }

    /** The ASCII digits of {@code text[from, to)} as a number, or -1 if one is not a digit. */
    private static int digits(String text, int from, int to) {
        int value = 0;
        for (int i = from; i < to; i++) {
            int d = text.charAt(i) - '0';
            if (d < 0 || d > 9) {
                return -1;
            }
            value = value * 10 + d;
        }
        return value;
    }

    /**
     * The value of a JSON number (Integer, Long, BigInteger or BigDecimal, as Jackson's tree holds them): what
     * {@code parse(number.toString())} gives, without writing and reading the text back where the type allows.
     */
    Object parse(Number number) {
        try {
            switch (column.type()) {
                case INT -> {
                    if (number instanceof Integer) {
                        return number;
                    }
                }
                case LONG -> {
                    if (number instanceof Integer || number instanceof Long) {
                        return number.longValue();
                    }
                }
                case DECIMAL -> {
                    if (number instanceof BigDecimal value) {
                        return decimal(value);
                    }
                    if (number instanceof Integer || number instanceof Long) {
                        return decimal(BigDecimal.valueOf(number.longValue()));
                    }
                }
                case DOUBLE -> {
                    // Both round to the nearest double, as Double.parseDouble of their text does.
                    if (number instanceof BigDecimal || number instanceof Integer || number instanceof Long) {
                        double value = number.doubleValue();
                        if (Double.isFinite(value)) {
                            return value;
                        }
                    }
                }
                default -> {
                    // The text's value, below.
                }
            }
        } catch (ArithmeticException e) {
            // Refused with the text's reason, below.
        }
        return parse(number.toString());
    }

    private BigDecimal decimal(BigDecimal value) {
        // What setScale below would refuse, refused before it: for an exponent such as 1e999999999 (or a zero with
        // one) it first computes a power of ten of that many digits, a partition's worth of CPU for one line.
        if (value.signum() == 0) {
            return BigDecimal.valueOf(0, column.scale());
        }
        if (value.precision() - value.scale() > column.precision() - column.scale()
                || value.scale() > column.scale() && value.stripTrailingZeros().scale() > column.scale()) {
            throw new ArithmeticException("does not fit");
        }
        // UNNECESSARY: a value with more fraction digits than the scale is refused, never rounded.
        BigDecimal scaled = value.setScale(column.scale(), RoundingMode.UNNECESSARY);
        if (scaled.precision() > column.precision()) {
            throw new ArithmeticException("too many digits");
        }
        return scaled;
    }

    /**
     * {@code true} or {@code false} in any case of ASCII letters, spaces around it ignored, as {@code trim()}, then
     * {@code toLowerCase(Locale.ROOT)} and a match accepted them, without making either copy of each value. Not
     * {@code equalsIgnoreCase}: it takes {@code "falſe"} (a long s, whose upper case is S), which lower-casing keeps
     * apart.
     */
    private static Boolean bool(String text) {
        // String.trim's bounds: every character up to U+0020 is a space to it.
        int from = 0;
        int to = text.length();
        while (from < to && text.charAt(from) <= ' ') {
            from++;
        }
        while (to > from && text.charAt(to - 1) <= ' ') {
            to--;
        }
        if (asciiIgnoringCase(text, from, to, "true")) {
            return Boolean.TRUE;
        }
        if (asciiIgnoringCase(text, from, to, "false")) {
            return Boolean.FALSE;
        }
        throw new NumberFormatException(text);
    }

    /** Whether {@code text[from, to)} is {@code lower} (ASCII lower-case letters) with any of its letters upper-cased. */
    private static boolean asciiIgnoringCase(String text, int from, int to, String lower) {
        if (to - from != lower.length()) {
            return false;
        }
        for (int i = 0; i < lower.length(); i++) {
            // Only 'A'..'Z' and 'a'..'z' give a lower-case letter when 0x20 is set.
            if ((text.charAt(from + i) | 0x20) != lower.charAt(i)) {
                return false;
            }
        }
        return true;
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

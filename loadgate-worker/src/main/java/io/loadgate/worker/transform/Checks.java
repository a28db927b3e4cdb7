package io.loadgate.worker.transform;

import java.math.BigDecimal;
import java.util.regex.Pattern;

/** The checking steps: each rejects a row, with a reason naming the column and the rule, or lets it pass. */
final class Checks {
    private Checks() {
    }

    static RowTransform require(int position, String column) {
        String reason = "require " + column + ": null";
        return row -> row.get(position) == null ? reason : null;
    }

    static RowTransform range(int position, String column, BigDecimal min, BigDecimal max) {
        return row -> {
            Object value = row.get(position);
            if (value == null) {
                return null;
            }
            BigDecimal number = decimal(value);
            if (number == null) {
                return "range " + column + ": " + value + " is not a number";
            }
            if (min != null && number.compareTo(min) < 0) {
                return "range " + column + ": " + value + " is below " + min.toPlainString();
            }
            if (max != null && number.compareTo(max) > 0) {
                return "range " + column + ": " + value + " is above " + max.toPlainString();
            }
            return null;
        };
    }

    static RowTransform match(int position, String column, String regex) {
        Pattern pattern = Pattern.compile(regex);
        return row -> {
            Object value = row.get(position);
            return value == null || pattern.matcher(value.toString()).matches() ? null
                    : "match " + column + ": " + shorten(value.toString()) + " does not match " + regex;
        };
    }

    static RowTransform maxLength(int position, String column, int length) {
        return row -> {
            Object value = row.get(position);
            if (value == null) {
                return null;
            }
            String text = value.toString();
            int characters = text.codePointCount(0, text.length());
            return characters <= length ? null
                    : "max_length " + column + ": " + characters + " characters, at most " + length;
        };
    }

    /** NaN and the infinities of floating-point columns have no decimal value: they fail a range check. */
    private static BigDecimal decimal(Object value) {
        if (value instanceof BigDecimal decimal) {
            return decimal;
        }
        if (value instanceof Integer || value instanceof Long) {
            return BigDecimal.valueOf(((Number) value).longValue());
        }
        double d = ((Number) value).doubleValue();
        return Double.isFinite(d) ? new BigDecimal(Double.toString(d)) : null;
    }

    private static String shorten(String value) {
        return value.length() <= 80 ? "'" + value + "'" : "'" + value.substring(0, 77) + "...'";
    }
}

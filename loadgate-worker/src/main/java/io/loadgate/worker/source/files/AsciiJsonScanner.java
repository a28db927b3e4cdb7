package io.loadgate.worker.source.files;

import io.loadgate.worker.source.files.JsonFields.Step;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.math.BigDecimal;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * {@link JsonFields}' read of the common line without Jackson: an ASCII line that is one JSON object whose columns'
 * pointers end at scalars. A Jackson parser made per line (its bootstrap, buffer recycling, context) and BigDecimal's
 * parse and strip of each float were most of a file load's parse CPU (bench/RESULTS.md, issue 11).
 *
 * <p>The contract: {@link #read} either gives exactly the values Jackson's path gives (same classes, same values)
 * and returns true, or returns false and leaves the line to Jackson, which then gives the values or the refusal and
 * its reason. So it returns true only for a line that it has read to its end as strict JSON (RFC 8259: no comments,
 * no leading zeros, no lone minus, no control characters in strings, nothing after the object), and returns false on
 * anything else, and also on what it does not read itself: a pointer ending at an object or array (a column of its
 * JSON text), a name with an escape where the columns want a field, a <code>&#92;u</code> escape to a surrogate, an integer of
 * more than 18 digits or a float of more than 18 digits or an exponent of more than 4 (Jackson's choice of class and
 * its BigDecimal's limits need not be redone here), nesting deeper than 64 or a line over 50,000 bytes (below each
 * of Jackson's {@code StreamReadConstraints}, whose refusals are then Jackson's).
 *
 * <p>Stateless: the position is passed along, and each step returns the index after what it read, or {@link #FAIL}.
 */
final class AsciiJsonScanner {
    private static final int FAIL = -1;
    /** {@link #plainClosingQuote}'s answer for a string with an escape. */
    private static final int ESCAPED = -2;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGH_BITS = 0x8080808080808080L;
    private static final long QUOTES = ONES * '"';
    private static final long BACKSLASHES = ONES * '\\';
    private static final long SPACES = ONES * ' ';
    private static final int MAX_DEPTH = 64;
    private static final int MAX_LENGTH = 50_000;
    /** Digits a long holds whatever they are. */
    private static final int MAX_DIGITS = 18;
    private static final int MAX_EXPONENT_DIGITS = 4;
    private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
    private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
    private static final byte[] NULL = {'n', 'u', 'l', 'l'};

    private AsciiJsonScanner() {
    }

    /**
     * Sets {@code values} from the ASCII line {@code bytes[offset, offset + length)} as {@link JsonFields#read} would
     * and returns true, or returns false (with {@code values} in any state) when Jackson must read the line.
     */
    static boolean read(Step root, byte[] bytes, int offset, int length, Object[] values) {
        if (length > MAX_LENGTH) {
            return false;
        }
        int end = offset + length;
        int i = space(bytes, offset, end);
        if (i == end || bytes[i] != '{') {
            return false;
        }
        Arrays.fill(values, null);
        i = value(bytes, i, end, root, values, 0);
        return i != FAIL && space(bytes, i, end) == end;
    }

    /** JSON's four spaces; Jackson refuses any other byte below 0x21 between tokens. */
    private static int space(byte[] b, int i, int end) {
        while (i < end) {
            byte c = b[i];
            if (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
                break;
            }
            i++;
        }
        return i;
    }

    /** Reads the value at {@code b[i]} (not a space), the one {@code step} names (null: none, it is only checked). */
    private static int value(byte[] b, int i, int end, Step step, Object[] values, int depth) {
        if (step != null) {
            // A key seen again replaces what its first value gave, as in JsonFields.
            for (int column : step.below) {
                values[column] = null;
            }
        }
        Step ending = step != null && step.ends.length > 0 ? step : null;
        return switch (b[i]) {
            // A column of an object's or array's text: Jackson's tree writes it.
            case '{' -> ending != null ? FAIL : object(b, i, end, step, values, depth);
            case '[' -> ending != null ? FAIL : array(b, i, end, step, values, depth);
            case '"' -> string(b, i, end, ending, values);
            case 't' -> literal(b, i, end, TRUE, "true", ending, values);
            case 'f' -> literal(b, i, end, FALSE, "false", ending, values);
            case 'n' -> literal(b, i, end, NULL, null, ending, values);
            default -> number(b, i, end, ending, values);
        };
    }

    private static int object(byte[] b, int i, int end, Step step, Object[] values, int depth) {
        if (depth == MAX_DEPTH) {
            return FAIL;
        }
        i = space(b, i + 1, end);
        if (i < end && b[i] == '}') {
            return i + 1;
        }
        while (true) {
            if (i == end || b[i] != '"') {
                return FAIL;
            }
            int close = plainClosingQuote(b, i, end);
            boolean escaped = close == ESCAPED;
            if (escaped) {
                close = closingQuote(b, i, end);
            }
            if (close == FAIL) {
                return FAIL;
            }
            Step child = null;
            if (step != null && step.hasFields()) {
                if (escaped) {
                    // Its decoded name might be one a pointer names.
                    return FAIL;
                }
                child = step.field(b, i + 1, close - i - 1);
            }
            i = space(b, close + 1, end);
            if (i == end || b[i] != ':') {
                return FAIL;
            }
            i = space(b, i + 1, end);
            if (i == end || (i = value(b, i, end, child, values, depth + 1)) == FAIL) {
                return FAIL;
            }
            i = space(b, i, end);
            if (i == end) {
                return FAIL;
            }
            if (b[i] == '}') {
                return i + 1;
            }
            if (b[i] != ',') {
                return FAIL;
            }
            i = space(b, i + 1, end);
        }
    }

    private static int array(byte[] b, int i, int end, Step step, Object[] values, int depth) {
        if (depth == MAX_DEPTH) {
            return FAIL;
        }
        i = space(b, i + 1, end);
        if (i < end && b[i] == ']') {
            return i + 1;
        }
        for (int index = 0; ; index++) {
            Step child = step == null ? null : step.element(index);
            if (i == end || (i = value(b, i, end, child, values, depth + 1)) == FAIL) {
                return FAIL;
            }
            i = space(b, i, end);
            if (i == end) {
                return FAIL;
            }
            if (b[i] == ']') {
                return i + 1;
            }
            if (b[i] != ',') {
                return FAIL;
            }
            i = space(b, i + 1, end);
        }
    }

    private static int literal(byte[] b, int i, int end, byte[] literal, String text, Step ending, Object[] values) {
        // What follows is checked by the caller: "truex" fails there, as Jackson refuses it.
        if (end - i < literal.length || !Arrays.equals(b, i, i + literal.length, literal, 0, literal.length)) {
            return FAIL;
        }
        if (ending != null) {
            for (int column : ending.ends) {
                values[column] = text;
            }
        }
        return i + literal.length;
    }

    private static int string(byte[] b, int i, int end, Step ending, Object[] values) {
        int close = plainClosingQuote(b, i, end);
        boolean escaped = close == ESCAPED;
        if (escaped) {
            close = closingQuote(b, i, end);
        }
        if (close == FAIL) {
            return FAIL;
        }
        if (ending != null) {
            String text = escaped ? unescape(b, i + 1, close)
                    // ASCII: each byte is its char, and Latin-1 is the cheapest decoder that says so.
                    : new String(b, i + 1, close - i - 1, StandardCharsets.ISO_8859_1);
            if (text == null) {
                return FAIL;
            }
            for (int column : ending.ends) {
                values[column] = text;
            }
        }
        return close + 1;
    }

    /**
     * The index of the quote that closes the string opening at {@code b[i]} when the string has no escape; FAIL for
     * a control character, a byte that is not ASCII or no closing quote; {@link #ESCAPED} at its first backslash. The
     * common string's one pass, eight bytes at a time: finding the quote, then looking for a backslash before it, was
     * about a tenth of a file load's worker samples (bench/RESULTS.md, 2026-12-02).
     */
    private static int plainClosingQuote(byte[] b, int i, int end) {
        int j = i + 1;
        // Whole words while none of their bytes is a quote, a backslash, below 0x20 or above 0x7f (SWAR: a byte's
        // high bit is set in `stop` where it is one of those; a borrow may set it above such a byte too, never in a
        // word without one, and the bytewise loop below then finds the first).
        while (j <= end - Long.BYTES) {
            long word = (long) LONGS.get(b, j);
            long quote = word ^ QUOTES;
            long backslash = word ^ BACKSLASHES;
            long stop = (quote - ONES) & ~quote | (backslash - ONES) & ~backslash | (word - SPACES) | word;
            if ((stop & HIGH_BITS) != 0) {
                break;
            }
            j += Long.BYTES;
        }
        for (; j < end; j++) {
            byte c = b[j];
            if (c == '"') {
                return j;
            }
            if (c == '\\') {
                return ESCAPED;
            }
            if (c < 0x20) {
                return FAIL;
            }
        }
        return FAIL;
    }

    /** The index of the quote that closes the string opening at {@code b[i]}, its escapes checked; or FAIL. */
    private static int closingQuote(byte[] b, int i, int end) {
        for (int j = i + 1; j < end; j++) {
            byte c = b[j];
            if (c == '"') {
                return j;
            }
            if (c < 0x20) {
                // A control character, which Jackson refuses (or, negative, not ASCII: not this scanner's line).
                return FAIL;
            }
            if (c == '\\') {
                if (j + 1 == end) {
                    return FAIL;
                }
                switch (b[++j]) {
                    case '"', '\\', '/', 'b', 'f', 'n', 'r', 't' -> {
                    }
                    case 'u' -> {
                        if (end - j <= 4 || hex(b, j + 1) < 0) {
                            return FAIL;
                        }
                        j += 4;
                    }
                    default -> {
                        return FAIL;
                    }
                }
            }
        }
        return FAIL;
    }

    /** The text of a string's checked bytes {@code b[from, to)} with escapes; null for a surrogate (left to Jackson). */
    private static String unescape(byte[] b, int from, int to) {
        StringBuilder text = new StringBuilder(to - from);
        for (int j = from; j < to; j++) {
            char c = (char) b[j];
            if (c == '\\') {
                c = switch (b[++j]) {
                    case 'b' -> '\b';
                    case 'f' -> '\f';
                    case 'n' -> '\n';
                    case 'r' -> '\r';
                    case 't' -> '\t';
                    case 'u' -> (char) hex(b, j + 1);
                    default -> (char) b[j];
                };
                if (Character.isSurrogate(c)) {
                    return null;
                }
                if (b[j] == 'u') {
                    j += 4;
                }
            }
            text.append(c);
        }
        return text.toString();
    }

    /** The value of the four hex digits at {@code b[at]}, or -1. */
    private static int hex(byte[] b, int at) {
        int value = 0;
        for (int j = at; j < at + 4; j++) {
            int d = Character.digit(b[j], 16);
            if (d < 0) {
                return -1;
            }
            value = value << 4 | d;
        }
        return value;
    }

    /**
     * A number in JSON's grammar: an int as Jackson's {@code getNumberValue()} (Integer when it fits one, else Long),
     * a float as {@code JsonFields.decimal}: its BigDecimal zero as {@code BigDecimal.ZERO}, else with its trailing
     * zeros stripped, made from its digits rather than parsed and divided down.
     */
    private static int number(byte[] b, int i, int end, Step ending, Object[] values) {
        int j = i;
        boolean negative = b[j] == '-';
        if (negative) {
            j++;
        }
        int intStart = j;
        j = digits(b, j, end);
        int intDigits = j - intStart;
        if (intDigits == 0 || intDigits > 1 && b[intStart] == '0') {
            // A lone minus, another character, or a leading zero.
            return FAIL;
        }
        int fractionStart = j;
        int fractionDigits = 0;
        boolean isFloat = false;
        if (j < end && b[j] == '.') {
            fractionStart = j + 1;
            j = digits(b, fractionStart, end);
            fractionDigits = j - fractionStart;
            if (fractionDigits == 0) {
                return FAIL;
            }
            isFloat = true;
        }
        int exponent = 0;
        if (j < end && (b[j] == 'e' || b[j] == 'E')) {
            j++;
            boolean negativeExponent = j < end && b[j] == '-';
            if (j < end && (b[j] == '-' || b[j] == '+')) {
                j++;
            }
            int exponentStart = j;
            j = digits(b, j, end);
            if (j == exponentStart || j - exponentStart > MAX_EXPONENT_DIGITS) {
                return FAIL;
            }
            exponent = (int) digitsValue(b, exponentStart, j);
            if (negativeExponent) {
                exponent = -exponent;
            }
            isFloat = true;
        }
        if (intDigits + fractionDigits > MAX_DIGITS) {
            return FAIL;
        }
        if (ending != null) {
            long digits = digitsValue(b, intStart, intStart + intDigits);
            Object value;
            if (isFloat) {
                digits = digitsValue(b, fractionStart, fractionStart + fractionDigits, digits);
                value = decimal(negative ? -digits : digits, fractionDigits - exponent);
            } else {
                long whole = negative ? -digits : digits;
                value = whole == (int) whole ? (Object) (int) whole : (Object) whole;
            }
            for (int column : ending.ends) {
                values[column] = value;
            }
        }
        return j;
    }

    /** {@code new BigDecimal(unscaled, scale)} as {@code JsonFields.decimal} gives it, zeros stripped here. */
    private static BigDecimal decimal(long unscaled, int scale) {
        if (unscaled == 0) {
            return BigDecimal.ZERO;
        }
        while (unscaled % 10 == 0) {
            unscaled /= 10;
            scale--;
        }
        // Equal to what stripTrailingZeros gives: a nonzero value has one representation without trailing zeros.
        return BigDecimal.valueOf(unscaled, scale);
    }

    private static int digits(byte[] b, int j, int end) {
        while (j < end && b[j] >= '0' && b[j] <= '9') {
            j++;
        }
        return j;
    }

    private static long digitsValue(byte[] b, int from, int to) {
        return digitsValue(b, from, to, 0);
    }

    /** {@code value} followed by the digits {@code b[from, to)} (at most {@link #MAX_DIGITS} in all). */
    private static long digitsValue(byte[] b, int from, int to, long value) {
        for (int j = from; j < to; j++) {
            value = value * 10 + (b[j] - '0');
        }
        return value;
    }
}

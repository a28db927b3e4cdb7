package io.loadgate.worker.source.files;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the fields that the columns' JSON pointers name from one JSON line with Jackson's streaming parser, skipping
 * the rest, instead of building the line's whole tree (the largest cost of a file load's extraction:
 * bench/RESULTS.md, issue 11). What it gives and refuses is what {@code readTree(line).at(pointer)} gave: the line
 * is parsed to its end, so a line malformed anywhere (or with a trailing value) is refused, and refused before any
 * of its values is judged; the last of duplicate keys wins; each scalar's text is the text of the node the tree had
 * (a float went through {@code BigDecimal} with its trailing zeros stripped, so {@code 1.50} is {@code 1.5} and
 * {@code 100.0} is {@code 1E+2}); a pointer that meets an object or array gets that node.
 */
final class JsonFields {
    /**
     * The tree's settings, for the subtrees a pointer ends at; trailing tokens are checked on the whole line by
     * {@link #read}, not after each subtree.
     */
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .disable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();
    /** Databind's refusal of a trailing token, as {@code FAIL_ON_TRAILING_TOKENS} worded it for the whole tree. */
    private static final String TRAILING = "Trailing token (of type %s) found after value (bound as"
            + " `com.fasterxml.jackson.databind.JsonNode`): not allowed as per"
            + " `DeserializationFeature.FAIL_ON_TRAILING_TOKENS`";

    private final Step root = new Step();

    /** @param pointers one per column, in the columns' order */
    JsonFields(List<JsonPointer> pointers) {
        for (int column = 0; column < pointers.size(); column++) {
            JsonPointer rest = pointers.get(column);
            Step step = root;
            while (true) {
                step.below(column, rest);
                if (rest.matches()) {
                    step.ends = append(step.ends, column);
                    break;
                }
                step = step.child(rest.getMatchingProperty(), rest.getMatchingIndex());
                rest = rest.tail();
            }
        }
    }

    /**
     * Sets {@code values[i]} to what column {@code i}'s pointer names in {@code line}: null (absent or JSON null),
     * a number as the tree held it (Integer, Long, BigInteger, BigDecimal), the text of another scalar, or the
     * {@link JsonNode} of an object or array.
     *
     * @throws LineParser.Rejected when the line is not JSON, or not an object
     */
    void read(String line, Object[] values) {
        try {
            read(MAPPER.createParser(line), values);
        } catch (IOException e) {
            // A string has nothing to fail reading but its JSON.
            throw new UncheckedIOException(e);
        }
    }

    /**
     * {@link #read(String, Object[])} of the line {@code bytes[offset, offset + length)}, which must be ASCII: its
     * bytes are then its characters, and Jackson's byte parser gives what its char parser gives for the decoded
     * text, and a line it refuses is read again as text for the reason it gave before. (Other UTF-8 lines are
     * decoded first: the byte parser refuses a malformed sequence that decoding makes U+FFFD.) The common line is
     * read by {@link AsciiJsonScanner} without a parser; Jackson reads the others.
     */
    void read(byte[] bytes, int offset, int length, Object[] values) {
        if (scan(bytes, offset, length, values)) {
            return;
        }
        for (int i = offset; i < offset + Math.min(length, 4); i++) {
            if (bytes[i] == 0) {
                // Jackson takes a zero among the first four bytes for UTF-16 or UTF-32; the text is what it is.
                read(new String(bytes, offset, length, StandardCharsets.US_ASCII), values);
                return;
            }
        }
        try {
            read(MAPPER.createParser(bytes, offset, length), values);
        } catch (LineParser.Rejected e) {
            // The byte parser words some errors otherwise ("in VALUE_STRING"): the reason is the char parser's.
            read(new String(bytes, offset, length, StandardCharsets.US_ASCII), values);
        } catch (IOException e) {
            // An array has nothing to fail reading but its JSON.
            throw new UncheckedIOException(e);
        }
    }

    /**
     * {@link AsciiJsonScanner}'s read of the ASCII line {@code bytes[offset, offset + length)}: true when it gave the
     * values {@link #read} gives, false when it leaves the line to Jackson.
     */
    boolean scan(byte[] bytes, int offset, int length, Object[] values) {
        return AsciiJsonScanner.read(root, bytes, offset, length, values);
    }

    private void read(JsonParser parser, Object[] values) throws IOException {
        Arrays.fill(values, null);
        try (JsonParser p = parser) {
            JsonToken token = p.nextToken();
            if (token != JsonToken.START_OBJECT) {
                if (token != null) {
                    // Malformed later, it is "not JSON" first, as the tree said.
                    p.skipChildren();
                    trailing(p);
                }
                throw new LineParser.Rejected("not a JSON object");
            }
            value(p, token, root, values);
            trailing(p);
        } catch (JsonProcessingException e) {
            throw new LineParser.Rejected("not JSON: " + e.getOriginalMessage());
        }
    }

    private static void trailing(JsonParser p) throws IOException {
        JsonToken token = p.nextToken();
        if (token != null) {
            throw new LineParser.Rejected("not JSON: " + TRAILING.formatted(token));
        }
    }

    /** Reads the value at {@code token} (its first), the one {@code step} names. */
    private static void value(JsonParser p, JsonToken token, Step step, Object[] values) throws IOException {
        // A key seen again replaces what its first value gave, as in the tree.
        for (int column : step.below) {
            values[column] = null;
        }
        if (token == JsonToken.START_OBJECT || token == JsonToken.START_ARRAY) {
            if (step.ends.length > 0) {
                subtree(p, step, values);
            } else if (token == JsonToken.START_OBJECT) {
                String name;
                while ((name = p.nextFieldName()) != null) {
                    JsonToken next = p.nextToken();
                    Step child = step.fields.get(name);
                    if (child == null) {
                        p.skipChildren();
                    } else {
                        value(p, next, child, values);
                    }
                }
            } else {
                int index = 0;
                JsonToken next;
                while ((next = p.nextToken()) != JsonToken.END_ARRAY && next != null) {
                    Step child = step.element(index++);
                    if (child == null) {
                        p.skipChildren();
                    } else {
                        value(p, next, child, values);
                    }
                }
            }
        } else {
            // Pointers that go on below a scalar name nothing: they stay null, as a missing node.
            for (int column : step.ends) {
                values[column] = scalar(p, token);
            }
        }
    }

    /** A column ends at this object or array: its tree, and the values of the pointers below it, from that tree. */
    private static void subtree(JsonParser p, Step step, Object[] values) throws IOException {
        JsonNode node;
        try {
            node = MAPPER.readTree(p);
        } catch (NumberFormatException e) {
            // A float beyond BigDecimal (an exponent over 2^31): the tree cannot hold it.
            throw new LineParser.Rejected("not JSON: " + e.getMessage());
        }
        for (int i = 0; i < step.below.length; i++) {
            JsonNode found = node.at(step.relative[i]);
            values[step.below[i]] = found.isMissingNode() || found.isNull() ? null
                    : found.isContainerNode() ? found
                    : found.isNumber() ? found.numberValue() : found.asText();
        }
    }

    /** The scalar at {@code token}: its tree node's {@code numberValue()} if a number, else its {@code asText()}. */
    private static Object scalar(JsonParser p, JsonToken token) throws IOException {
        return switch (token) {
            case VALUE_NULL -> null;
            case VALUE_STRING -> p.getText();
            case VALUE_TRUE -> "true";
            case VALUE_FALSE -> "false";
            // Integer, Long or BigInteger by size, as IntNode, LongNode or BigIntegerNode.
            case VALUE_NUMBER_INT -> p.getNumberValue();
            case VALUE_NUMBER_FLOAT -> decimal(p);
            default -> throw new IllegalStateException("not a scalar: " + token);
        };
    }

    /** The value of the DecimalNode the tree made of a float: zero as {@code 0}, else its trailing zeros stripped. */
    private static Object decimal(JsonParser p) throws IOException {
        BigDecimal value;
        try {
            value = p.getDecimalValue();
        } catch (NumberFormatException e) {
            // An exponent beyond BigDecimal's: the column's type judges the text (the tree failed the whole read).
            return p.getText();
        }
        if (value.signum() == 0) {
            return BigDecimal.ZERO;
        }
        try {
            value = value.stripTrailingZeros();
        } catch (ArithmeticException e) {
            // A scale that stripping would take beyond an int: databind keeps the value as it is then.
        }
        return value;
    }

    private static int[] append(int[] array, int value) {
        int[] longer = Arrays.copyOf(array, array.length + 1);
        longer[array.length] = value;
        return longer;
    }

    /** One step of the pointers: the columns that end here, those at or below it, and the steps one further. */
    static final class Step {
        private final Map<String, Step> fields = new HashMap<>();
        /** The steps of {@link #fields} whose names read as an index ({@code 0}, not {@code 00}), by that index. */
        private final Map<Integer, Step> elements = new HashMap<>();
        /** The ASCII names of {@link #fields} as bytes, and their steps: {@link #field} looks a line's name up. */
        private byte[][] asciiNames = new byte[0][];
        private Step[] asciiSteps = new Step[0];
        int[] ends = new int[0];
        int[] below = new int[0];
        /** Per {@link #below}: the rest of that column's pointer from here. */
        private JsonPointer[] relative = new JsonPointer[0];

        void below(int column, JsonPointer rest) {
            below = append(below, column);
            relative = Arrays.copyOf(relative, relative.length + 1);
            relative[relative.length - 1] = rest;
        }

        /** The step a segment names: a field of an object, and when it reads as an index, an element of an array. */
        Step child(String name, int index) {
            Step child = fields.get(name);
            if (child == null) {
                child = new Step();
                fields.put(name, child);
                if (StandardCharsets.US_ASCII.newEncoder().canEncode(name)) {
                    asciiNames = Arrays.copyOf(asciiNames, asciiNames.length + 1);
                    asciiNames[asciiNames.length - 1] = name.getBytes(StandardCharsets.US_ASCII);
                    asciiSteps = Arrays.copyOf(asciiSteps, asciiSteps.length + 1);
                    asciiSteps[asciiSteps.length - 1] = child;
                }
            }
            if (index >= 0) {
                elements.put(index, child);
            }
            return child;
        }

        boolean hasFields() {
            return !fields.isEmpty();
        }

        /**
         * The step of the field named by the ASCII bytes {@code name[from, from + length)} (without escapes), or null.
         * A few names a step: comparing bytes beats making each name a String to hash.
         */
        Step field(byte[] name, int from, int length) {
            for (int i = 0; i < asciiNames.length; i++) {
                byte[] candidate = asciiNames[i];
                if (candidate.length == length && Arrays.equals(candidate, 0, length, name, from, from + length)) {
                    return asciiSteps[i];
                }
            }
            return null;
        }

        Step element(int index) {
            return elements.isEmpty() ? null : elements.get(index);
        }
    }
}

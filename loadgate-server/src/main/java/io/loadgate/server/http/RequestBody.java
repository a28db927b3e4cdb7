package io.loadgate.server.http;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.loadgate.api.ErrorCode;
import io.loadgate.ledger.LedgerException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * Reads a JSON request body field by field and collects every problem, so that one 422 names each bad field.
 * Scalars are lenient as the contract requires, because NiFi's AttributesToJSON sends every attribute as a string:
 * an integer field takes {@code "5000"}, a boolean {@code "true"}, a decimal string a JSON number. Fields the
 * endpoint never read are unknown and rejected.
 */
final class RequestBody {
    private static final Pattern INTEGER = Pattern.compile("-?[0-9]{1,19}");
    private static final Pattern DECIMAL = Pattern.compile("-?[0-9]{1,38}");
    static final int MAX_MESSAGE = 2000;
    static final int MAX_CODE = 100;
    // "...: enable `JsonReadFeature.ALLOW_X` to allow", "(... from `StreamReadConstraints.getMaxY()`)" and the like
    private static final Pattern JACKSON_HINT = Pattern.compile(
            "\\s*[:;,]?\\s*\\(?\\s*(?:enable|use|from|as per|not allowed as per)\\b[^`]*`[^`]*`[^)]*\\)?(?:\\s*to allow)?");
    // "(not recognized as one since Feature 'ALLOW_COMMENTS' not enabled for parser)"
    private static final Pattern JACKSON_FEATURE = Pattern.compile("\\s*\\([^()]*Feature[^()]*\\)");

    private final ObjectNode node;
    private final String prefix;
    private final List<Map<String, String>> errors;
    private final Set<String> read = new HashSet<>();

    private RequestBody(ObjectNode node, String prefix, List<Map<String, String>> errors) {
        this.node = node;
        this.prefix = prefix;
        this.errors = errors;
    }

    static RequestBody parse(String text) {
        JsonNode tree;
        if (text == null || text.isBlank()) {
            throw invalid(List.of(error("$", "a JSON object body is required")));
        }
        try (JsonParser parser = Json.MAPPER.createParser(text)) {
            tree = Json.MAPPER.readTree(parser);
            if (!nothingFollows(parser)) {
                throw invalid(List.of(error("$", "text follows the JSON document at line "
                        + parser.currentLocation().getLineNr() + ", column " + parser.currentLocation().getColumnNr()
                        + "; the body must be one JSON object")));
            }
        } catch (JsonProcessingException e) {
            throw invalid(List.of(error("$", malformed(e))));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (tree == null || !tree.isObject()) {
            throw invalid(List.of(error("$", "the body must be a JSON object")));
        }
        List<Map<String, String>> unstorable = new ArrayList<>();
        checkText(tree, "", unstorable);
        if (!unstorable.isEmpty()) {
            throw invalid(unstorable);
        }
        return new RequestBody((ObjectNode) tree, "", new ArrayList<>());
    }

    /** {@link #parse}, where no body or a blank one is an empty object: for endpoints whose fields are all optional. */
    static RequestBody parseOptional(String text) {
        return parse(text == null || text.isBlank() ? "{}" : text);
    }

    /**
     * Refuses a body that is not UTF-8. The HTTP layer would decode it anyway, turning each bad byte into U+FFFD,
     * and the ledger would store text the client never sent.
     */
    static void requireUtf8(byte[] body) {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer bytes = ByteBuffer.wrap(body);
        // Decoded a piece at a time into one small buffer: a body may be 32 MiB.
        CharBuffer piece = CharBuffer.allocate(8192);
        CoderResult result;
        while ((result = decoder.decode(bytes, piece, true)).isOverflow()) {
            piece.clear();
        }
        if (result.isError()) {
            throw invalid(List.of(error("$", "the body is not valid UTF-8 (byte " + bytes.position()
                    + "); JSON must be sent as UTF-8")));
        }
    }

    private static boolean nothingFollows(JsonParser parser) throws IOException {
        try {
            return parser.nextToken() == null;
        } catch (JsonProcessingException e) {
            return false;
        }
    }

    /**
     * PostgreSQL cannot store U+0000 in text or jsonb and UTF-8 cannot encode half a surrogate pair: such a
     * string, in any field at any depth, would fail as a 500 after the request was accepted, and a client that
     * retries 5xx (NiFi, the dispatcher) would send it for ever. Checking the whole tree here covers every field
     * of every endpoint.
     */
    private static void checkText(JsonNode node, String path, List<Map<String, String>> errors) {
        if (node.isTextual()) {
            String problem = unstorable(node.textValue());
            if (problem != null) {
                errors.add(error(path, "must not contain " + problem));
            }
        } else if (node.isObject()) {
            node.fields().forEachRemaining(field -> {
                String name = (path.isEmpty() ? "" : path + ".") + field.getKey();
                String problem = unstorable(field.getKey());
                if (problem != null) {
                    errors.add(error(path.isEmpty() ? "$" : path, "a field name must not contain " + problem));
                } else {
                    checkText(field.getValue(), name, errors);
                }
            });
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                checkText(node.get(i), path + "[" + i + "]", errors);
            }
        }
    }

    private static String unstorable(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\0') {
                return "the NUL character (\\u0000)";
            }
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return "an unpaired surrogate (\\u" + Integer.toHexString(c) + ")";
            }
        }
        return null;
    }

    /**
     * Says what is wrong with the JSON in the contract's words: Jackson's own messages name its configuration
     * ({@code JsonReadFeature}, {@code StreamReadConstraints}), which means nothing to a client.
     */
    private static String malformed(JsonProcessingException e) {
        var location = e.getLocation();
        String where = location == null ? "" : " at line " + location.getLineNr() + ", column " + location.getColumnNr();
        String what;
        if (e instanceof StreamConstraintsException) {
            what = "the document is nested too deeply, or a number, string or name in it is too long";
        } else if (e instanceof JsonEOFException) {
            what = "the document ends before it is complete";
        } else {
            what = JACKSON_HINT.matcher(e.getOriginalMessage()).replaceAll("");
            what = JACKSON_FEATURE.matcher(what).replaceAll("");
            int tail = what.indexOf('`');
            what = tail < 0 ? what : what.substring(0, tail);
            what = what.strip().replaceAll("[:;,(]+$", "").strip();
        }
        return "malformed JSON" + where + ": " + what;
    }


    /** Throws 422 REQUEST_INVALID naming every bad and unknown field, if there is any. */
    void finish() {
        checkUnknown();
        if (!errors.isEmpty()) {
            throw invalid(errors);
        }
    }

    private void checkUnknown() {
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!read.contains(name)) {
                errors.add(error(prefix + name, "unknown field"));
            }
        }
    }

    private static LedgerException.Invalid invalid(List<Map<String, String>> errors) {
        StringBuilder message = new StringBuilder("invalid request:");
        for (int i = 0; i < Math.min(3, errors.size()); i++) {
            message.append(i == 0 ? " " : "; ").append(errors.get(i).get("field")).append(' ')
                    .append(errors.get(i).get("message"));
        }
        if (errors.size() > 3) {
            message.append("; and ").append(errors.size() - 3).append(" more");
        }
        return new LedgerException.Invalid(ErrorCode.REQUEST_INVALID,
                message.toString(), Map.of("errors", List.copyOf(errors)));
    }

    static Map<String, String> error(String field, String message) {
        Map<String, String> e = new LinkedHashMap<>();
        e.put("field", field);
        e.put("message", message);
        return e;
    }

    private void fail(String field, String message) {
        errors.add(error(prefix + field, message));
    }

    private JsonNode value(String field, boolean required) {
        read.add(field);
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            if (required) {
                fail(field, "is required");
            }
            return null;
        }
        return value;
    }

    /** {@link #value(String, boolean)}, and null with {@code mustBe} recorded when {@code kind} does not hold. */
    private JsonNode value(String field, boolean required, Predicate<JsonNode> kind, String mustBe) {
        JsonNode value = value(field, required);
        if (value != null && !kind.test(value)) {
            fail(field, mustBe);
            return null;
        }
        return value;
    }

    String string(String field, boolean required, int maxLength, Pattern format) {
        JsonNode value = value(field, required, JsonNode::isTextual, "must be a string");
        if (value == null) {
            return null;
        }
        String text = value.asText();
        if (text.length() > maxLength) {
            fail(field, "must be at most " + maxLength + " characters");
            return null;
        }
        if (format != null && !format.matcher(text).matches()) {
            fail(field, "must match " + format.pattern());
            return null;
        }
        return text;
    }

    String string(String field, boolean required, int maxLength) {
        return string(field, required, maxLength, null);
    }

    Long integer(String field, boolean required, long min, long max) {
        JsonNode value = value(field, required);
        if (value == null) {
            return null;
        }
        long number;
        if (value.isIntegralNumber() && value.canConvertToLong()) {
            number = value.asLong();
        } else if (value.isTextual() && INTEGER.matcher(value.asText()).matches()) {
            try {
                number = Long.parseLong(value.asText());
            } catch (NumberFormatException e) {
                fail(field, "is out of range");
                return null;
            }
        } else {
            fail(field, "must be an integer");
            return null;
        }
        if (number < min || number > max) {
            fail(field, "must be between " + min + " and " + max);
            return null;
        }
        return number;
    }

    Integer int32(String field, boolean required, int min, int max) {
        Long value = integer(field, required, min, max);
        return value == null ? null : value.intValue();
    }

    Boolean bool(String field, boolean required) {
        JsonNode value = value(field, required);
        if (value == null) {
            return null;
        }
        if (value.isBoolean()) {
            return value.asBoolean();
        }
        if (value.isTextual() && (value.asText().equals("true") || value.asText().equals("false"))) {
            return Boolean.parseBoolean(value.asText());
        }
        fail(field, "must be a boolean");
        return null;
    }

    boolean bool(String field, boolean required, boolean defaultValue) {
        Boolean value = bool(field, required);
        return value == null ? defaultValue : value;
    }

    /** A decimal string {@code ^-?[0-9]{1,38}$}; a JSON integer is accepted too. */
    BigInteger decimal(String field, boolean required) {
        JsonNode value = value(field, required);
        if (value == null) {
            return null;
        }
        String text;
        if (value.isIntegralNumber()) {
            text = value.bigIntegerValue().toString();
        } else if (value.isTextual()) {
            text = value.asText();
        } else {
            fail(field, "must be a decimal string");
            return null;
        }
        if (!DECIMAL.matcher(text).matches()) {
            fail(field, "must match ^-?[0-9]{1,38}$");
            return null;
        }
        return new BigInteger(text);
    }

    /** A value kept as an exact decimal string: metric values, tolerances. */
    String decimalText(String field, boolean required, int maxLength) {
        JsonNode value = value(field, required);
        if (value == null) {
            return null;
        }
        if (value.isNumber()) {
            return value.decimalValue().toPlainString();
        }
        if (!value.isTextual()) {
            fail(field, "must be a string or a number");
            return null;
        }
        if (value.asText().length() > maxLength) {
            fail(field, "must be at most " + maxLength + " characters");
            return null;
        }
        return value.asText();
    }

    UUID uuid(String field, boolean required) {
        JsonNode value = value(field, required);
        if (value == null) {
            return null;
        }
        if (value.isTextual()) {
            try {
                UUID id = UUID.fromString(value.asText());
                if (id.toString().equalsIgnoreCase(value.asText())) {
                    return id;
                }
            } catch (IllegalArgumentException e) {
                // reported below
            }
        }
        fail(field, "must be a UUID");
        return null;
    }

    <E extends Enum<E>> E enumValue(String field, boolean required, Class<E> type) {
        JsonNode value = value(field, required);
        if (value == null) {
            return null;
        }
        if (value.isTextual()) {
            for (E constant : type.getEnumConstants()) {
                if (constant.name().equals(value.asText())) {
                    return constant;
                }
            }
        }
        List<String> names = new ArrayList<>();
        for (E constant : type.getEnumConstants()) {
            names.add(constant.name());
        }
        fail(field, "must be one of " + names);
        return null;
    }

    /** An array of enum names, each checked; duplicates are allowed and kept once. */
    <E extends Enum<E>> java.util.EnumSet<E> enumSet(String field, boolean required, Class<E> type, int maxSize) {
        JsonNode value = value(field, required, v -> v.isArray() && v.size() <= maxSize,
                "must be an array of at most " + maxSize + " names");
        if (value == null) {
            return null;
        }
        java.util.EnumSet<E> set = java.util.EnumSet.noneOf(type);
        for (int i = 0; i < value.size(); i++) {
            JsonNode item = value.get(i);
            E match = null;
            for (E constant : type.getEnumConstants()) {
                if (item.isTextual() && constant.name().equals(item.asText())) {
                    match = constant;
                }
            }
            if (match == null) {
                fail(field + "[" + i + "]", "must be one of " + java.util.Arrays.toString(type.getEnumConstants()));
            } else {
                set.add(match);
            }
        }
        return set;
    }

    /** A JSON object, returned as a plain map (values kept as JSON types). */
    Map<String, Object> object(String field, boolean required) {
        JsonNode value = value(field, required, JsonNode::isObject, "must be an object");
        if (value == null) {
            return null;
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> map = Json.MAPPER.convertValue(value, Map.class);
        return map;
    }

    /** An object whose values are strings (a JSON number is taken as its exact decimal text). */
    Map<String, String> stringMap(String field, boolean required, Pattern keyFormat, int maxValueLength) {
        JsonNode value = value(field, required, JsonNode::isObject, "must be an object");
        if (value == null) {
            return null;
        }
        Map<String, String> map = new LinkedHashMap<>();
        value.fields().forEachRemaining(entry -> {
            JsonNode v = entry.getValue();
            if (!keyFormat.matcher(entry.getKey()).matches()) {
                fail(field + "." + entry.getKey(), "name must match " + keyFormat.pattern());
            } else if (v.isTextual() && v.asText().length() <= maxValueLength) {
                map.put(entry.getKey(), v.asText());
            } else if (v.isNumber()) {
                map.put(entry.getKey(), v.decimalValue().toPlainString());
            } else {
                fail(field + "." + entry.getKey(), "must be a string of at most " + maxValueLength + " characters");
            }
        });
        return map;
    }

    /** An array of objects, each read by its own {@link RequestBody} whose errors join this one's. */
    List<RequestBody> objects(String field, boolean required, int minSize, int maxSize) {
        JsonNode value = value(field, required, JsonNode::isArray, "must be an array");
        if (value == null) {
            return null;
        }
        if (value.size() < minSize || value.size() > maxSize) {
            fail(field, "must hold " + minSize + " to " + maxSize + " items");
            return null;
        }
        List<RequestBody> items = new ArrayList<>();
        for (int i = 0; i < value.size(); i++) {
            JsonNode item = value.get(i);
            if (!item.isObject()) {
                fail(field + "[" + i + "]", "must be an object");
                continue;
            }
            items.add(new RequestBody((ObjectNode) item, prefix + field + "[" + i + "].", errors));
        }
        return items;
    }

    /** An object field read by its own {@link RequestBody} (its errors join this one's), or null when absent or null. */
    RequestBody nested(String field) {
        JsonNode value = value(field, false, JsonNode::isObject, "must be an object");
        return value == null ? null : new RequestBody((ObjectNode) value, prefix + field + ".", errors);
    }

    /** Whether the body holds {@code field}, null or not. */
    boolean present(String field) {
        return node.has(field);
    }

    /** Ends reading an item of {@link #objects} or {@link #nested}: its unknown fields join the common errors. */
    void finishItem() {
        checkUnknown();
    }

    /** Records a rule of the endpoint's own that a field breaks. */
    void check(String field, boolean ok, String message) {
        if (!ok) {
            fail(field, message);
        }
    }

    boolean hasErrors() {
        return !errors.isEmpty();
    }
}

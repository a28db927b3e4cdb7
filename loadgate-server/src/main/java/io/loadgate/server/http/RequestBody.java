package io.loadgate.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.loadgate.ledger.LedgerException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
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
        try {
            tree = text == null || text.isBlank() ? null : Json.MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            throw invalid(List.of(error("$", "malformed JSON: " + e.getOriginalMessage())));
        }
        if (tree == null) {
            throw invalid(List.of(error("$", "a JSON object body is required")));
        }
        if (!tree.isObject()) {
            throw invalid(List.of(error("$", "the body must be a JSON object")));
        }
        return new RequestBody((ObjectNode) tree, "", new ArrayList<>());
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
        return new LedgerException.Invalid("REQUEST_INVALID", message.toString(), Map.of("errors", List.copyOf(errors)));
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

    String string(String field, boolean required, int maxLength, Pattern format) {
        JsonNode value = value(field, required);
        if (value == null) {
            return null;
        }
        if (!value.isTextual()) {
            fail(field, "must be a string");
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
        JsonNode value = value(field, required);
        if (value == null) {
            return null;
        }
        if (!value.isArray() || value.size() > maxSize) {
            fail(field, "must be an array of at most " + maxSize + " names");
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
        JsonNode value = value(field, required);
        if (value == null) {
            return null;
        }
        if (!value.isObject()) {
            fail(field, "must be an object");
            return null;
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> map = Json.MAPPER.convertValue(value, Map.class);
        return map;
    }

    /** An object whose values are strings (a JSON number is taken as its exact decimal text). */
    Map<String, String> stringMap(String field, boolean required, Pattern keyFormat, int maxValueLength) {
        JsonNode value = value(field, required);
        if (value == null) {
            return null;
        }
        if (!value.isObject()) {
            fail(field, "must be an object");
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
        JsonNode value = value(field, required);
        if (value == null) {
            return null;
        }
        if (!value.isArray()) {
            fail(field, "must be an array");
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

    /** Ends reading an item of {@link #objects}: its unknown fields join the common errors. */
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

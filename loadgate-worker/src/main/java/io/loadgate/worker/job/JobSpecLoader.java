package io.loadgate.worker.job;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Reads a job spec from YAML. Strict on purpose: an unknown key, a value of the wrong type (a quoted number, a
 * scalar where a list belongs) or a duplicate key fails with one line {@code file:line:column: key: reason},
 * because a typo silently ignored would load the wrong data.
 */
public final class JobSpecLoader {
    private static final ObjectMapper MAPPER = strictMapper();

    private JobSpecLoader() {
    }

    public static JobSpec load(Path file) {
        try {
            return parse(file, Files.readString(file, StandardCharsets.UTF_8));
        } catch (NoSuchFileException e) {
            throw new JobSpecException(file + ": no such file", e);
        } catch (IOException e) {
            throw new JobSpecException(file + ": cannot read: " + e.getMessage(), e);
        }
    }

    /**
     * Reads a job spec from its YAML text; {@code origin} names it in messages (a file, or the run that carried
     * it to a worker).
     */
    public static JobSpec parse(Path origin, String yaml) {
        if (yaml.isBlank()) {
            throw new JobSpecException(origin + ": the job spec is empty");
        }
        try {
            return MAPPER.readValue(yaml, JobSpec.class);
        } catch (JsonProcessingException e) {
            throw new JobSpecException(describe(origin, yaml, e), e);
        }
    }

    private static String describe(Path file, String yaml, JsonProcessingException e) {
        // The token's own position: the parser's current location may already be past it (on the next line).
        JsonLocation location = e.getProcessor() instanceof JsonParser parser ? parser.currentTokenLocation() : e.getLocation();
        String where = location == null ? file.toString() : file + ":" + location.getLineNr() + ":" + location.getColumnNr();
        if (e instanceof UnrecognizedPropertyException unknown && location != null) {
            where = file + ":" + keyLine(yaml, unknown.getPropertyName(), location.getLineNr());
        }
        if (!(e instanceof JsonMappingException mapping)) {
            return where + ": not valid YAML: " + firstLine(e.getOriginalMessage());
        }
        String key = path(mapping);
        String reason;
        JavaType built = mapping instanceof ValueInstantiationException invalid ? invalid.getType() : null;
        Optional<String> misspelt = built == null ? Optional.empty() : unknownKey(yaml, mapping, built);
        if (misspelt.isPresent()) {
            // A typo of a required key would otherwise read as that key missing: name the typo.
            where = location == null ? where : file + ":" + keyLine(yaml, misspelt.get(), location.getLineNr());
            key = key.isEmpty() ? misspelt.get() : key + "." + misspelt.get();
            reason = "unknown key '" + misspelt.get() + "'; expected one of "
                    + String.join(", ", knownKeys(built));
        } else if (mapping instanceof UnrecognizedPropertyException unknown) {
            reason = "unknown key '" + unknown.getPropertyName() + "'; expected one of "
                    + unknown.getKnownPropertyIds().stream().map(Object::toString).sorted().collect(Collectors.joining(", "));
        } else if (mapping instanceof ValueInstantiationException invalid && invalid.getCause() != null) {
            reason = firstLine(invalid.getCause().getMessage());
        } else if (mapping instanceof InvalidFormatException format) {
            reason = "'" + format.getValue() + "' is not a valid " + simpleType(format.getTargetType());
        } else if (mapping instanceof MismatchedInputException mismatch && mismatch.getTargetType() != null) {
            reason = "wrong type, expected " + simpleType(mismatch.getTargetType());
        } else {
            reason = firstLine(mapping.getOriginalMessage());
        }
        return where + ": " + (key.isEmpty() ? "" : key + ": ") + reason;
    }

    /**
     * Jackson builds a record from its mapping before it looks at the mapping's unknown keys, so a misspelt required
     * key fails the record's own check first; the mapping that failed is looked at again for a key the record does
     * not have.
     */
    private static Optional<String> unknownKey(String yaml, JsonMappingException invalid, JavaType built) {
        JsonNode node;
        try {
            node = MAPPER.readTree(yaml);
        } catch (JsonProcessingException e) {
            return Optional.empty();
        }
        for (JsonMappingException.Reference reference : invalid.getPath()) {
            node = reference.getFieldName() != null ? node.path(reference.getFieldName()) : node.path(reference.getIndex());
        }
        List<String> known = knownKeys(built);
        Iterator<String> names = node.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (!known.contains(name)) {
                return Optional.of(name);
            }
        }
        return Optional.empty();
    }

    private static List<String> knownKeys(JavaType built) {
        return MAPPER.getDeserializationConfig().introspect(built).findProperties().stream()
                .map(BeanPropertyDefinition::getName).sorted().toList();
    }

    /**
     * Records are built only after their whole mapping is read, so Jackson reports an unknown key at the end of the
     * mapping; the key itself is the nearest line at or above that position that defines it.
     */
    private static String keyLine(String yaml, String key, int reportedLine) {
        String[] lines = yaml.split("\\R", -1);
        Pattern definition = Pattern.compile("(^|[\\s{,])" + Pattern.quote(key) + "\\s*:");
        for (int line = Math.min(reportedLine, lines.length); line >= 1; line--) {
            Matcher matcher = definition.matcher(lines[line - 1]);
            if (matcher.find()) {
                return line + ":" + (matcher.end(1) + 1);
            }
        }
        return String.valueOf(reportedLine);
    }

    private static String path(JsonMappingException e) {
        StringBuilder path = new StringBuilder();
        for (JsonMappingException.Reference reference : e.getPath()) {
            if (reference.getFieldName() != null) {
                path.append(path.length() == 0 ? "" : ".").append(reference.getFieldName());
            } else if (reference.getIndex() >= 0) {
                path.append('[').append(reference.getIndex()).append(']');
            }
        }
        return path.toString();
    }

    private static String simpleType(Class<?> type) {
        if (type == Integer.class || type == int.class) {
            return "integer";
        }
        if (type == String.class) {
            return "string";
        }
        if (java.util.List.class.isAssignableFrom(type)) {
            return "list";
        }
        if (type.isEnum()) {
            return "value, one of " + java.util.Arrays.toString(type.getEnumConstants());
        }
        if (type.isRecord()) {
            return "mapping";
        }
        return type.getSimpleName();
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "invalid";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

    private static ObjectMapper strictMapper() {
        JsonMapper mapper = JsonMapper.builder(new YAMLFactory())
                .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
                .enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_ENUMS)
                .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
                .build();
        // Jackson coerces between scalars by default ("4" to 4, 4 to "4", 1.5 to 1); a spec says what it means.
        for (LogicalType type : new LogicalType[] {LogicalType.Integer, LogicalType.Textual, LogicalType.Boolean, LogicalType.Enum}) {
            for (CoercionInputShape shape : new CoercionInputShape[] {CoercionInputShape.String, CoercionInputShape.Integer,
                    CoercionInputShape.Float, CoercionInputShape.Boolean}) {
                if (!(type == LogicalType.Textual && shape == CoercionInputShape.String)
                        && !(type == LogicalType.Enum && shape == CoercionInputShape.String)
                        && !(type == LogicalType.Integer && shape == CoercionInputShape.Integer)
                        && !(type == LogicalType.Boolean && shape == CoercionInputShape.Boolean)) {
                    mapper.coercionConfigFor(type).setCoercion(shape, CoercionAction.Fail);
                }
            }
        }
        return mapper;
    }
}

package io.loadgate.server.config;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The raw settings of one start-up: the YAML file flattened to dotted keys, overlaid with {@code LOADGATE_*}
 * variables, each value remembering where it came from so that every error can point there. Typed reads
 * convert without ever adjusting a value; a value that does not convert is a {@link ConfigException}.
 */
final class Settings {
    static final String ENV_PREFIX = "LOADGATE_";
    private static final String ENV_SEPARATOR = "__";
    private static final Set<String> SECTIONS = Set.of(
            "server", "server.tls", "database", "auth", "auth.token_digests", "recovery", "dispatch", "cleanup",
            "monitor");
    private static final Set<String> LEAVES = Set.of(
            "server.host", "server.port", "server.tls.keystore", "server.tls.password",
            "database.url", "database.user", "database.password", "database.pool_size", "database.embedded_port",
            "auth.token_digests.worker", "auth.token_digests.nifi", "auth.token_digests.operator",
            "auth.token_digests.viewer", "auth.allowed_roots",
            "recovery.mode", "recovery.max_attempts", "recovery.stale", "recovery.run_timeout", "recovery.manifest_timeout",
            "recovery.extract_query_timeout", "recovery.validation_stale", "recovery.publish_stale",
            "recovery.sweeper_interval", "recovery.heartbeat_interval",
            "dispatch.receiver_url", "dispatch.max_attempts", "dispatch.backoff_min", "dispatch.backoff_max",
            "dispatch.ack_timeout", "dispatch.lease", "dispatch.poll_interval", "dispatch.batch",
            "cleanup.success_retention", "cleanup.failed_retention", "cleanup.max_batch", "cleanup.snapshot_retention",
            "cleanup.snapshots_kept",
            "monitor.stuck_after", "monitor.freshness");
    // Values of these keys never appear in messages, not even when they have the wrong type.
    private static final Set<String> SECRETS = Set.of("database.password", "server.tls.password");
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)}");
    private static final Pattern WHOLE_NUMBER = Pattern.compile("-?\\d{1,10}");

    private final Map<String, Setting> values = new LinkedHashMap<>();
    private final Set<String> read = new HashSet<>();
    private final Map<String, String> env;
    private final Optional<String> fileOrigin;

    private Settings(Optional<Path> file, Map<String, String> env) {
        this.env = env;
        this.fileOrigin = file.map(f -> "in " + f);
    }

    /** Reads {@code file} (when given), then applies the overrides in {@code env}; unknown keys fail here. */
    static Settings read(Optional<Path> file, Map<String, String> env) {
        requireNonNull(file, "file is null");
        requireNonNull(env, "env is null");
        Settings settings = new Settings(file, env);
        file.ifPresent(f -> settings.addYaml(readYaml(f), "in " + f));
        settings.addEnvironment();
        return settings;
    }

    Optional<String> string(String key) {
        return setting(key).map(s -> {
            if (!s.value().isTextual()) {
                // YAML turns an unquoted 0123 into 123; accepting numbers as text would change the value.
                throw wrongType(s, "a string (quote it)");
            }
            return text(s);
        });
    }

    int integer(String key, int defaultValue) {
        return setting(key).map(s -> {
            JsonNode node = s.value();
            if (node.isIntegralNumber() && node.canConvertToInt()) {
                return node.intValue();
            }
            if (node.isTextual()) {
                String text = text(s);
                if (WHOLE_NUMBER.matcher(text).matches()) {
                    try {
                        return Integer.parseInt(text);
                    } catch (NumberFormatException e) {
                        throw wrongType(s, "a whole number");
                    }
                }
            }
            throw wrongType(s, "a whole number");
        }).orElse(defaultValue);
    }

    Duration duration(String key, Duration defaultValue) {
        return setting(key).map(s -> {
            if (!s.value().isTextual()) {
                throw wrongType(s, "a duration such as 90m (a number needs a unit)");
            }
            try {
                return Durations.parse(text(s));
            } catch (IllegalArgumentException e) {
                throw error(s, key + ": " + e.getMessage());
            }
        }).orElse(defaultValue);
    }

    <E extends Enum<E>> E enumValue(String key, Class<E> type, E defaultValue) {
        return string(key).map(text -> {
            try {
                return Enum.valueOf(type, text);
            } catch (IllegalArgumentException e) {
                String allowed = Arrays.stream(type.getEnumConstants()).map(Enum::name)
                        .collect(Collectors.joining(", "));
                throw error(values.get(key), key + " must be one of " + allowed + ", got '" + text + "'");
            }
        }).orElse(defaultValue);
    }

    Optional<URI> uri(String key) {
        return string(key).map(text -> {
            try {
                return new URI(text);
            } catch (URISyntaxException e) {
                throw error(values.get(key), key + " is not a valid URI: " + e.getMessage());
            }
        });
    }

    Optional<Path> path(String key) {
        return string(key).map(text -> {
            try {
                return Path.of(text);
            } catch (InvalidPathException e) {
                throw error(values.get(key), key + " is not a valid path: " + e.getMessage());
            }
        });
    }

    /** A YAML list of strings, or a comma-separated environment variable (an empty variable is an empty list). */
    Optional<List<String>> list(String key) {
        return setting(key).map(s -> {
            if (s.fromEnvironment()) {
                String text = s.value().textValue();
                if (text.isBlank()) {
                    return List.of();
                }
                List<String> items = Arrays.stream(text.split(",", -1)).map(String::trim).toList();
                if (items.contains("")) {
                    throw error(s, key + " has an empty entry in '" + text + "'");
                }
                return items;
            }
            if (!s.value().isArray()) {
                throw wrongType(s, "a list such as [\"a\", \"b\"]");
            }
            List<String> items = new ArrayList<>();
            for (JsonNode item : s.value()) {
                if (!item.isTextual()) {
                    throw wrongType(s, "a list of strings");
                }
                items.add(substitute(s, item.textValue()));
            }
            return List.copyOf(items);
        });
    }

    /** Runs {@code construction} and points any {@link ConfigException} it throws at where its key was set. */
    <T> T located(Supplier<T> construction) {
        try {
            return construction.get();
        } catch (ConfigException e) {
            throw locate(e);
        }
    }

    ConfigException locate(ConfigException e) {
        Optional<String> origin = e.key().map(values::get).map(Setting::origin).or(() -> fileOrigin);
        return origin.map(e::from).orElse(e);
    }

    /** Guards against a key that is accepted (so never reported unknown) but that no code reads. */
    void requireAllRead() {
        Set<String> unread = new HashSet<>(values.keySet());
        unread.removeAll(read);
        if (!unread.isEmpty()) {
            throw new IllegalStateException("config keys accepted but never read: " + unread);
        }
    }

    private Optional<Setting> setting(String key) {
        if (!LEAVES.contains(key)) {
            throw new IllegalArgumentException("not a config key: " + key);
        }
        read.add(key);
        return Optional.ofNullable(values.get(key));
    }

    private static JsonNode readYaml(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new ConfigException("config file " + file + " does not exist or is not a regular file");
        }
        // Without duplicate detection the second `stale:` would silently win.
        YAMLMapper mapper = YAMLMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();
        try (JsonParser parser = mapper.createParser(file.toFile())) {
            JsonNode root = mapper.readTree(parser);
            // readTree stops after the first document; settings after a `---` would be ignored silently.
            if (parser.nextToken() != null) {
                throw new ConfigException("the config file holds more than one YAML document (in " + file + ")");
            }
            return root;
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr();
            throw new ConfigException("cannot parse " + file + where + ": " + firstLine(e.getOriginalMessage()));
        } catch (IOException e) {
            throw new ConfigException("cannot read " + file + ": " + firstLine(e.getMessage()));
        }
    }

    private void addYaml(JsonNode root, String origin) {
        if (root == null || root.isMissingNode() || root.isNull()) {
            return;
        }
        if (!root.isObject()) {
            throw new ConfigException("the config file must be a mapping of sections (" + origin + ")");
        }
        addYaml("", root, origin);
    }

    private void addYaml(String path, JsonNode mapping, String origin) {
        mapping.properties().forEach(field -> {
            String key = path.isEmpty() ? field.getKey() : path + "." + field.getKey();
            JsonNode value = field.getValue();
            if (SECTIONS.contains(key)) {
                // `recovery:` with every entry commented out is an empty section, not an error.
                if (value.isNull()) {
                    return;
                }
                if (!value.isObject()) {
                    throw new ConfigException(key, key + " must be a mapping of keys, got " + kind(key, value)
                            + " (" + origin + ")");
                }
                addYaml(key, value, origin);
            } else if (LEAVES.contains(key)) {
                values.put(key, new Setting(key, value, origin, false));
            } else {
                throw unknown(key, origin);
            }
        });
    }

    private void addEnvironment() {
        // Sorted so that, with several bad variables, the same one is reported every time.
        new TreeMap<>(env).forEach((name, value) -> {
            // Only names with `__` are overrides: LOADGATE_HOME and variables such as LOADGATE_DB_PASSWORD,
            // which a file refers to as ${LOADGATE_DB_PASSWORD}, are not config keys.
            if (!name.startsWith(ENV_PREFIX) || !name.contains(ENV_SEPARATOR)) {
                return;
            }
            String key = Arrays.stream(name.substring(ENV_PREFIX.length()).split(ENV_SEPARATOR, -1))
                    .map(part -> part.toLowerCase(Locale.ROOT))
                    .collect(Collectors.joining("."));
            String origin = "from environment " + name;
            if (!LEAVES.contains(key)) {
                throw unknown(key, origin);
            }
            values.put(key, new Setting(key, TextNode.valueOf(value), origin, true));
        });
    }

    private static ConfigException unknown(String key, String origin) {
        if (key.startsWith("auth.token_digests.")) {
            return new ConfigException(key, "unknown role " + key + ", roles are worker, nifi, operator, viewer ("
                    + origin + ")");
        }
        int dot = key.lastIndexOf('.');
        String parent = dot < 0 ? "" : key.substring(0, dot);
        String known = Stream.concat(SECTIONS.stream(), LEAVES.stream())
                .filter(k -> parent.isEmpty() ? !k.contains(".") : k.startsWith(parent + ".")
                        && k.indexOf('.', parent.length() + 1) < 0)
                .map(k -> k.substring(k.lastIndexOf('.') + 1))
                .sorted()
                .collect(Collectors.joining(", "));
        String scope = known.isEmpty() ? "" : "; known keys" + (parent.isEmpty() ? "" : " of " + parent) + ": " + known;
        return new ConfigException(key, "unknown config key " + key + scope + " (" + origin + ")");
    }

    /** The text of a string value; file values have their {@code ${VAR}} references substituted. */
    private String text(Setting s) {
        String text = s.value().textValue();
        return s.fromEnvironment() ? text : substitute(s, text);
    }

    private String substitute(Setting s, String text) {
        Matcher m = PLACEHOLDER.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1);
            String value = env.get(name);
            if (value == null) {
                throw error(s, s.key() + " refers to ${" + name + "}, which is not set in the environment");
            }
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        m.appendTail(out);
        // Anything still looking like a reference (`${1X}`, `${X`) would otherwise end up as literal text.
        if (PLACEHOLDER.matcher(text).replaceAll("").contains("${")) {
            throw error(s, s.key() + " has a malformed ${...} reference; names are letters, digits and _");
        }
        return out.toString();
    }

    private ConfigException wrongType(Setting s, String expected) {
        return error(s, s.key() + ": expected " + expected + ", got " + kind(s.key(), s.value()));
    }

    private static ConfigException error(Setting s, String message) {
        return new ConfigException(s.key(), message + " (" + s.origin() + ")");
    }

    private static String kind(String key, JsonNode node) {
        if (node.isNull()) {
            return "an empty value";
        }
        if (node.isArray()) {
            return "a list";
        }
        if (node.isObject()) {
            return "a mapping";
        }
        if (SECRETS.contains(key)) {
            return "a " + node.getNodeType().name().toLowerCase(Locale.ROOT);
        }
        return node.isTextual() ? "'" + node.textValue() + "'" : node.asText();
    }

    private static String firstLine(String message) {
        return message == null ? "" : message.lines().findFirst().orElse("").trim();
    }

    private record Setting(String key, JsonNode value, String origin, boolean fromEnvironment) {
    }
}

package io.loadgate.server.config;

import static java.util.Objects.requireNonNull;

import java.util.Optional;

/**
 * The configuration cannot be used; start-up must stop. The message is one line that names the key at fault
 * (and, once the loader has seen it, the file or environment variable it came from), so an operator can fix it
 * without reading a stack trace.
 */
public final class ConfigException extends RuntimeException {
    private final String key;

    /** A problem with the file as a whole (missing, not YAML, not a mapping). */
    public ConfigException(String message) {
        super(requireNonNull(message, "message is null"));
        this.key = null;
    }

    /** A problem with one key; {@code message} names the key. */
    public ConfigException(String key, String message) {
        super(requireNonNull(message, "message is null"));
        this.key = requireNonNull(key, "key is null");
    }

    /** The dotted key at fault, such as {@code recovery.stale}; empty when the file as a whole is at fault. */
    public Optional<String> key() {
        return Optional.ofNullable(key);
    }

    /** The same problem with where the value came from appended, e.g. {@code (in /etc/loadgate.yaml)}. */
    ConfigException from(String origin) {
        String message = getMessage() + " (" + origin + ")";
        return key == null ? new ConfigException(message) : new ConfigException(key, message);
    }
}

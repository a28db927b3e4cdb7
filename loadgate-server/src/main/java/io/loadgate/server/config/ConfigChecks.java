package io.loadgate.server.config;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/** The range rules the config records share; each failure names the key, and none adjusts a value. */
final class ConfigChecks {
    private ConfigChecks() {
    }

    static int positive(int value, String key) {
        if (value <= 0) {
            throw new ConfigException(key, key + " must be at least 1, got " + value);
        }
        return value;
    }

    static Duration positive(Duration value, String key) {
        requireNonNull(value, key + " is null");
        if (value.isNegative() || value.isZero()) {
            throw new ConfigException(key, key + " must be a positive duration, got " + Durations.format(value));
        }
        return value;
    }

    static String nonBlank(String value, String key) {
        requireNonNull(value, key + " is null");
        if (value.isBlank()) {
            throw new ConfigException(key, key + " must not be blank");
        }
        return value;
    }
}

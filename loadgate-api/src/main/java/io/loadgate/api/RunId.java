package io.loadgate.api;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.io.Serializable;
import java.util.UUID;

/**
 * A run's id: a UUID, written as its plain string; its 32 hex digits name the run's stage table. Serializable, as the
 * other ids are: Spark's tasks carry them to executors.
 */
public record RunId(UUID value) implements Serializable {
    public RunId {
        requireNonNull(value, "runId is null");
    }

    /** @throws IllegalArgumentException for text that is not a UUID */
    @JsonCreator
    public static RunId of(String text) {
        requireNonNull(text, "runId is null");
        try {
            return new RunId(UUID.fromString(text));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("runId is not a UUID: " + text, e);
        }
    }

    /** The suffix of the run's stage table: the UUID's 32 lowercase hex digits. */
    public String hex() {
        return value.toString().replace("-", "");
    }

    @JsonValue
    @Override
    public String toString() {
        return value.toString();
    }
}

package io.loadgate.api;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.io.Serializable;
import java.util.regex.Pattern;

/** A job's key, {@code ^[A-Z0-9_]{1,200}$}; written as the plain string. */
public record JobKey(String value) implements Serializable {
    public static final Pattern PATTERN = Pattern.compile("[A-Z0-9_]{1,200}");

    public JobKey {
        Ids.check("jobKey", value, PATTERN);
    }

    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    public static JobKey of(String value) {
        return new JobKey(value);
    }

    @JsonValue
    @Override
    public String toString() {
        return value;
    }
}

package io.loadgate.api;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.io.Serializable;
import java.util.regex.Pattern;

/** A business key (one load of a job: a day, a month), {@code ^[0-9A-Za-z_.:\-]{1,200}$}; written as the
 * plain string.
 */
public record BusinessKey(String value) implements Serializable {
    public static final Pattern PATTERN = Pattern.compile("[0-9A-Za-z_.:\\-]{1,200}");

    public BusinessKey {
        Ids.check("businessKey", value, PATTERN);
    }

    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    public static BusinessKey of(String value) {
        return new BusinessKey(value);
    }

    @JsonValue
    @Override
    public String toString() {
        return value;
    }
}

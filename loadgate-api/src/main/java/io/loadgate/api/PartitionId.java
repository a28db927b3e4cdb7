package io.loadgate.api;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.io.Serializable;
import java.util.regex.Pattern;

/** A manifest partition's id: four digits, or {@code NULL} for the partition of null split values; a plain string. */
public record PartitionId(String value) implements Serializable {
    public static final Pattern PATTERN = Pattern.compile("[0-9]{4}|NULL");

    public PartitionId {
        Ids.check("partitionId", value, PATTERN);
    }

    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    public static PartitionId of(String value) {
        return new PartitionId(value);
    }

    @JsonValue
    @Override
    public String toString() {
        return value;
    }
}

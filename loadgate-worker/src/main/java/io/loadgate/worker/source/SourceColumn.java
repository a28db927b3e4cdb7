package io.loadgate.worker.source;

import static java.util.Objects.requireNonNull;

/** One column as the source reports it; precision and scale matter only for {@link ColumnType#DECIMAL}. */
public record SourceColumn(String name, ColumnType type, int precision, int scale) {
    public SourceColumn {
        requireNonNull(name, "name is null");
        requireNonNull(type, "type is null");
    }

    public static SourceColumn of(String name, ColumnType type) {
        return new SourceColumn(name, type, 0, 0);
    }

    /** True for columns a range partition can split: integers, and decimals without a fraction. */
    public boolean isSplittable() {
        return type.isInteger() || (type == ColumnType.DECIMAL && scale == 0);
    }
}

package io.loadgate.worker.source;

/**
 * The column types Loadgate can move without loss. A reader yields each as the Java class Iceberg's generic
 * records use for it, so values pass from source to Parquet unconverted: INT {@code Integer}, LONG {@code Long},
 * DECIMAL {@code BigDecimal} (at the column's scale), FLOAT {@code Float}, DOUBLE {@code Double}, STRING
 * {@code String}, BOOLEAN {@code Boolean}, DATE {@code LocalDate}, TIMESTAMP {@code LocalDateTime}, TIMESTAMPTZ
 * {@code OffsetDateTime} (UTC), BINARY {@code ByteBuffer}.
 */
public enum ColumnType {
    INT,
    LONG,
    DECIMAL,
    FLOAT,
    DOUBLE,
    STRING,
    BOOLEAN,
    DATE,
    TIMESTAMP,
    TIMESTAMPTZ,
    BINARY;

    /** True for the types a partition can be split on: whole numbers only, so bounds are exact. */
    public boolean isInteger() {
        return this == INT || this == LONG;
    }
}

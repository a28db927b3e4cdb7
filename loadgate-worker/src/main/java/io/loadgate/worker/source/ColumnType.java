package io.loadgate.worker.source;

/**
 * The column types Loadgate can move without loss. Each names the Java class a reader yields for it, which is
 * also the class Iceberg's generic records use, so values pass from source to Parquet unconverted.
 */
public enum ColumnType {
    INT(Integer.class),
    LONG(Long.class),
    DECIMAL(java.math.BigDecimal.class),
    FLOAT(Float.class),
    DOUBLE(Double.class),
    STRING(String.class),
    BOOLEAN(Boolean.class),
    DATE(java.time.LocalDate.class),
    TIMESTAMP(java.time.LocalDateTime.class),
    TIMESTAMPTZ(java.time.OffsetDateTime.class),
    BINARY(java.nio.ByteBuffer.class);

    private final Class<?> javaClass;

    ColumnType(Class<?> javaClass) {
        this.javaClass = javaClass;
    }

    public Class<?> javaClass() {
        return javaClass;
    }

    /** True for the types a partition can be split on: whole numbers only, so bounds are exact. */
    public boolean isInteger() {
        return this == INT || this == LONG;
    }
}

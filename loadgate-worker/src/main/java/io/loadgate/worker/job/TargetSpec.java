package io.loadgate.worker.job;

/**
 * The Iceberg table the publisher writes ({@code namespace.name}), its business key column, and optionally the
 * catalog holding it (Iceberg catalog properties: {@code type} jdbc|hadoop|rest, {@code uri}, {@code warehouse},
 * ...); without one the worker's own default catalog is used.
 */
public record TargetSpec(String table, String businessKeyColumn, java.util.Map<String, String> catalog) {
    public TargetSpec {
        catalog = catalog == null ? java.util.Map.of() : java.util.Map.copyOf(catalog);
        SourceSpec.requireText("target.table", table);
        if (!table.matches("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)+")) {
            throw new IllegalArgumentException("target.table must be namespace.name, got '" + table + "'");
        }
        SqlNames.column("target.business_key_column", businessKeyColumn);
    }
}

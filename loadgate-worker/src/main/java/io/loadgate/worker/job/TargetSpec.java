package io.loadgate.worker.job;

/** The Iceberg table the publisher writes ({@code namespace.name}) and its business key column. */
public record TargetSpec(String table, String businessKeyColumn) {
    public TargetSpec {
        SourceSpec.requireText("target.table", table);
        if (!table.matches("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)+")) {
            throw new IllegalArgumentException("target.table must be namespace.name, got '" + table + "'");
        }
        SqlNames.column("target.business_key_column", businessKeyColumn);
    }
}

package io.loadgate.worker.job;

/**
 * The table the publisher writes ({@code namespace.name}) and its business key column. By default an Iceberg table,
 * optionally in a catalog of the job's own (Iceberg catalog properties: {@code type} jdbc|hadoop|rest|hive, {@code uri},
 * {@code warehouse}, ...; without one the worker's default catalog is used); with {@code database}, a table of
 * that relational warehouse ({@code schema.table}) instead; with {@code hive}, a Hive table ({@code database.table})
 * in that metastore. {@code schema} says whether a load may add the source's new
 * columns to an existing table (default {@link SchemaPolicy#EXACT}: it may not).
 */
public record TargetSpec(String table, String businessKeyColumn, java.util.Map<String, String> catalog,
                         WarehouseSpec database, SchemaPolicy schema, HiveSpec hive) {
    public TargetSpec {
        catalog = catalog == null ? java.util.Map.of() : java.util.Map.copyOf(catalog);
        schema = schema == null ? SchemaPolicy.EXACT : schema;
        if (database != null && !catalog.isEmpty()) {
            throw new IllegalArgumentException("target names a catalog and a database; an Iceberg table or a"
                    + " warehouse table, not both");
        }
        if (hive != null && (database != null || !catalog.isEmpty())) {
            throw new IllegalArgumentException("target names hive and a " + (database != null ? "database" : "catalog")
                    + "; a Hive table is reached through its metastore only (an Iceberg table in a metastore is"
                    + " catalog: {type: hive, uri: ...})");
        }
        SourceSpec.requireText("target.table", table);
        if (!table.matches("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)+")) {
            throw new IllegalArgumentException("target.table must be namespace.name, got '" + table + "'");
        }
        SqlNames.column("target.business_key_column", businessKeyColumn);
        if (table.split("\\.").length != 2) {
            if (database != null) {
                throw new IllegalArgumentException("target.table of a warehouse must be schema.table, got '" + table + "'");
            }
            if (hive != null) {
                throw new IllegalArgumentException("target.table of a Hive table must be database.table, got '" + table
                        + "'");
            }
        }
    }

    /** An Iceberg or warehouse target. */
    public TargetSpec(String table, String businessKeyColumn, java.util.Map<String, String> catalog,
                      WarehouseSpec database, SchemaPolicy schema) {
        this(table, businessKeyColumn, catalog, database, schema, null);
    }

    /** A target whose table must keep exactly its columns. */
    public TargetSpec(String table, String businessKeyColumn, java.util.Map<String, String> catalog,
                      WarehouseSpec database) {
        this(table, businessKeyColumn, catalog, database, SchemaPolicy.EXACT);
    }

    /** An Iceberg target. */
    public TargetSpec(String table, String businessKeyColumn, java.util.Map<String, String> catalog) {
        this(table, businessKeyColumn, catalog, null);
    }

    public boolean isWarehouse() {
        return database != null;
    }

    public boolean isHive() {
        return hive != null;
    }
}

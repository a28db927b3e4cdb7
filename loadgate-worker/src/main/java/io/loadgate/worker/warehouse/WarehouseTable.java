package io.loadgate.worker.warehouse;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * A warehouse table as a job defines it: {@code schema.table}, the columns of its staged files, and its business
 * key column. Knows the SQL, in a dialect, that finds a business key's rows. Identifiers are quoted as the staged
 * files spell them; the job spec admits only plain identifiers, so quoting cannot be escaped.
 */
public record WarehouseTable(String schemaName, String tableName, Schema columns, String businessKeyColumn) {
    /** Records every publish, in the target's own schema, so the probe can find a token after an unknown outcome. */
    public static final String MARKER_TABLE = "loadgate_publish";

    public WarehouseTable {
        requireNonNull(schemaName, "schemaName is null");
        requireNonNull(tableName, "tableName is null");
        requireNonNull(columns, "columns is null");
        requireNonNull(businessKeyColumn, "businessKeyColumn is null");
        if (columns.findField(businessKeyColumn) == null) {
            throw new IllegalArgumentException("business-key column " + businessKeyColumn + " is not among the staged"
                    + " columns " + columns.columns().stream().map(Types.NestedField::name).toList());
        }
    }

    /** {@code name} is {@code schema.table}. */
    public static WarehouseTable of(String name, Schema columns, String businessKeyColumn) {
        String[] parts = name.split("\\.");
        if (parts.length != 2) {
            throw new IllegalArgumentException("a warehouse table is schema.table, got " + name);
        }
        return new WarehouseTable(parts[0], parts[1], columns, businessKeyColumn);
    }

    String qualifiedName(WarehouseDialect dialect) {
        return dialect.qualified(schemaName, tableName);
    }

    String markerName(WarehouseDialect dialect) {
        return dialect.qualified(schemaName, MARKER_TABLE);
    }

    /** The table's columns as the dialect reports an existing table's, in order. */
    List<String> expectedColumns(WarehouseDialect dialect) {
        List<String> expected = new ArrayList<>();
        columns.columns().forEach(f -> expected.add(f.name() + " " + dialect.sqlType(f.type())));
        return expected;
    }

    /** Deletes the business key's rows; one parameter, the business key as text. */
    String deleteBusinessKey(WarehouseDialect dialect) {
        return "DELETE FROM " + qualifiedName(dialect) + " WHERE " + businessKeyPredicate(dialect);
    }

    /** Selects the business key's rows, every column in order; one parameter, the business key as text. */
    String selectBusinessKey(WarehouseDialect dialect) {
        String names = columns.columns().stream().map(f -> dialect.quote(f.name())).collect(Collectors.joining(", "));
        return "SELECT " + names + " FROM " + qualifiedName(dialect) + " WHERE " + businessKeyPredicate(dialect);
    }

    String businessKeyPredicate(WarehouseDialect dialect) {
        return dialect.businessKeyPredicate(businessKeyColumn, dialect.sqlType(columns.findField(businessKeyColumn).type()));
    }
}

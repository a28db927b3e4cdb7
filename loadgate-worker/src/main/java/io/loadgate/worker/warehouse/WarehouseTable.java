package io.loadgate.worker.warehouse;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * A warehouse table as a job defines it: {@code schema.table}, the columns of its staged files, and its business
 * key column. Knows the SQL that creates it, finds a business key's rows and records a publish. Identifiers are
 * quoted as the staged files spell them; the job spec admits only plain identifiers, so quoting cannot be escaped.
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

    public String qualifiedName() {
        return quote(schemaName) + "." + quote(tableName);
    }

    String markerName() {
        return markerName(schemaName);
    }

    static String markerName(String schemaName) {
        return quote(schemaName) + "." + quote(MARKER_TABLE);
    }

    String createSchema() {
        return "CREATE SCHEMA IF NOT EXISTS " + quote(schemaName);
    }

    String createTable() {
        String definitions = columns.columns().stream().map(f -> quote(f.name()) + " " + sqlType(f.type()))
                .collect(Collectors.joining(", "));
        return "CREATE TABLE IF NOT EXISTS " + qualifiedName() + " (" + definitions + ")";
    }

    String createBusinessKeyIndex() {
        return "CREATE INDEX IF NOT EXISTS " + quote(tableName + "_loadgate_bk") + " ON " + qualifiedName()
                + " (" + quote(businessKeyColumn) + ")";
    }

    String createMarker() {
        return "CREATE TABLE IF NOT EXISTS " + markerName() + " (publish_token uuid PRIMARY KEY, run_id uuid NOT NULL,"
                + " job_key text NOT NULL, target_table text NOT NULL, business_key text NOT NULL,"
                + " row_count bigint NOT NULL, txid bigint NOT NULL, committed_at timestamptz NOT NULL DEFAULT now())";
    }

    /** The table's columns as PostgreSQL's {@code format_type} names them, in order. */
    List<String> expectedColumns() {
        List<String> expected = new ArrayList<>();
        columns.columns().forEach(f -> expected.add(f.name() + " " + sqlType(f.type())));
        return expected;
    }

    /** Deletes the business key's rows; one parameter, the business key as text. */
    String deleteBusinessKey() {
        return "DELETE FROM " + qualifiedName() + " WHERE " + businessKeyPredicate();
    }

    /** Selects the business key's rows, every column in order; one parameter, the business key as text. */
    String selectBusinessKey() {
        String names = columns.columns().stream().map(f -> quote(f.name())).collect(Collectors.joining(", "));
        return "SELECT " + names + " FROM " + qualifiedName() + " WHERE " + businessKeyPredicate();
    }

    String copyIn() {
        String names = columns.columns().stream().map(f -> quote(f.name())).collect(Collectors.joining(", "));
        return "COPY " + qualifiedName() + " (" + names + ") FROM STDIN (FORMAT csv)";
    }

    String insertMarker() {
        return "INSERT INTO " + markerName() + " (publish_token, run_id, job_key, target_table, business_key, row_count,"
                + " txid) VALUES (?, ?, ?, ?, ?, ?, ?)";
    }

    static String selectMarker(String schemaName) {
        return "SELECT run_id, txid, row_count, committed_at FROM " + markerName(schemaName) + " WHERE publish_token = ?";
    }

    private String businessKeyPredicate() {
        return quote(businessKeyColumn) + " = CAST(? AS " + sqlType(columns.findField(businessKeyColumn).type()) + ")";
    }

    static String quote(String identifier) {
        return "\"" + identifier + "\"";
    }

    /** The PostgreSQL type holding an Iceberg type exactly, spelled as {@code format_type} prints it. */
    static String sqlType(Type type) {
        return switch (type.typeId()) {
            case INTEGER -> "integer";
            case LONG -> "bigint";
            case DECIMAL -> {
                Types.DecimalType decimal = (Types.DecimalType) type;
                yield "numeric(" + decimal.precision() + "," + decimal.scale() + ")";
            }
            case FLOAT -> "real";
            case DOUBLE -> "double precision";
            case STRING -> "text";
            case BOOLEAN -> "boolean";
            case DATE -> "date";
            case TIMESTAMP -> ((Types.TimestampType) type).shouldAdjustToUTC() ? "timestamp with time zone"
                    : "timestamp without time zone";
            case BINARY -> "bytea";
            default -> throw new IllegalArgumentException("a warehouse column cannot hold " + type);
        };
    }
}

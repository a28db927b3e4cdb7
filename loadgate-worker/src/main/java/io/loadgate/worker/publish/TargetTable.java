package io.loadgate.worker.publish;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * A target table as a job defines it: its name, the schema its staged files were written with (Iceberg field
 * ids 1..n), and the business-key column it is partitioned by (identity).
 */
public record TargetTable(TableIdentifier identifier, Schema schema, String businessKeyColumn) {
    public TargetTable {
        requireNonNull(identifier, "identifier is null");
        requireNonNull(schema, "schema is null");
        requireNonNull(businessKeyColumn, "businessKeyColumn is null");
        Types.NestedField column = schema.findField(businessKeyColumn);
        if (column == null) {
            throw new IllegalArgumentException("business-key column " + businessKeyColumn + " is not in the schema of "
                    + identifier + ": " + schema.asStruct());
        }
        if (!column.type().isPrimitiveType()) {
            throw new IllegalArgumentException("business-key column " + businessKeyColumn + " of " + identifier
                    + " must be a primitive type to partition by, not " + column.type());
        }
    }

    /** Identity on the business-key column: one partition per business key. */
    public PartitionSpec partitionSpec() {
        return PartitionSpec.builderFor(schema).identity(businessKeyColumn).build();
    }

    /** The rows (and, through identity partitioning, exactly the files) of one business key. */
    public Expression businessKeyFilter(String businessKey) {
        return Expressions.equal(businessKeyColumn, businessKeyValue(businessKey));
    }

    /**
     * The business key as a value of the column's type, parsed the way Iceberg parses partition paths (so a
     * {@code date} key is {@code 2026-11-29}); a value the type cannot hold fails here, before any commit.
     */
    Object businessKeyValue(String businessKey) {
        requireNonNull(businessKey, "businessKey is null");
        Type type = schema.findType(businessKeyColumn);
        try {
            return Conversions.fromPartitionString(type, businessKey);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("business key '" + businessKey + "' is not a valid " + type
                    + " for column " + businessKeyColumn + " of " + identifier, e);
        }
    }

    /**
     * Throws {@link TargetMismatchException} unless an existing table has exactly this schema (same field ids,
     * names and types: the staged files are added as they are, so their field ids must mean the same columns)
     * and is partitioned by identity on the business-key column alone.
     */
    void checkMatches(Schema tableSchema, PartitionSpec tableSpec) {
        if (!tableSchema.asStruct().equals(schema.asStruct())) {
            List<Types.NestedField> missing = columnsMissingFrom(tableSchema);
            if (!missing.isEmpty()) {
                throw newColumns(missing);
            }
            throw new TargetMismatchException("table " + identifier + " has schema " + tableSchema.asStruct()
                    + " but the staged files were written with " + schema.asStruct());
        }
        int sourceId = schema.findField(businessKeyColumn).fieldId();
        boolean identityOnKey = tableSpec.fields().size() == 1
                && tableSpec.fields().get(0).transform().isIdentity()
                && tableSpec.fields().get(0).sourceId() == sourceId;
        if (!identityOnKey) {
            throw new TargetMismatchException("table " + identifier + " is partitioned by "
                    + tableSpec.fields().stream().map(PartitionField::toString).toList()
                    + ", not by identity on " + businessKeyColumn + " alone");
        }
    }

    /**
     * The staged columns an existing table lacks: those after the table's own, when the table's columns are exactly
     * the first staged ones (same ids, names and types; Iceberg gives an added column the next id, which is then
     * the staged one). Empty when the table has every staged column. Throws {@link TargetMismatchException},
     * naming each column that differs, when the table's columns are not such a prefix.
     */
    public List<Types.NestedField> columnsMissingFrom(Schema tableSchema) {
        requireNonNull(tableSchema, "tableSchema is null");
        List<Types.NestedField> staged = schema.columns();
        List<Types.NestedField> table = tableSchema.columns();
        List<String> differences = new ArrayList<>();
        for (int i = 0; i < table.size(); i++) {
            Types.NestedField column = table.get(i);
            Types.NestedField source = schema.findField(column.name());
            if (source == null) {
                differences.add(column.name() + " is not in the source");
            } else if (!source.type().equals(column.type())) {
                differences.add(column.name() + " is " + column.type() + " in the table, " + source.type()
                        + " in the source");
            } else if (i >= staged.size() || !staged.get(i).equals(column)) {
                differences.add(column.name() + " is column " + (i + 1) + " (id " + column.fieldId()
                        + ") in the table, " + (staged.indexOf(source) + 1) + " (id " + source.fieldId()
                        + ") in the source");
            }
        }
        if (!differences.isEmpty()) {
            throw new TargetMismatchException("table " + identifier + " does not fit the source: "
                    + String.join("; ", differences));
        }
        return List.copyOf(staged.subList(table.size(), staged.size()));
    }

    /** The refusal of a load whose source has {@code missing}, columns this table lacks. */
    public TargetMismatchException newColumns(List<Types.NestedField> missing) {
        return TargetMismatchException.newColumns(identifier.toString(),
                missing.stream().map(Types.NestedField::name).toList());
    }
}

package io.loadgate.worker.staging;

import io.loadgate.worker.source.SourceColumn;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The Iceberg schema of staged chunks. Field ids are 1..n in source column order and every field is optional:
 * staged files carry ids so the publisher can add them to a table without rewriting, and a source column's
 * nullability is not something the snapshot guarantees for every row of every future run.
 */
public final class SourceSchemas {
    private SourceSchemas() {
    }

    public static Schema toIceberg(List<SourceColumn> columns) {
        List<Types.NestedField> fields = new ArrayList<>(columns.size());
        for (int i = 0; i < columns.size(); i++) {
            SourceColumn column = columns.get(i);
            fields.add(Types.NestedField.optional(i + 1, column.name(), type(column)));
        }
        return new Schema(fields);
    }

    private static Type type(SourceColumn column) {
        return switch (column.type()) {
            case INT -> Types.IntegerType.get();
            case LONG -> Types.LongType.get();
            case DECIMAL -> Types.DecimalType.of(column.precision(), column.scale());
            case FLOAT -> Types.FloatType.get();
            case DOUBLE -> Types.DoubleType.get();
            case STRING -> Types.StringType.get();
            case BOOLEAN -> Types.BooleanType.get();
            case DATE -> Types.DateType.get();
            case TIMESTAMP -> Types.TimestampType.withoutZone();
            case TIMESTAMPTZ -> Types.TimestampType.withZone();
            case BINARY -> Types.BinaryType.get();
        };
    }
}

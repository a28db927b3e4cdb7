package io.loadgate.worker.target.hive;

import io.loadgate.worker.publish.TargetMismatchException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The Hive column type of each staged column, spelled out rather than left to a SerDe's guess: the staged Parquet
 * files are read by Hive's ParquetHiveSerDe by column name, so each type must be one it reads from the physical type
 * Iceberg's writer chose. A staged type Hive cannot hold that way is refused by name before anything is created.
 */
final class HiveTypes {
    private static final Pattern DECIMAL = Pattern.compile("decimal\\((\\d+),(\\d+)\\)");

    private HiveTypes() {
    }

    /** Hive's columns for {@code schema}, in its order, lower-case as the metastore stores them. */
    static List<FieldSchema> columns(Schema schema, String table) {
        List<FieldSchema> columns = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        for (Types.NestedField field : schema.columns()) {
            String type = hiveType(field.type());
            if (type == null) {
                refused.add(field.name() + " (" + field.type() + ")");
            } else {
                columns.add(new FieldSchema(field.name().toLowerCase(Locale.ROOT), type, null));
            }
        }
        if (!refused.isEmpty()) {
            throw new TargetMismatchException("Hive table " + table
                    + " cannot hold the staged column(s) " + refused + " as Parquet: Hive has no such type (a"
                    + " timestamp with time zone can be staged as a timestamp in UTC); leave them out with"
                    + " source.columns or convert them in the source query");
        }
        return columns;
    }

    /** The Hive type, or null when Hive's Parquet reader has none for it. */
    static String hiveType(Type type) {
        return switch (type.typeId()) {
            case INTEGER -> "int";
            case LONG -> "bigint";
            case FLOAT -> "float";
            case DOUBLE -> "double";
            case BOOLEAN -> "boolean";
            case STRING -> "string";
            case DATE -> "date";
            case BINARY -> "binary";
            case DECIMAL -> {
                Types.DecimalType decimal = (Types.DecimalType) type;
                yield decimal.precision() <= 38 ? "decimal(" + decimal.precision() + "," + decimal.scale() + ")" : null;
            }
            // Hive's timestamp is a local date-time; one with a zone would be shifted by the reader's zone.
            case TIMESTAMP -> ((Types.TimestampType) type).shouldAdjustToUTC() ? null : "timestamp";
            default -> null;
        };
    }

    /** The staged type a Hive column holds (the inverse of {@link #hiveType}), or null for one Loadgate never made. */
    static Type stagedType(String hiveType) {
        String type = hiveType.toLowerCase(Locale.ROOT).replace(" ", "");
        Matcher decimal = DECIMAL.matcher(type);
        if (decimal.matches()) {
            return Types.DecimalType.of(Integer.parseInt(decimal.group(1)), Integer.parseInt(decimal.group(2)));
        }
        return switch (type) {
            case "int" -> Types.IntegerType.get();
            case "bigint" -> Types.LongType.get();
            case "float" -> Types.FloatType.get();
            case "double" -> Types.DoubleType.get();
            case "boolean" -> Types.BooleanType.get();
            case "string" -> Types.StringType.get();
            case "date" -> Types.DateType.get();
            case "binary" -> Types.BinaryType.get();
            case "timestamp" -> Types.TimestampType.withoutZone();
            default -> null;
        };
    }
}

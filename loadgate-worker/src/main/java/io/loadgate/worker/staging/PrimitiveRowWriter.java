package io.loadgate.worker.staging;

import io.loadgate.worker.source.PrimitiveRow;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.parquet.ColumnWriter;
import org.apache.iceberg.parquet.ParquetValueWriter;
import org.apache.iceberg.parquet.ParquetValueWriters;
import org.apache.iceberg.parquet.TripleWriter;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;

/**
 * The Parquet value writer of rows read as primitives ({@link PrimitiveRow}): for each value the column call
 * {@link ChunkRecordWriter} makes for the record of the same row, and the same checks, so the chunk is byte for byte
 * the file the record path writes (PrimitiveRowWriterTest) with no object made per value.
 */
final class PrimitiveRowWriter implements ParquetValueWriter<PrimitiveRow> {
    private final List<Column> columns;
    private final List<TripleWriter<?>> triples;

    private PrimitiveRowWriter(List<Column> columns) {
        this.columns = List.copyOf(columns);
        this.triples = columns.stream().<TripleWriter<?>>flatMap(column -> column.columns().stream()).toList();
    }

    /** Whether rows of {@code schema} can be written so: a flat schema of optional fields, each of a type with a step. */
    static boolean writes(Schema schema) {
        return schema.columns().stream().allMatch(field -> field.isOptional() && hasStep(field.type()));
    }

    private static boolean hasStep(Type type) {
        return switch (type.typeId()) {
            case INTEGER, LONG, FLOAT, DOUBLE, BOOLEAN, STRING, DATE, TIMESTAMP -> true;
            case DECIMAL -> ((Types.DecimalType) type).precision() <= 18;
            default -> false;
        };
    }

    /** The writer of rows of {@code schema} (one {@link #writes}) into {@code type}, Iceberg's Parquet schema of it. */
    static PrimitiveRowWriter create(Schema schema, MessageType type) {
        List<Types.NestedField> fields = schema.columns();
        if (!writes(schema) || type.getFieldCount() != fields.size() || type.getColumns().size() != fields.size()) {
            throw new IllegalArgumentException("no primitive steps for " + schema + " as " + type);
        }
        List<Column> columns = new ArrayList<>(fields.size());
        for (int i = 0; i < fields.size(); i++) {
            ColumnDescriptor column = type.getColumns().get(i);
            org.apache.parquet.schema.Type parquetField = type.getType(i);
            if (parquetField.getId() == null || parquetField.getId().intValue() != fields.get(i).fieldId()
                    || fields.get(i).type().typeId() == Type.TypeID.TIMESTAMP && !ChunkRecordWriter.inMicros(column)) {
                throw new IllegalArgumentException("field " + fields.get(i) + " is not written as " + parquetField);
            }
            columns.add(new Column(column, i, step(fields.get(i).type())));
        }
        return new PrimitiveRowWriter(columns);
    }

    private static Step step(Type type) {
        return switch (type.typeId()) {
            case INTEGER -> (column, rl, row, i) -> column.writeInteger(rl, row.intValue(i));
            case LONG -> (column, rl, row, i) -> column.writeLong(rl, row.longValue(i));
            case FLOAT -> (column, rl, row, i) -> column.writeFloat(rl, row.floatValue(i));
            case DOUBLE -> (column, rl, row, i) -> column.writeDouble(rl, row.doubleValue(i));
            case BOOLEAN -> (column, rl, row, i) -> column.writeBoolean(rl, row.booleanValue(i));
            case STRING -> (column, rl, row, i) -> column.writeBinary(rl, row.utf8(i));
            case DATE -> (column, rl, row, i) -> column.writeInteger(rl, ChunkRecordWriter.day(row.epochDay(i)));
            case TIMESTAMP -> (column, rl, row, i) -> column.writeLong(rl, row.epochMicros(i));
            case DECIMAL -> {
                Types.DecimalType decimal = (Types.DecimalType) type;
                int precision = decimal.precision();
                int scale = decimal.scale();
                // BigDecimal's precision of an unscaled value is at most the column's when its magnitude is below this.
                long limit = BigInteger.TEN.pow(precision).longValueExact();
                // Iceberg writes a decimal of up to 9 digits as an int, of up to 18 as a long.
                yield precision <= 9
                        ? (column, rl, row, i) -> column.writeInteger(rl, (int) unscaled(row, i, precision, scale, limit))
                        : (column, rl, row, i) -> column.writeLong(rl, unscaled(row, i, precision, scale, limit));
            }
            default -> throw new IllegalArgumentException("no primitive step for " + type);
        };
    }

    /** The unscaled value at the column's scale, checked as the record path checks its BigDecimal. */
    private static long unscaled(PrimitiveRow row, int index, int precision, int scale, long limit) {
        long unscaled = row.unscaled(index, scale);
        if (unscaled == PrimitiveRow.NOT_COMPACT) {
            return ChunkRecordWriter.unscaled((BigDecimal) row.value(index), precision, scale);
        }
        // A compact value has at most 18 digits, so its magnitude is a long.
        if (Math.abs(unscaled) >= limit) {
            throw ChunkRecordWriter.tooLarge(precision, scale, BigDecimal.valueOf(unscaled, scale));
        }
        return unscaled;
    }

    @Override
    public void write(int repetitionLevel, PrimitiveRow row) {
        for (Column column : columns) {
            column.write(repetitionLevel, row);
        }
    }

    @Override
    public List<TripleWriter<?>> columns() {
        return triples;
    }

    @Override
    public void setColumnStore(ColumnWriteStore columnStore) {
        for (Column column : columns) {
            column.setColumnStore(columnStore);
        }
    }

    /** One value's column call. */
    @FunctionalInterface
    private interface Step {
        void write(ColumnWriter<PrimitiveRow> column, int repetitionLevel, PrimitiveRow row, int index);
    }

    /** A field's column: its value's step, or a null at the level Iceberg's writer of an optional field writes it. */
    private static final class Column extends ParquetValueWriters.PrimitiveWriter<PrimitiveRow> {
        private final int index;
        private final int nullLevel;
        private final Step step;

        Column(ColumnDescriptor descriptor, int index, Step step) {
            super(descriptor);
            this.index = index;
            this.nullLevel = descriptor.getMaxDefinitionLevel() - 1;
            this.step = step;
        }

        @Override
        public void write(int repetitionLevel, PrimitiveRow row) {
            if (row.isNull(index)) {
                column.writeNull(repetitionLevel, nullLevel);
            } else {
                step.write(column, repetitionLevel, row, index);
            }
        }
    }
}

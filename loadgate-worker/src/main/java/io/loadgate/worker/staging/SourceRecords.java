package io.loadgate.worker.staging;

import io.loadgate.worker.source.PartitionRows;
import io.loadgate.worker.source.PrimitiveRow;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.function.Supplier;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;

/**
 * Presents a partition's rows as Iceberg generic records of {@link SourceSchemas#toIceberg} of its columns, or as its
 * {@link PrimitiveRow}.
 */
public final class SourceRecords {
    private SourceRecords() {
    }

    /**
     * A one-pass iterator over one record, which each {@code next()} overwrites with the next row's values: keep a
     * {@link Record#copy} of a row to hold it past the next call. The extract path never holds one: Iceberg's Parquet
     * appender writes a record's values in {@code add}, {@code TransformedRows} copies a row before rewriting it, and
     * {@code RejectsWriter.add} copies what it keeps. A record per row was about 6% of an extraction's CPU.
     */
    public static Iterator<Record> of(Schema schema, PartitionRows rows) {
        if (schema.columns().size() != rows.columns().size()) {
            throw new IllegalArgumentException("schema has " + schema.columns().size() + " fields, rows have " + rows.columns().size() + " columns");
        }
        GenericRecord record = GenericRecord.create(schema);
        int width = rows.columns().size();
        return iterator(rows, () -> {
            // Every field is set, so nothing of the row before (nor of a transform's rewrite) is left.
            for (int i = 0; i < width; i++) {
                record.set(i, rows.value(i));
            }
            return record;
        });
    }

    /** The same one-pass iterator over the rows' {@link PartitionRows#primitiveRow}, which must be present. */
    public static Iterator<PrimitiveRow> primitives(PartitionRows rows) {
        PrimitiveRow row = rows.primitiveRow()
                .orElseThrow(() -> new IllegalArgumentException("the rows cannot be read as primitives"));
        return iterator(rows, () -> row);
    }

    private static <T> Iterator<T> iterator(PartitionRows rows, Supplier<T> current) {
        return new Iterator<>() {
            private Boolean ready;

            @Override
            public boolean hasNext() {
                if (ready == null) {
                    ready = rows.next();
                }
                return ready;
            }

            @Override
            public T next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                ready = null;
                return current.get();
            }
        };
    }
}

package io.loadgate.worker.staging;

import io.loadgate.worker.source.PartitionRows;
import java.util.Iterator;
import java.util.NoSuchElementException;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;

/** Presents a partition's rows as Iceberg generic records of {@link SourceSchemas#toIceberg} of its columns. */
public final class SourceRecords {
    private SourceRecords() {
    }

    /** A one-pass iterator; each record is a new object, safe to keep. */
    public static Iterator<Record> of(Schema schema, PartitionRows rows) {
        if (schema.columns().size() != rows.columns().size()) {
            throw new IllegalArgumentException("schema has " + schema.columns().size() + " fields, rows have " + rows.columns().size() + " columns");
        }
        GenericRecord template = GenericRecord.create(schema);
        int width = rows.columns().size();
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
            public Record next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                ready = null;
                GenericRecord record = template.copy();
                for (int i = 0; i < width; i++) {
                    record.set(i, rows.value(i));
                }
                return record;
            }
        };
    }
}

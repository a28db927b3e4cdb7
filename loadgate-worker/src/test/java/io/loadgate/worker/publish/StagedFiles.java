package io.loadgate.worker.publish;

import io.loadgate.worker.testing.GenericParquet;
import java.io.File;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

/** Staged chunk files written the way staging writes them: Iceberg's Parquet writer, field ids 1..n. */
public final class StagedFiles {
    public static final Schema ORDERS = new Schema(
            Types.NestedField.optional(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "customer", Types.StringType.get()),
            Types.NestedField.optional(3, "amount", Types.DecimalType.of(12, 2)),
            Types.NestedField.optional(4, "order_date", Types.DateType.get()));
    public static final TargetTable ORDERS_TABLE =
            new TargetTable(TableIdentifier.of("lake", "orders"), ORDERS, "order_date");

    private StagedFiles() {
    }

    /** {@code count} orders of one day, ids from {@code firstId}; every seventh customer is null. */
    public static List<Record> orders(LocalDate day, long firstId, int count) {
        List<Record> records = new ArrayList<>(count);
        for (long id = firstId; id < firstId + count; id++) {
            GenericRecord record = GenericRecord.create(ORDERS);
            record.setField("id", id);
            record.setField("customer", id % 7 == 0 ? null : "customer-" + (id % 100));
            record.setField("amount", BigDecimal.valueOf(id * 101 % 100_000, 2));
            record.setField("order_date", day);
            records.add(record);
        }
        return records;
    }

    public static StagedFile write(Path directory, List<Record> records) {
        File file = GenericParquet.write(directory.resolve("chunk-" + UUID.randomUUID() + ".parquet").toFile(), ORDERS,
                records);
        return new StagedFile(file.getAbsolutePath(), records.size(), file.length());
    }
}

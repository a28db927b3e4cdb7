package io.loadgate.worker.validation;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.worker.job.ValidationSpec;
import io.loadgate.worker.testing.GenericParquet;
import java.math.BigDecimal;
import java.net.URI;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Staging measures files decoded into Iceberg's internal representation (dates as days, timestamps as microseconds):
 * its metrics must be those of the same rows as generic records, for every kind of column and key.
 */
class StagedFilesReaderTest {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.optional(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "qty", Types.IntegerType.get()),
            Types.NestedField.optional(3, "amount", Types.DecimalType.of(12, 2)),
            Types.NestedField.optional(4, "day", Types.DateType.get()),
            Types.NestedField.optional(5, "at", Types.TimestampType.withZone()),
            Types.NestedField.optional(6, "local", Types.TimestampType.withoutZone()),
            Types.NestedField.optional(7, "note", Types.StringType.get()));
    private static final List<String> ALL = List.of("id", "qty", "amount", "day", "at", "local", "note");

    @TempDir
    Path dir;

    @Test
    void internalValuesMeasureAsTheGenericRecordsDo() {
        List<Record> all = new ArrayList<>();
        List<URI> files = new ArrayList<>();
        for (int f = 0; f < 3; f++) {
            List<Record> rows = new ArrayList<>();
            for (int i = 0; i < 3_000; i++) {
                // Before and after the epoch, nulls, and keys that repeat across files.
                long n = (f * 1_000L + i * 7_919L) % 5_003 - 2_500;
                rows.add(record(n, i % 13 == 0));
            }
            files.add(write("f" + f, rows));
            all.addAll(rows);
        }
        ValidationSpec spec = new ValidationSpec(List.of("id", "qty", "amount"), ALL, ALL, ALL, List.of("day", "at"));
        MetricCalculator generic = new MetricCalculator(spec, SCHEMA);
        all.forEach(generic::accept);

        MetricSet staged = new StagedFilesReader(new Configuration()).metrics(SCHEMA, files, spec, 2);

        assertThat(staged).isEqualTo(generic.result());
        assertThat(staged.get("MIN:at")).startsWith("1969-");
        assertThat(staged.get("MAX:day")).isEqualTo("1971-02-04");
        assertThat(Long.parseLong(staged.get("DUPLICATE_KEYS"))).isPositive();
        // An integer key too, which goes its own way.
        ValidationSpec byId = new ValidationSpec(List.of(), List.of("at"), List.of("at"), List.of(), List.of("id"));
        MetricCalculator genericById = new MetricCalculator(byId, SCHEMA);
        all.forEach(genericById::accept);
        assertThat(new StagedFilesReader(new Configuration()).metrics(SCHEMA, files, byId, 2))
                .isEqualTo(genericById.result());
    }

    private static Record record(long n, boolean isNull) {
        Record r = GenericRecord.create(SCHEMA);
        r.setField("id", isNull ? null : n);
        r.setField("qty", isNull ? null : (int) (n % 1_000));
        r.setField("amount", isNull ? null : BigDecimal.valueOf(n * 37, 2));
        r.setField("day", isNull ? null : LocalDate.ofEpochDay(n % 400));
        r.setField("at", isNull ? null : OffsetDateTime.of(1970, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC)
                .plusNanos(n * 3_601_001_000L));
        r.setField("local", isNull ? null : LocalDateTime.of(1970, 1, 1, 0, 0).plusSeconds(n * 61));
        r.setField("note", isNull ? null : "note " + n);
        return r;
    }

    private URI write(String name, List<Record> rows) {
        return GenericParquet.write(dir.resolve(name + ".parquet").toFile(), SCHEMA, rows).toURI();
    }
}

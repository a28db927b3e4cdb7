package io.loadgate.worker.target;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.worker.job.ValidationSpec;
import io.loadgate.worker.testing.GenericParquet;
import io.loadgate.worker.validation.MetricCalculator;
import io.loadgate.worker.validation.MetricSet;
import java.io.File;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.Files;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MIN and MAX from manifest bounds must equal what reading the data gives, or not be given at all: each case writes
 * real Parquet files, takes their metrics as the publish does (the footer, through Iceberg), and compares.
 */
class FileBoundsTest {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.optional(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "qty", Types.IntegerType.get()),
            Types.NestedField.optional(3, "amount", Types.DecimalType.of(12, 2)),
            Types.NestedField.optional(4, "day", Types.DateType.get()),
            Types.NestedField.optional(5, "at", Types.TimestampType.withZone()),
            Types.NestedField.optional(6, "local", Types.TimestampType.withoutZone()),
            Types.NestedField.optional(7, "ratio", Types.DoubleType.get()),
            Types.NestedField.optional(8, "note", Types.StringType.get()),
            Types.NestedField.optional(9, "big", Types.DecimalType.of(38, 4)));
    private static final List<String> EXACT = List.of("id", "qty", "amount", "day", "at", "local");

    @TempDir
    Path dir;

    @Test
    void exactColumnsBoundsEqualTheDataAcrossFilesRowGroupsAndNulls() {
        List<List<Record>> files = new ArrayList<>();
        for (int f = 0; f < 3; f++) {
            List<Record> rows = new ArrayList<>();
            for (int i = 0; i < 5_000; i++) {
                long n = (f * 7_919L + i * 104_729L) % 100_003 - 50_000;
                // Some nulls everywhere; the middle file's amount is all null (it has no bound and needs none).
                boolean isNull = i % 17 == 0;
                rows.add(record(n, isNull, f == 1));
            }
            files.add(rows);
        }
        List<DataFile> dataFiles = new ArrayList<>();
        for (int f = 0; f < files.size(); f++) {
            // A small row group size gives each file many row groups, whose bounds Iceberg combines.
            dataFiles.add(dataFile(write("f" + f, files.get(f), Map.of(TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES,
                    "4096")), MetricsConfig.getDefault()));
        }
        MetricSet read = measure(files);

        for (String column : EXACT) {
            assertThat(FileBounds.min(dataFiles, SCHEMA.findField(column))).as("MIN of %s", column)
                    .contains(read.get("MIN:" + column));
            assertThat(FileBounds.max(dataFiles, SCHEMA.findField(column))).as("MAX of %s", column)
                    .contains(read.get("MAX:" + column));
        }
        assertThat(read.get("MIN:amount")).isNotEqualTo("NULL");
    }

    @Test
    void floatsStringsAndWideDecimalsAreAlwaysRead() {
        List<Record> rows = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            rows.add(record(i, false, false));
        }
        // NaN is the greatest double to PostgreSQL; -0.0 and 0.0 are one value to it, not to Parquet's statistics.
        rows.get(3).setField("ratio", Double.NaN);
        rows.get(4).setField("ratio", -0.0);
        List<DataFile> files = List.of(dataFile(write("mixed", rows, Map.of()), MetricsConfig.getDefault()));

        for (String column : List.of("ratio", "note", "big")) {
            assertThat(FileBounds.min(files, SCHEMA.findField(column))).as("MIN of %s", column).isEmpty();
            assertThat(FileBounds.max(files, SCHEMA.findField(column))).as("MAX of %s", column).isEmpty();
        }
    }

    @Test
    void aFileWithoutBoundsOrCountsMakesTheColumnUnknown() {
        List<Record> rows = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            rows.add(record(i, false, false));
        }
        File written = write("plain", rows, Map.of());
        DataFile full = dataFile(written, MetricsConfig.getDefault());
        // Metrics mode counts keeps no bounds; mode none keeps no counts either.
        DataFile counts = dataFile(written, MetricsConfig.fromProperties(Map.of(
                TableProperties.DEFAULT_WRITE_METRICS_MODE, "counts")));
        DataFile none = dataFile(written, MetricsConfig.fromProperties(Map.of(
                TableProperties.DEFAULT_WRITE_METRICS_MODE, "none")));
        // What Iceberg keeps when a row group has no statistics for the column: nothing of it.
        DataFile missing = DataFiles.builder(PartitionSpec.unpartitioned()).copy(full).withMetrics(new Metrics(
                full.recordCount(), Map.of(), Map.of(), Map.of(), Map.of(), Map.of(), Map.of())).build();

        assertThat(FileBounds.min(List.of(full), SCHEMA.findField("id"))).contains("0");
        for (DataFile unknown : List.of(counts, none, missing)) {
            assertThat(FileBounds.min(List.of(full, unknown), SCHEMA.findField("id"))).isEmpty();
            assertThat(FileBounds.max(List.of(unknown, full), SCHEMA.findField("at"))).isEmpty();
        }
    }

    @Test
    void noFilesOrOnlyNullsGiveNoValueAsReadingWould() {
        List<Record> rows = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            rows.add(record(i, true, true));
        }
        List<DataFile> files = List.of(dataFile(write("nulls", rows, Map.of()), MetricsConfig.getDefault()));

        assertThat(FileBounds.min(files, SCHEMA.findField("amount"))).contains(measure(List.of(rows)).get("MIN:amount"))
                .contains("NULL");
        assertThat(FileBounds.max(List.of(), SCHEMA.findField("id"))).contains("NULL");
    }

    private static Record record(long n, boolean isNull, boolean amountNull) {
        Record r = GenericRecord.create(SCHEMA);
        r.setField("id", isNull ? null : n);
        r.setField("qty", isNull ? null : (int) (n % 1_000));
        r.setField("amount", isNull || amountNull ? null : BigDecimal.valueOf(n * 37, 2));
        r.setField("day", isNull ? null : LocalDate.of(2026, 1, 1).plusDays(n % 400));
        r.setField("at", isNull ? null : OffsetDateTime.of(2026, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC).plusNanos(n * 1_001_000L));
        r.setField("local", isNull ? null : LocalDateTime.of(2026, 1, 1, 0, 0).plusSeconds(n));
        r.setField("ratio", isNull ? null : n / 7.0);
        r.setField("note", isNull ? null : "note " + n);
        r.setField("big", isNull ? null : BigDecimal.valueOf(n, 4));
        return r;
    }

    private File write(String name, List<Record> rows, Map<String, String> properties) {
        return GenericParquet.write(dir.resolve(name + ".parquet").toFile(), SCHEMA, rows, properties);
    }

    private static DataFile dataFile(File file, MetricsConfig config) {
        return DataFiles.builder(PartitionSpec.unpartitioned())
                .withPath(file.getPath())
                .withFileSizeInBytes(file.length())
                .withMetrics(ParquetUtil.fileMetrics(Files.localInput(file), config))
                .build();
    }

    private static MetricSet measure(List<List<Record>> files) {
        ValidationSpec spec = new ValidationSpec(List.of(), EXACT, EXACT, List.of(), List.of());
        MetricCalculator calculator = new MetricCalculator(spec, SCHEMA);
        files.forEach(rows -> rows.forEach(calculator::accept));
        return calculator.result();
    }
}

package io.loadgate.worker.validation;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.worker.job.ValidationSpec;
import io.loadgate.worker.testing.GenericParquet;
import java.io.File;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.util.HadoopOutputFile;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The columnar reader must measure exactly what the record path measures: metrics of the rows written, for every
 * column type the stage holds, nulls, empty and all-null files, many row groups and pages, dictionary and plain
 * pages, and keys that repeat across files.
 */
class ColumnarMetricsTest {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.optional(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "qty", Types.IntegerType.get()),
            Types.NestedField.optional(3, "amount", Types.DecimalType.of(12, 2)),
            Types.NestedField.optional(4, "small", Types.DecimalType.of(7, 3)),
            Types.NestedField.optional(5, "big", Types.DecimalType.of(38, 6)),
            Types.NestedField.optional(6, "day", Types.DateType.get()),
            Types.NestedField.optional(7, "at", Types.TimestampType.withZone()),
            Types.NestedField.optional(8, "local", Types.TimestampType.withoutZone()),
            Types.NestedField.optional(9, "t", Types.TimeType.get()),
            Types.NestedField.optional(10, "note", Types.StringType.get()),
            Types.NestedField.optional(11, "flag", Types.BooleanType.get()),
            Types.NestedField.optional(12, "ratio", Types.DoubleType.get()),
            Types.NestedField.optional(13, "f", Types.FloatType.get()),
            Types.NestedField.optional(14, "bin", Types.BinaryType.get()),
            Types.NestedField.required(15, "req", Types.LongType.get()));
    private static final List<String> SUMMED = List.of("id", "qty", "amount", "small", "big", "req");
    // The columns the columnar reader orders and keys; the others' extremes and keys go the record way.
    private static final List<String> ORDERED = List.of("id", "qty", "amount", "small", "big", "day", "at", "local", "t",
            "note", "req");
    private static final List<String> OTHERS = List.of("flag", "ratio", "f", "bin");
    private static final List<String> ALL = SCHEMA.columns().stream().map(Types.NestedField::name).toList();
    // Small row groups and pages, with dictionary pages or (a dictionary of 64 bytes overflows at once) plain ones.
    private static final Map<String, String> SMALL_GROUPS = Map.of(
            TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, "4096",
            TableProperties.PARQUET_ROW_GROUP_CHECK_MIN_RECORD_COUNT, "10",
            TableProperties.PARQUET_ROW_GROUP_CHECK_MAX_RECORD_COUNT, "50",
            TableProperties.PARQUET_PAGE_ROW_LIMIT, "37");
    private static final Map<String, String> PLAIN = Map.of(TableProperties.PARQUET_DICT_SIZE_BYTES, "64",
            TableProperties.PARQUET_PAGE_ROW_LIMIT, "101");

    @TempDir
    Path dir;

    @Test
    void everyMetricOfEveryTypeEqualsTheRecordPathsOverManyRowGroupsAndBothEncodings() throws IOException {
        Random random = new Random(11);
        List<List<Record>> files = new ArrayList<>();
        for (int f = 0; f < 4; f++) {
            files.add(rows(random, 2_000, 0.1, 300));
        }
        files.add(List.of());
        files.add(rows(random, 500, 1.0, 300));
        List<Map<String, String>> settings = List.of(Map.of(), SMALL_GROUPS, PLAIN, SMALL_GROUPS, Map.of(), PLAIN);
        List<URI> uris = write(files, settings);
        assertThat(rowGroups(uris.get(1))).isGreaterThan(10);

        List<ValidationSpec> specs = List.of(
                new ValidationSpec(SUMMED, ORDERED, ORDERED, ALL, List.of("id")),
                new ValidationSpec(SUMMED, ORDERED, ORDERED, ALL, List.of("qty")),
                new ValidationSpec(List.of("amount"), List.of("note"), List.of("AT"), List.of("note"), List.of("note", "day", "Big")),
                new ValidationSpec(List.of(), List.of("big", "t"), List.of("small", "local"), List.of("bin"),
                        List.of("at", "amount", "local", "t", "small", "qty", "id")),
                new ValidationSpec(List.of("big"), List.of(), List.of(), List.of("ratio", "f", "flag"), List.of("req", "req")));
        for (ValidationSpec spec : specs) {
            assertColumnarEqualsRecords(files, uris, spec);
        }
    }

    @Test
    void runsOfOneValueRunsOfNullsAndVersion2PagesMeasureAsTheRecordPath() throws IOException {
        // Values and nulls in runs (as a business day's column is one value): RLE runs of dictionary ids and of
        // levels, beside the bit-packed ones of the other test.
        Random random = new Random(23);
        List<List<Record>> files = new ArrayList<>();
        for (int f = 0; f < 4; f++) {
            List<Record> rows = new ArrayList<>();
            List<Record> sample = rows(random, 200, 0.1, 300);
            while (rows.size() < 3_000) {
                Record template = sample.get(random.nextInt(sample.size()));
                boolean nulls = random.nextInt(5) == 0;
                for (int run = 1 + random.nextInt(random.nextBoolean() ? 8 : 200); run > 0; run--) {
                    Record row = template.copy();
                    if (nulls) {
                        SCHEMA.columns().stream().filter(c -> c.isOptional()).forEach(c -> row.setField(c.name(), null));
                    }
                    rows.add(row);
                }
            }
            files.add(rows);
        }
        Map<String, String> v2 = Map.of(TableProperties.PARQUET_PAGE_VERSION, "v2", TableProperties.PARQUET_PAGE_ROW_LIMIT, "211");
        Map<String, String> plainV2 = Map.of(TableProperties.PARQUET_PAGE_VERSION, "v2", TableProperties.PARQUET_DICT_SIZE_BYTES, "64");
        List<URI> uris = write(files, List.of(SMALL_GROUPS, v2, PLAIN, plainV2));

        for (ValidationSpec spec : List.of(new ValidationSpec(SUMMED, ORDERED, ORDERED, ALL, List.of("id")),
                new ValidationSpec(SUMMED, ORDERED, ORDERED, ALL, List.of("note", "qty")))) {
            assertColumnarEqualsRecords(files, uris, spec);
        }
    }

    @Test
    void uncompressedFilesWhoseValuesAreSlicesOfTheirReadBuffersMeasureAsTheRecordPath() throws IOException {
        // A value of an uncompressed page is a slice of its column chunk's read buffer, which the next column is read
        // into (ReadBuffers): a string's extremes must be kept in arrays of their own.
        Random random = new Random(29);
        List<List<Record>> files = List.of(rows(random, 2_500, 0.1, 300), rows(random, 2_500, 0.1, 300),
                rows(random, 1_000, 0.5, 20));
        Map<String, String> uncompressed = Map.of(TableProperties.PARQUET_COMPRESSION, "uncompressed");
        Map<String, String> smallGroups = new HashMap<>(SMALL_GROUPS);
        smallGroups.putAll(uncompressed);
        Map<String, String> plain = new HashMap<>(PLAIN);
        plain.putAll(uncompressed);
        List<URI> uris = write(files, List.of(uncompressed, smallGroups, plain));
        for (ValidationSpec spec : List.of(new ValidationSpec(SUMMED, ORDERED, ORDERED, ALL, List.of("id")),
                new ValidationSpec(List.of(), List.of("note"), List.of("note"), List.of(), List.of("note", "qty")))) {
            assertColumnarEqualsRecords(files, uris, spec);
        }
    }

    @Test
    void keysRepeatingAcrossFilesCountOnceWithTheirDuplicates() throws IOException {
        Random random = new Random(5);
        List<List<Record>> files = new ArrayList<>();
        for (int f = 0; f < 5; f++) {
            // Few distinct ids and notes: every file repeats the others' keys and its own.
            files.add(rows(random, 3_000, 0.02, 40));
        }
        List<URI> uris = write(files, List.of(SMALL_GROUPS, Map.of(), PLAIN, SMALL_GROUPS, PLAIN));
        for (List<String> key : List.of(List.of("id"), List.of("qty"), List.of("note"), List.of("id", "note"),
                List.of("day"), List.of("amount"), List.of("big"))) {
            MetricSet staged = assertColumnarEqualsRecords(files, uris,
                    new ValidationSpec(List.of(), List.of(), List.of(), List.of(), key));
            assertThat(Long.parseLong(staged.get("DUPLICATE_KEYS"))).as("duplicates of %s", key).isGreaterThan(1_000);
        }
    }

    @Test
    void aSpecWithValuesTheColumnarReaderDoesNotDecodeGoesTheRecordWayWithTheSameResult() throws IOException {
        Random random = new Random(3);
        List<List<Record>> files = List.of(rows(random, 1_000, 0.1, 100), rows(random, 1_000, 0.1, 100));
        List<URI> uris = write(files, List.of(Map.of(), PLAIN));
        for (String other : OTHERS) {
            ValidationSpec spec = new ValidationSpec(List.of("id"), List.of(other), List.of(other), List.of(other), List.of());
            assertThat(ColumnarMetrics.of(SCHEMA.caseInsensitiveSelect(spec.referencedColumns()), spec)).isEmpty();
            assertThat(new StagedFilesReader(new Configuration()).metrics(SCHEMA, uris, spec, 2))
                    .isEqualTo(recordMetrics(files, spec));
        }
        ValidationSpec flagKey = new ValidationSpec(List.of(), List.of(), List.of(), List.of(), List.of("id", "flag"));
        assertThat(ColumnarMetrics.of(SCHEMA.caseInsensitiveSelect(flagKey.referencedColumns()), flagKey)).isEmpty();
        assertThat(new StagedFilesReader(new Configuration()).metrics(SCHEMA, uris, flagKey, 2))
                .isEqualTo(recordMetrics(files, flagKey));
    }

    @Test
    void aSpecOfCountAloneReadsOneColumnsPagesAndCountsAsTheRecordPath() throws IOException {
        Random random = new Random(17);
        List<List<Record>> files = List.of(rows(random, 2_000, 0.1, 300), List.of(), rows(random, 700, 1.0, 50),
                rows(random, 1_500, 0.3, 300));
        List<URI> uris = write(files, List.of(SMALL_GROUPS, Map.of(), PLAIN,
                Map.of(TableProperties.PARQUET_PAGE_VERSION, "v2", TableProperties.PARQUET_PAGE_ROW_LIMIT, "97")));
        // The required column's pages count the rows; every other column is left unread.
        assertThat(assertColumnarEqualsRecords(files, uris, ValidationSpec.COUNT_ONLY).values())
                .isEqualTo(Map.of("COUNT", "4200"));

        // No required column: an optional one's definition levels count them, its nulls among them.
        Schema optional = new Schema(Types.NestedField.optional(1, "id", Types.LongType.get()),
                Types.NestedField.optional(10, "note", Types.StringType.get()));
        List<Record> rows = new ArrayList<>();
        for (int i = 0; i < 1_234; i++) {
            Record row = GenericRecord.create(optional);
            row.setField("id", i % 3 == 0 ? null : (long) i);
            row.setField("note", i % 5 == 0 ? null : "n" + i);
            rows.add(row);
        }
        File file = GenericParquet.write(dir.resolve("optional.parquet").toFile(), optional, rows, SMALL_GROUPS);
        ColumnarMetrics columnar = ColumnarMetrics.of(optional, ValidationSpec.COUNT_ONLY).orElseThrow();
        MetricCalculator calculator = new MetricCalculator(ValidationSpec.COUNT_ONLY, optional);
        assertThat(columnar.measure(HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(file.toURI()),
                new Configuration()), calculator)).isTrue();
        calculator.partRead();
        assertThat(calculator.result().values()).isEqualTo(Map.of("COUNT", "1234"));
    }

    @Property(tries = 40)
    void randomRowsNullsAndSpecsMeasureAsTheRecordPath(@ForAll long seed) throws IOException {
        Random random = new Random(seed);
        Path tmp = java.nio.file.Files.createTempDirectory("columnar");
        try {
            List<List<Record>> files = new ArrayList<>();
            List<Map<String, String>> settings = new ArrayList<>();
            for (int f = random.nextInt(4); f >= 0; f--) {
                files.add(rows(random, random.nextInt(4) == 0 ? random.nextInt(3) : random.nextInt(1_500),
                        random.nextInt(5) == 0 ? 1.0 : random.nextDouble() * 0.3, 1 + random.nextInt(1_000)));
                settings.add(List.of(Map.<String, String>of(), SMALL_GROUPS, PLAIN).get(random.nextInt(3)));
            }
            List<URI> uris = write(tmp, files, settings);
            // Now and then no metric at all: COUNT alone.
            ValidationSpec spec = new ValidationSpec(pick(random, SUMMED), pick(random, ORDERED), pick(random, ORDERED),
                    pick(random, ALL), random.nextBoolean() ? List.of() : pick(random, ORDERED));
            assertColumnarEqualsRecords(files, uris, spec);
        } finally {
            try (Stream<Path> paths = java.nio.file.Files.walk(tmp)) {
                paths.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
            }
        }
    }

    /** Requires the columnar reader to take every file and measure what a calculator over the rows measures. */
    private static MetricSet assertColumnarEqualsRecords(List<List<Record>> files, List<URI> uris, ValidationSpec spec)
            throws IOException {
        Schema read = spec.referencedColumns().isEmpty() ? SCHEMA : SCHEMA.caseInsensitiveSelect(spec.referencedColumns());
        ColumnarMetrics columnar = ColumnarMetrics.of(read, spec).orElseThrow();
        MetricCalculator merged = null;
        for (URI uri : uris) {
            MetricCalculator calculator = new MetricCalculator(spec, read);
            assertThat(columnar.measure(HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(uri), new Configuration()),
                    calculator)).as("columnar read of %s", uri).isTrue();
            calculator.partRead();
            if (merged == null) {
                merged = calculator;
            } else {
                merged.merge(calculator);
            }
        }
        MetricSet expected = recordMetrics(files, spec);
        assertThat(merged.result()).as("spec %s", spec).isEqualTo(expected);
        assertThat(new StagedFilesReader(new Configuration()).metrics(SCHEMA, uris, spec, 2)).isEqualTo(expected);
        return expected;
    }

    private static MetricSet recordMetrics(List<List<Record>> files, ValidationSpec spec) {
        MetricCalculator calculator = new MetricCalculator(spec, SCHEMA);
        files.forEach(rows -> rows.forEach(calculator::accept));
        return calculator.result();
    }

    private static List<String> pick(Random random, List<String> columns) {
        List<String> picked = new ArrayList<>();
        for (String column : columns) {
            if (random.nextInt(3) == 0) {
                picked.add(random.nextBoolean() ? column : column.toUpperCase());
            }
        }
        return picked;
    }

    /**
     * Rows with values of every sign, around the epoch, near the ends of their ranges (sums overflow a long), strings
     * beyond the Basic Multilingual Plane (UTF-16 order differs from code point order there), {@code nulls} the
     * share of nulls in each nullable column and {@code distinct} bounding how many different values repeat.
     */
    private static List<Record> rows(Random random, int count, double nulls, int distinct) {
        List<Record> rows = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int n = random.nextInt(distinct) - distinct / 2;
            Record r = GenericRecord.create(SCHEMA);
            r.setField("id", random.nextDouble() < nulls ? null
                    : random.nextInt(50) == 0 ? Long.MAX_VALUE - random.nextInt(distinct) : (long) n * 1_000_003L);
            r.setField("qty", random.nextDouble() < nulls ? null : random.nextInt(50) == 0 ? Integer.MIN_VALUE + n : n);
            r.setField("amount", random.nextDouble() < nulls ? null : BigDecimal.valueOf(n * 1_999_999_937L, 2));
            r.setField("small", random.nextDouble() < nulls ? null : BigDecimal.valueOf(n * 7_919L, 3));
            r.setField("big", random.nextDouble() < nulls ? null
                    : new BigDecimal(BigInteger.TEN.pow(30).multiply(BigInteger.valueOf(n)).add(BigInteger.valueOf(i)), 6));
            r.setField("day", random.nextDouble() < nulls ? null : LocalDate.ofEpochDay(n * 17L));
            r.setField("at", random.nextDouble() < nulls ? null
                    : OffsetDateTime.of(1970, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC).plusNanos(n * 3_601_001_000L));
            r.setField("local", random.nextDouble() < nulls ? null : LocalDateTime.of(1970, 1, 1, 0, 0).plusSeconds(n * 61L));
            r.setField("t", random.nextDouble() < nulls ? null : LocalTime.ofNanoOfDay(Math.floorMod(n * 1_000_001_000L, 86_400_000_000_000L)));
            r.setField("note", random.nextDouble() < nulls ? null : note(n));
            r.setField("flag", random.nextDouble() < nulls ? null : n % 3 == 0);
            r.setField("ratio", random.nextDouble() < nulls ? null : n / 7.0);
            r.setField("f", random.nextDouble() < nulls ? null : n / 3.0f);
            r.setField("bin", random.nextDouble() < nulls ? null : ByteBuffer.wrap(new byte[] {(byte) n, (byte) (n >> 8)}));
            r.setField("req", (long) n);
            rows.add(r);
        }
        return rows;
    }

    private static String note(int n) {
        int kind = Math.floorMod(n, 4);
        String suffix = Integer.toString(n);
        return switch (kind) {
            case 0 -> "note " + suffix;
            case 1 -> "\uff5e" + suffix;
            case 2 -> "\ud83d\ude00" + suffix;
            default -> "";
        };
    }

    private List<URI> write(List<List<Record>> files, List<Map<String, String>> settings) throws IOException {
        return write(dir, files, settings);
    }

    private static List<URI> write(Path dir, List<List<Record>> files, List<Map<String, String>> settings)
            throws IOException {
        List<URI> uris = new ArrayList<>();
        for (int f = 0; f < files.size(); f++) {
            File file = dir.resolve("f" + f + ".parquet").toFile();
            if (files.get(f).isEmpty()) {
                // Iceberg's appender writes no file for no rows: a file of no row groups, as parquet-java writes it.
                ParquetFileWriter writer = new ParquetFileWriter(
                        HadoopOutputFile.fromPath(new org.apache.hadoop.fs.Path(file.toURI()), new Configuration()),
                        ParquetSchemaUtil.convert(SCHEMA, "table"), ParquetFileWriter.Mode.CREATE, 0, 0);
                writer.start();
                writer.end(Map.of());
                uris.add(file.toURI());
                continue;
            }
            uris.add(GenericParquet.write(file, SCHEMA, files.get(f), settings.get(f)).toURI());
        }
        return uris;
    }

    private static int rowGroups(URI uri) throws IOException {
        try (ParquetFileReader reader = ParquetFileReader.open(
                HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(uri), new Configuration()))) {
            return reader.getRowGroups().size();
        }
    }
}

package io.loadgate.worker.staging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loadgate.worker.source.PrimitiveRow;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.function.BiFunction;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.parquet.ParquetValueWriter;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ChunkRecordWriter must write the bytes Iceberg's GenericParquetWriter writes, and fail where it fails; and
 * PrimitiveRowWriter, of the same rows read as primitives, the bytes ChunkRecordWriter writes, failing where it fails.
 */
class ChunkRecordWriterTest {
    private static final Schema EVERY_SOURCE_TYPE = new Schema(
            Types.NestedField.optional(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "small", Types.IntegerType.get()),
            Types.NestedField.optional(3, "price", Types.DecimalType.of(5, 2)),
            Types.NestedField.optional(4, "amount", Types.DecimalType.of(12, 2)),
            Types.NestedField.required(5, "whole", Types.DecimalType.of(18, 0)),
            Types.NestedField.optional(6, "wide", Types.DecimalType.of(30, 4)),
            Types.NestedField.optional(7, "ratio", Types.FloatType.get()),
            Types.NestedField.optional(8, "score", Types.DoubleType.get()),
            Types.NestedField.optional(9, "name", Types.StringType.get()),
            Types.NestedField.required(10, "code", Types.StringType.get()),
            Types.NestedField.optional(11, "active", Types.BooleanType.get()),
            Types.NestedField.optional(12, "day", Types.DateType.get()),
            Types.NestedField.optional(13, "at", Types.TimestampType.withoutZone()),
            Types.NestedField.optional(14, "at_tz", Types.TimestampType.withZone()),
            Types.NestedField.required(15, "at_tz_required", Types.TimestampType.withZone()),
            Types.NestedField.optional(16, "raw", Types.BinaryType.get()));
    // Every type a source gives that has a primitive step (all optional: staged schemas are).
    private static final Schema PRIMITIVE_TYPES = new Schema(
            Types.NestedField.optional(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "small", Types.IntegerType.get()),
            Types.NestedField.optional(3, "price", Types.DecimalType.of(5, 2)),
            Types.NestedField.optional(4, "amount", Types.DecimalType.of(12, 2)),
            Types.NestedField.optional(5, "whole", Types.DecimalType.of(18, 0)),
            Types.NestedField.optional(6, "ratio", Types.FloatType.get()),
            Types.NestedField.optional(7, "score", Types.DoubleType.get()),
            Types.NestedField.optional(8, "name", Types.StringType.get()),
            Types.NestedField.optional(9, "active", Types.BooleanType.get()),
            Types.NestedField.optional(10, "day", Types.DateType.get()),
            Types.NestedField.optional(11, "at", Types.TimestampType.withoutZone()),
            Types.NestedField.optional(12, "at_tz", Types.TimestampType.withZone()));
    private static final String[] WORDS = {"", "a", "plain ascii words", "café", "中文字符", "emoji \uD83D\uDE00 pair",
            "lone \uD800 surrogate", "tab\tand\nnewline", "x".repeat(300)};

    @TempDir
    Path dir;

    @Test
    void writesTheBytesOfIcebergsGenericWriterForEveryTypeASourceGives() throws IOException {
        for (long seed : new long[] {1L, 20_261_202L, -7L}) {
            List<Record> records = randomRecords(EVERY_SOURCE_TYPE, new Random(seed), 3_000);
            for (String codec : List.of("zstd", "uncompressed")) {
                byte[] generic = write("generic-" + seed + codec, EVERY_SOURCE_TYPE, codec, GenericParquetWriter::create, records);
                byte[] ours = write("chunk-" + seed + codec, EVERY_SOURCE_TYPE, codec, ChunkRecordWriter::create, records);
                assertThat(sha256(ours)).as("seed %s, %s", seed, codec).isEqualTo(sha256(generic));
            }
        }
    }

    @Test
    void aSchemaItHasNoStepsForIsWrittenByIcebergsWriter() throws IOException {
        Schema schema = new Schema(
                Types.NestedField.optional(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "clock", Types.TimeType.get()),
                Types.NestedField.optional(3, "tags", Types.ListType.ofOptional(4, Types.StringType.get())));
        List<Record> records = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            Record record = GenericRecord.create(schema);
            record.set(0, (long) i);
            record.set(1, i % 7 == 0 ? null : LocalTime.ofSecondOfDay(i * 311L));
            record.set(2, i % 5 == 0 ? null : List.of("t" + i, "u"));
            records.add(record);
        }
        assertThat(sha256(write("chunk", schema, "zstd", ChunkRecordWriter::create, records)))
                .isEqualTo(sha256(write("generic", schema, "zstd", GenericParquetWriter::create, records)));
    }

    @Test
    void failsWhereIcebergsWriterFails() {
        Schema schema = new Schema(
                Types.NestedField.optional(1, "amount", Types.DecimalType.of(12, 2)),
                Types.NestedField.optional(2, "at", Types.TimestampType.withZone()));
        List<List<Object>> bad = List.of(
                List.of(new BigDecimal("1.5"), OffsetDateTime.now(ZoneOffset.UTC)),
                List.of(new BigDecimal("12345678901.00"), OffsetDateTime.now(ZoneOffset.UTC)),
                List.of(new BigDecimal("-12345678901.00"), OffsetDateTime.now(ZoneOffset.UTC)),
                List.of(new BigDecimal("1.50"), OffsetDateTime.MAX),
                List.of(new BigDecimal("1.50"), OffsetDateTime.MIN));
        for (List<Object> values : bad) {
            Record record = GenericRecord.create(schema);
            record.set(0, values.get(0));
            record.set(1, values.get(1));
            Object generic = outcome(() -> write("generic", schema, "zstd", GenericParquetWriter::create, List.of(record)));
            Object ours = outcome(() -> write("chunk", schema, "zstd", ChunkRecordWriter::create, List.of(record)));
            assertThat(generic).as("%s", values).isInstanceOf(Class.class);
            assertThat(ours instanceof byte[] bytes ? sha256(bytes) : ours).as("%s", values).isEqualTo(generic);
        }
    }

    @Test
    void aDateBeyondAnIntOfDaysFailsWhereIcebergsWriterWrapsIt() {
        Schema schema = new Schema(Types.NestedField.optional(1, "day", Types.DateType.get()));
        for (LocalDate day : List.of(LocalDate.MAX, LocalDate.MIN, LocalDate.ofEpochDay(Integer.MAX_VALUE + 1L))) {
            Record record = GenericRecord.create(schema);
            record.set(0, day);
            assertThat(outcome(() -> write("generic", schema, "zstd", GenericParquetWriter::create, List.of(record))))
                    .as("Iceberg's writer writes another day for %s", day).isInstanceOf(byte[].class);
            assertThatThrownBy(() -> write("chunk", schema, "zstd", ChunkRecordWriter::create, List.of(record)))
                    .as("%s", day).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Cannot write date " + day);
        }
        Record last = GenericRecord.create(schema);
        last.set(0, LocalDate.ofEpochDay(Integer.MAX_VALUE));
        assertThat(outcome(() -> write("chunk", schema, "zstd", ChunkRecordWriter::create, List.of(last)))).isInstanceOf(byte[].class);
    }

    @Test
    void rowsReadAsPrimitivesAreWrittenAsTheirRecords() throws IOException {
        assertThat(PrimitiveRowWriter.writes(PRIMITIVE_TYPES)).isTrue();
        for (long seed : new long[] {1L, 20_261_203L}) {
            List<Record> records = randomRecords(PRIMITIVE_TYPES, new Random(seed), 3_000);
            byte[] asRecords = write("records-" + seed, PRIMITIVE_TYPES, "zstd", ChunkRecordWriter::create, records);
            byte[] asPrimitives = writePrimitives("primitives-" + seed, PRIMITIVE_TYPES, records);
            assertThat(sha256(asPrimitives)).as("seed %s", seed).isEqualTo(sha256(asRecords));
        }
    }

    @Test
    void rowsReadAsPrimitivesFailWhereTheirRecordsFail() {
        Schema schema = new Schema(
                Types.NestedField.optional(1, "price", Types.DecimalType.of(5, 2)),
                Types.NestedField.optional(2, "amount", Types.DecimalType.of(12, 2)),
                Types.NestedField.optional(3, "day", Types.DateType.get()));
        LocalDate day = LocalDate.of(2026, 12, 3);
        List<List<Object>> bad = List.of(
                // Not one long at the column's scale: the writer takes the BigDecimal, and refuses it.
                List.of(new BigDecimal("1.5"), new BigDecimal("1.50"), day),
                List.of(new BigDecimal("1.50"), new BigDecimal("1.500"), day),
                List.of(new BigDecimal("1.50"), new BigDecimal("1234567890123456789.00"), day),
                // Compact, but more digits than the column's.
                List.of(new BigDecimal("1234.50"), new BigDecimal("1.50"), day),
                List.of(new BigDecimal("1.50"), new BigDecimal("-12345678901.00"), day),
                List.of(new BigDecimal("1.50"), new BigDecimal("1.50"), LocalDate.MAX),
                List.of(new BigDecimal("1.50"), new BigDecimal("1.50"), LocalDate.ofEpochDay(Integer.MIN_VALUE - 1L)));
        for (List<Object> values : bad) {
            Record record = GenericRecord.create(schema);
            for (int i = 0; i < values.size(); i++) {
                record.set(i, values.get(i));
            }
            assertThatThrownBy(() -> writePrimitives("primitives", schema, List.of(record))).as("%s", values)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(failure(() -> write("records", schema, "zstd", ChunkRecordWriter::create, List.of(record))));
        }
    }

    @Test
    void aSchemaWithoutPrimitiveStepsIsNotWrittenSo() {
        assertThat(PrimitiveRowWriter.writes(EVERY_SOURCE_TYPE)).as("required fields, binary, decimal(30,4)").isFalse();
        assertThat(PrimitiveRowWriter.writes(new Schema(Types.NestedField.optional(1, "raw", Types.BinaryType.get()))))
                .isFalse();
        assertThat(PrimitiveRowWriter.writes(new Schema(Types.NestedField.optional(1, "wide", Types.DecimalType.of(19, 2)))))
                .isFalse();
        assertThat(PrimitiveRowWriter.writes(new Schema(Types.NestedField.required(1, "id", Types.LongType.get()))))
                .isFalse();
    }

    private static String failure(Write write) {
        try {
            write.write();
        } catch (IOException | RuntimeException e) {
            return e.getMessage();
        }
        throw new AssertionError("the record path wrote it");
    }

    private byte[] writePrimitives(String name, Schema schema, List<Record> records) throws IOException {
        Path file = dir.resolve(name + ".parquet");
        Files.deleteIfExists(file);
        FileAppender<PrimitiveRow> appender = Parquet.write(org.apache.iceberg.Files.localOutput(file.toFile()))
                .schema(schema)
                .createWriterFunc(PrimitiveRowWriter::create)
                .set(TableProperties.PARQUET_COMPRESSION, "zstd")
                .build();
        RecordRow row = new RecordRow();
        try (appender) {
            for (Record record : records) {
                row.record = record;
                appender.add(row);
            }
        }
        return Files.readAllBytes(file);
    }

    /**
     * A record's values as a source reading them as primitives gives them: a decimal as one long only at the asked
     * scale and up to 18 digits, a timestamp in microseconds from 1970 as the record path computes them.
     */
    private static final class RecordRow implements PrimitiveRow {
        private static final OffsetDateTime EPOCH = OffsetDateTime.of(1970, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC);
        private Record record;
        private byte[] reused = new byte[0];

        @Override
        public boolean isNull(int index) {
            return record.get(index) == null;
        }

        @Override
        public boolean booleanValue(int index) {
            return (Boolean) record.get(index);
        }

        @Override
        public int intValue(int index) {
            return (Integer) record.get(index);
        }

        @Override
        public long longValue(int index) {
            return (Long) record.get(index);
        }

        @Override
        public float floatValue(int index) {
            return (Float) record.get(index);
        }

        @Override
        public double doubleValue(int index) {
            return (Double) record.get(index);
        }

        /**
         * Into one array, overwritten by the next call, past a few bytes of another value: as PrimitiveRow allows, so
         * a writer that kept the view rather than copying it would write some later value in its place.
         */
        @Override
        public Binary utf8(int index) {
            byte[] utf8 = ((String) record.get(index)).getBytes(StandardCharsets.UTF_8);
            if (reused.length < utf8.length + 3) {
                reused = new byte[utf8.length + 3];
            }
            Arrays.fill(reused, (byte) '?');
            System.arraycopy(utf8, 0, reused, 3, utf8.length);
            return Binary.fromReusedByteArray(reused, 3, utf8.length);
        }

        @Override
        public long epochDay(int index) {
            return ((LocalDate) record.get(index)).toEpochDay();
        }

        @Override
        public long epochMicros(int index) {
            Object value = record.get(index);
            return value instanceof OffsetDateTime at ? ChronoUnit.MICROS.between(EPOCH, at)
                    : ChronoUnit.MICROS.between(EPOCH.toLocalDateTime(), (LocalDateTime) value);
        }

        @Override
        public long unscaled(int index, int scale) {
            BigDecimal decimal = (BigDecimal) record.get(index);
            return decimal.scale() == scale && decimal.precision() <= 18 ? decimal.unscaledValue().longValueExact()
                    : NOT_COMPACT;
        }

        @Override
        public Object value(int index) {
            return record.get(index);
        }
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @FunctionalInterface
    private interface Write {
        byte[] write() throws IOException;
    }

    /** The file's bytes, or the class of the failure. */
    private static Object outcome(Write write) {
        try {
            return write.write();
        } catch (IOException | RuntimeException e) {
            return e.getClass();
        }
    }

    private byte[] write(String name, Schema schema, String codec, BiFunction<Schema, MessageType, ParquetValueWriter<?>> writerFunc,
                         List<Record> records) throws IOException {
        Path file = dir.resolve(name + ".parquet");
        Files.deleteIfExists(file);
        FileAppender<Record> appender = Parquet.write(org.apache.iceberg.Files.localOutput(file.toFile()))
                .schema(schema)
                .createWriterFunc(writerFunc)
                .set(TableProperties.PARQUET_COMPRESSION, codec)
                .build();
        try (appender) {
            appender.addAll(records);
        }
        return Files.readAllBytes(file);
    }

    private static List<Record> randomRecords(Schema schema, Random random, int count) {
        List<Record> records = new ArrayList<>(count);
        // Runs of repeated values too, so that dictionaries and run lengths come up.
        Record previous = null;
        for (int n = 0; n < count; n++) {
            Record record = GenericRecord.create(schema);
            for (int i = 0; i < schema.columns().size(); i++) {
                Types.NestedField field = schema.columns().get(i);
                boolean repeat = previous != null && random.nextInt(4) == 0;
                record.set(i, repeat ? previous.get(i)
                        : field.isOptional() && random.nextInt(8) == 0 ? null : value(field.type(), random));
            }
            records.add(record);
            previous = record;
        }
        return records;
    }

    private static Object value(Type type, Random random) {
        return switch (type.typeId()) {
            case LONG -> random.nextInt(3) == 0 ? random.nextLong() : (long) random.nextInt(1_000);
            case INTEGER -> random.nextInt();
            case DECIMAL -> {
                Types.DecimalType decimal = (Types.DecimalType) type;
                BigInteger unscaled = new BigInteger(random.nextInt(1 + (int) (decimal.precision() * 3.3)), random)
                        .min(BigInteger.TEN.pow(decimal.precision()).subtract(BigInteger.ONE));
                yield new BigDecimal(random.nextBoolean() ? unscaled : unscaled.negate(), decimal.scale());
            }
            case FLOAT -> switch (random.nextInt(6)) {
                case 0 -> Float.NaN;
                case 1 -> -0.0f;
                default -> random.nextFloat() * 1e6f - 5e5f;
            };
            case DOUBLE -> switch (random.nextInt(6)) {
                case 0 -> Double.NaN;
                case 1 -> Double.NEGATIVE_INFINITY;
                default -> random.nextGaussian() * 1e9;
            };
            case STRING -> WORDS[random.nextInt(WORDS.length)] + (random.nextBoolean() ? random.nextInt(50) : "");
            case BOOLEAN -> random.nextBoolean();
            case DATE -> LocalDate.ofEpochDay(random.nextInt(3) == 0 ? random.nextInt(2 * 3_652_059) - 3_652_059 : 19_000 + random.nextInt(3));
            case TIMESTAMP -> {
                OffsetDateTime at = instant(random);
                yield ((Types.TimestampType) type).shouldAdjustToUTC() ? at : at.toLocalDateTime();
            }
            case BINARY -> {
                byte[] bytes = new byte[random.nextInt(40)];
                random.nextBytes(bytes);
                yield ByteBuffer.wrap(bytes);
            }
            default -> throw new IllegalArgumentException("no values of " + type);
        };
    }

    /** Years 0001..9999 and a few days around 1970, at whole microseconds mostly, in offsets other than UTC too. */
    private static OffsetDateTime instant(Random random) {
        long seconds = random.nextInt(3) == 0 ? random.nextInt(400_000) - 200_000L
                : -62_135_596_800L + (long) (random.nextDouble() * 315_537_897_599L);
        int nanos = random.nextInt(5) == 0 ? random.nextInt(1_000_000_000) : random.nextInt(1_000_000) * 1_000;
        ZoneOffset offset = random.nextBoolean() ? ZoneOffset.UTC : ZoneOffset.ofTotalSeconds((random.nextInt(36) - 18) * 1_800);
        return OffsetDateTime.ofInstant(java.time.Instant.ofEpochSecond(seconds, nanos), offset);
    }
}

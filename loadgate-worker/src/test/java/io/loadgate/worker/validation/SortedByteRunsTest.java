package io.loadgate.worker.validation;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** A buffer of 1 KiB makes every case spill many times: the counts must equal a plain set's. */
class SortedByteRunsTest {
    private static final long BUFFER = 1 << 10;

    @Test
    void randomTextKeysWithRepeatsPrefixesAndHighBytesMatchAHashSet() {
        Random random = new Random(14);
        SortedByteRuns keys = new SortedByteRuns(BUFFER);
        Set<String> expected = new HashSet<>();
        for (int i = 0; i < 20_000; i++) {
            String key = switch (random.nextInt(6)) {
                case 0 -> "";
                // Prefixes of one another, and bytes past 0x7F (signed bytes would sort them first).
                case 1 -> "ab".repeat(random.nextInt(4));
                case 2 -> new String(Character.toChars(0x7e + random.nextInt(4)));
                case 3 -> "\ud83d\ude00" + random.nextInt(50);
                default -> "k" + random.nextInt(3_000);
            };
            keys.add(key.getBytes(StandardCharsets.UTF_8));
            expected.add(key);
        }
        assertThat(keys.count()).isEqualTo(expected.size());
    }

    @Test
    void disjointRangesCountWithoutAMergeAndOverlappingOnesOnce() {
        SortedByteRuns keys = new SortedByteRuns(BUFFER);
        for (String prefix : new String[] {"m", "a", "z"}) {
            for (int i = 999; i >= 0; i--) {
                keys.add((prefix + String.format("%04d", i)).getBytes(StandardCharsets.UTF_8));
            }
        }
        assertThat(keys.count()).isEqualTo(3_000);
        // One repeat long after the run that holds it was spilled, then more keys after a count.
        keys.add("a0500".getBytes(StandardCharsets.UTF_8));
        assertThat(keys.count()).isEqualTo(3_000);
        keys.add("b".getBytes(StandardCharsets.UTF_8));
        assertThat(keys.count()).isEqualTo(3_001);
    }

    @Test
    void unitedSetsCountTheirCommonKeysOnce() {
        SortedByteRuns a = new SortedByteRuns(BUFFER);
        SortedByteRuns b = new SortedByteRuns(BUFFER);
        for (int i = 0; i < 700; i++) {
            a.add(bytes(i));
        }
        for (int i = 500; i < 1_200; i++) {
            b.add(bytes(i));
        }
        b.settle();
        a.addAll(b);
        assertThat(a.count()).isEqualTo(1_200);
    }

    @Test
    void manyRepeatsOfFewKeysStayInOneBuffer() {
        SortedByteRuns keys = new SortedByteRuns(BUFFER);
        for (int i = 0; i < 50_000; i++) {
            keys.add(bytes(i % 7));
        }
        assertThat(keys.count()).isEqualTo(7);
    }

    /**
     * Keys of every kind a table's key column holds: the encoded keys count as many distinct keys as a set of the
     * values' lists does, nulls included (they group together, as in SQL).
     */
    @Test
    void encodedKeysOfEveryColumnKindCountAsTheValuesDo() {
        Schema schema = new Schema(
                Types.NestedField.optional(1, "s", Types.StringType.get()),
                Types.NestedField.optional(2, "d", Types.DecimalType.of(12, 2)),
                Types.NestedField.optional(3, "day", Types.DateType.get()),
                Types.NestedField.optional(4, "at", Types.TimestampType.withZone()),
                Types.NestedField.optional(5, "local", Types.TimestampType.withoutZone()),
                Types.NestedField.optional(6, "u", Types.UUIDType.get()),
                Types.NestedField.optional(7, "b", Types.BinaryType.get()),
                Types.NestedField.optional(8, "f", Types.DoubleType.get()),
                Types.NestedField.optional(9, "flag", Types.BooleanType.get()),
                Types.NestedField.optional(10, "i", Types.IntegerType.get()));
        Random random = new Random(3);
        DistinctKeys keys = DistinctKeys.of(schema, new int[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
        assertThat(keys).isInstanceOf(DistinctKeys.EncodedKey.class);
        Set<List<Object>> expected = new HashSet<>();
        for (int i = 0; i < 5_000; i++) {
            Record record = GenericRecord.create(schema);
            record.set(0, pick(random, "a", "ab", ""));
            record.set(1, pick(random, new BigDecimal("1.00"), new BigDecimal("-1.00")));
            record.set(2, pick(random, LocalDate.of(2026, 12, 1), LocalDate.of(1970, 1, 1)));
            record.set(3, pick(random, OffsetDateTime.of(2026, 12, 1, 0, 0, 0, 0, ZoneOffset.UTC),
                    OffsetDateTime.of(2026, 12, 1, 0, 0, 0, 1_000, ZoneOffset.UTC)));
            record.set(4, pick(random, LocalDateTime.of(2026, 12, 1, 0, 0)));
            record.set(5, pick(random, new UUID(0, 1), new UUID(1, 0)));
            record.set(6, pick(random, ByteBuffer.wrap(new byte[] {1, 2}), ByteBuffer.wrap(new byte[] {(byte) 0xff})));
            record.set(7, pick(random, 0.5, -0.0, 0.0));
            record.set(8, pick(random, true, false));
            record.set(9, pick(random, 1, 256));
            keys.add(record);
            List<Object> values = new ArrayList<>();
            for (int c = 0; c < 10; c++) {
                Object value = record.get(c);
                values.add(value instanceof ByteBuffer buffer ? Arrays.toString(buffer.array()) : value);
            }
            expected.add(values);
        }
        assertThat(expected.size()).as("the records repeat keys and have many").isBetween(1_000, 4_999);
        assertThat(keys.count()).isEqualTo(expected.size());
    }

    private static Object pick(Random random, Object... values) {
        int i = random.nextInt(values.length + 1);
        return i == values.length ? null : values[i];
    }

    private static byte[] bytes(int i) {
        return ("key-" + i).getBytes(StandardCharsets.UTF_8);
    }
}

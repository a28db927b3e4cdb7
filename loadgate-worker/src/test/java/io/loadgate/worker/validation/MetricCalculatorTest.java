package io.loadgate.worker.validation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loadgate.worker.job.ValidationSpec;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class MetricCalculatorTest {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.optional(1, "k1", Types.IntegerType.get()),
            Types.NestedField.optional(2, "k2", Types.StringType.get()),
            Types.NestedField.optional(3, "amount", Types.DecimalType.of(10, 2)),
            Types.NestedField.optional(4, "n", Types.LongType.get()),
            Types.NestedField.optional(5, "name", Types.StringType.get()));

    @Test
    void computesEveryMetricWithTheSharedNamesAndFormats() {
        ValidationSpec spec = new ValidationSpec(List.of("amount", "N"), List.of("name", "amount"), List.of("name", "n"),
                List.of("amount", "name"), List.of("k1", "k2"));
        MetricCalculator calculator = new MetricCalculator(spec, SCHEMA);
        calculator.accept(record(1, "a", "10.50", 5L, "z"));
        calculator.accept(record(1, "a", "-0.50", null, "\uff5e"));
        calculator.accept(record(1, null, null, 7L, "\ud83d\ude00"));
        calculator.accept(record(1, null, "0.00", 1L, null));
        calculator.accept(record(2, "a", "1.00", 3L, "A"));

        assertThat(calculator.result().values()).containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
                Map.entry("COUNT", "5"),
                Map.entry("SUM:amount", "11"),
                Map.entry("SUM:N", "16"),
                Map.entry("MIN:name", "A"),
                Map.entry("MIN:amount", "-0.5"),
                // Code point order, as PostgreSQL's COLLATE "C": U+1F600 sorts after U+FF5E, unlike UTF-16 order.
                Map.entry("MAX:name", "\ud83d\ude00"),
                Map.entry("MAX:n", "7"),
                Map.entry("NULL_COUNT:amount", "1"),
                Map.entry("NULL_COUNT:name", "1"),
                // (1,a) twice and (1,null) twice: nulls in a key group together, as in SQL GROUP BY.
                Map.entry("DUPLICATE_KEYS", "2")));
    }

    @Test
    void calculatorsMergedFromPartsEqualOneCalculatorOverAllRecords() {
        ValidationSpec composite = new ValidationSpec(List.of("amount", "N"), List.of("name", "amount"), List.of("name", "n"),
                List.of("amount", "name"), List.of("k1", "k2"));
        ValidationSpec integerKey = new ValidationSpec(List.of("amount"), List.of("n"), List.of("name"), List.of("k1"), List.of("k1"));
        Random random = new Random(7);
        List<Record> records = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            records.add(record(random.nextInt(10) == 0 ? null : random.nextInt(3_000) - 1_000,
                    random.nextBoolean() ? null : "k" + random.nextInt(5),
                    random.nextInt(8) == 0 ? null : BigDecimal.valueOf(random.nextInt(200_000) - 100_000, 2).toPlainString(),
                    random.nextInt(6) == 0 ? null : random.nextLong(),
                    random.nextInt(9) == 0 ? null : new String(Character.toChars(0x41 + random.nextInt(0x1f600)))));
        }
        for (ValidationSpec spec : List.of(composite, integerKey)) {
            MetricCalculator whole = new MetricCalculator(spec, SCHEMA);
            records.forEach(whole::accept);
            MetricCalculator merged = new MetricCalculator(spec, SCHEMA);
            // Uneven parts, one of them empty, merged in an order other than the records'.
            List<List<Record>> parts = List.of(records.subList(3_000, 5_000), records.subList(0, 1),
                    records.subList(1, 1), records.subList(1, 3_000));
            for (List<Record> part : parts) {
                MetricCalculator calculator = new MetricCalculator(spec, SCHEMA);
                part.forEach(calculator::accept);
                merged.merge(calculator);
            }

            assertThat(merged.result()).as("merged metrics of %s", spec).isEqualTo(whole.result());
            assertThat(Long.parseLong(whole.result().get("DUPLICATE_KEYS"))).as("the data has duplicate keys").isPositive();
        }
    }

    @Test
    void calculatorsOfDifferentSpecsDoNotMerge() {
        MetricCalculator one = new MetricCalculator(new ValidationSpec(List.of("amount"), null, null, null, null), SCHEMA);
        MetricCalculator other = new MetricCalculator(new ValidationSpec(List.of("n"), null, null, null, null), SCHEMA);

        assertThatThrownBy(() -> one.merge(other)).hasMessage("cannot merge metrics of another spec or schema");
    }

    @Test
    void noRowsGiveZeroCountsAndNullExtremes() {
        ValidationSpec spec = new ValidationSpec(List.of("amount"), List.of("name"), null, List.of("name"), List.of("k1"));

        assertThat(new MetricCalculator(spec, SCHEMA).result().values()).containsExactlyInAnyOrderEntriesOf(Map.of(
                "COUNT", "0", "SUM:amount", "NULL", "MIN:name", "NULL", "NULL_COUNT:name", "0", "DUPLICATE_KEYS", "0"));
    }

    @Test
    void aColumnTheDataDoesNotHaveIsRejected() {
        assertThatThrownBy(() -> new MetricCalculator(new ValidationSpec(List.of("nope"), null, null, null, null), SCHEMA))
                .hasMessage("validation names column nope, which the data does not have");
    }

    @Test
    void formatsValuesOneWay() {
        assertThat(MetricValues.format(new BigDecimal("1.2500"))).isEqualTo("1.25");
        assertThat(MetricValues.format(new BigDecimal("1.2E+3"))).isEqualTo("1200");
        assertThat(MetricValues.format(new BigDecimal("0.000"))).isEqualTo("0");
        assertThat(MetricValues.format(42L)).isEqualTo("42");
        assertThat(MetricValues.format(LocalDate.of(2024, 2, 29))).isEqualTo("2024-02-29");
        assertThat(MetricValues.format(LocalDateTime.of(2024, 2, 29, 13, 5, 0, 120_000_000))).isEqualTo("2024-02-29T13:05:00.120");
        assertThat(MetricValues.format(OffsetDateTime.of(2024, 2, 29, 13, 5, 0, 0, ZoneOffset.ofHours(2)))).isEqualTo("2024-02-29T11:05:00Z");
        assertThat(MetricValues.format(ByteBuffer.wrap(new byte[] {0, (byte) 0xff}))).isEqualTo("00ff");
        assertThat(MetricValues.format(null)).isEqualTo("NULL");
        assertThat(MetricValues.format(2.5e10)).isEqualTo("25000000000");
        assertThat(MetricValues.format(Double.NaN)).isEqualTo("NaN");
        assertThat(MetricValues.format(Float.NEGATIVE_INFINITY)).isEqualTo("-Infinity");
    }

    @Test
    void metricSetsListTheirDifferences() {
        MetricSet source = new MetricSet(Map.of("COUNT", "3", "SUM:a", "1.5"));
        MetricSet staged = new MetricSet(Map.of("COUNT", "3", "SUM:a", "1.25", "MIN:a", "0"));

        assertThat(source.differences(source)).isEmpty();
        assertThat(source.differences(staged)).containsExactly("MIN:a: this=null other=0", "SUM:a: this=1.5 other=1.25");
    }

    @Test
    void anIntegerSumPastTheRangeOfLongStaysExact() {
        ValidationSpec spec = new ValidationSpec(List.of("n"), null, null, null, List.of("n"));
        MetricCalculator calculator = new MetricCalculator(spec, SCHEMA);
        calculator.accept(record(1, "a", null, Long.MAX_VALUE, null));
        calculator.accept(record(1, "a", null, Long.MAX_VALUE, null));
        calculator.accept(record(1, "a", null, 2L, null));
        calculator.accept(record(1, "a", null, Long.MIN_VALUE, null));

        assertThat(calculator.result().values()).containsEntry("SUM:n", new BigDecimal(Long.MAX_VALUE)
                .add(new BigDecimal(Long.MAX_VALUE)).add(BigDecimal.valueOf(2)).add(new BigDecimal(Long.MIN_VALUE))
                .toPlainString()).containsEntry("DUPLICATE_KEYS", "1");
    }

    private static Record record(Integer k1, String k2, String amount, Long n, String name) {
        GenericRecord record = GenericRecord.create(SCHEMA);
        record.set(0, k1);
        record.set(1, k2);
        record.set(2, amount == null ? null : new BigDecimal(amount));
        record.set(3, n);
        record.set(4, name);
        return record;
    }
}

package io.loadgate.worker.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

class PartitionPlannerTest {
    private static final BigInteger LIMIT = BigInteger.TEN.pow(38).subtract(BigInteger.ONE);

    @Property(tries = 500)
    void everyValueIsInExactlyOnePartition(@ForAll("bounds") BigInteger a, @ForAll("bounds") BigInteger b,
                                           @ForAll @IntRange(min = 1, max = 64) int partitions, @ForAll boolean hasNulls,
                                           @ForAll("fractions") List<Double> probes) {
        BigInteger min = a.min(b);
        BigInteger max = a.max(b);
        List<PartitionBounds> plan = PartitionPlanner.plan(min, max, partitions, hasNulls);

        for (double fraction : probes) {
            BigInteger value = min.add(new java.math.BigDecimal(max.subtract(min)).multiply(java.math.BigDecimal.valueOf(fraction)).toBigInteger());
            assertThat(plan.stream().filter(p -> p.contains(value)).count()).as("partitions holding %s", value).isEqualTo(1);
        }
        for (BigInteger edge : List.of(min, max)) {
            assertThat(plan.stream().filter(p -> p.contains(edge)).count()).as("partitions holding %s", edge).isEqualTo(1);
        }
        assertThat(plan.stream().noneMatch(p -> p.contains(min.subtract(BigInteger.ONE)) || p.contains(max.add(BigInteger.ONE))))
                .as("nothing outside [min, max]").isTrue();
        assertThat(plan.stream().filter(p -> p.contains(null)).count()).as("partitions holding null").isEqualTo(hasNulls ? 1 : 0);
    }

    @Property(tries = 500)
    void rangesAreContiguousHalfOpenAndOnlyTheLastIsInclusive(@ForAll("bounds") BigInteger a, @ForAll("bounds") BigInteger b,
                                                              @ForAll @IntRange(min = 1, max = 64) int partitions,
                                                              @ForAll boolean hasNulls) {
        BigInteger min = a.min(b);
        BigInteger max = a.max(b);
        List<PartitionBounds> plan = PartitionPlanner.plan(min, max, partitions, hasNulls);
        List<PartitionBounds> ranges = plan.stream().filter(p -> !p.isNullPartition()).toList();

        assertThat(ranges).isNotEmpty().hasSizeLessThanOrEqualTo(partitions);
        assertThat(ranges.get(0).lowerBound()).isEqualTo(min);
        assertThat(ranges.get(ranges.size() - 1).upperBound()).isEqualTo(max);
        for (int i = 0; i < ranges.size(); i++) {
            PartitionBounds range = ranges.get(i);
            boolean last = i == ranges.size() - 1;
            assertThat(range.partitionId()).isEqualTo(String.format("%04d", i));
            assertThat(range.upperInclusive()).as("upperInclusive of %s", range.partitionId()).isEqualTo(last);
            assertThat(range.lowerBound()).as("range %s is not empty", range.partitionId())
                    .matches(lower -> last ? lower.compareTo(range.upperBound()) <= 0 : lower.compareTo(range.upperBound()) < 0);
            if (!last) {
                assertThat(ranges.get(i + 1).lowerBound()).as("range %s ends where the next starts", range.partitionId())
                        .isEqualTo(range.upperBound());
            }
            Partition manifestEntry = range.withExpectedRowCount(0);
            assertThat(manifestEntry.lowerBound()).matches("-?[0-9]{1,38}");
            assertThat(manifestEntry.upperBound()).matches("-?[0-9]{1,38}");
        }
        assertThat(plan.get(plan.size() - 1).isNullPartition()).isEqualTo(hasNulls);
    }

    @Example
    void splitsLikeSqoop() {
        assertThat(PartitionPlanner.plan(BigInteger.ONE, BigInteger.valueOf(100), 4, true)).containsExactly(
                new PartitionBounds("0000", BigInteger.valueOf(1), BigInteger.valueOf(26), false),
                new PartitionBounds("0001", BigInteger.valueOf(26), BigInteger.valueOf(51), false),
                new PartitionBounds("0002", BigInteger.valueOf(51), BigInteger.valueOf(76), false),
                new PartitionBounds("0003", BigInteger.valueOf(76), BigInteger.valueOf(100), true),
                PartitionBounds.nullPartition());
    }

    @Example
    void neverMoreRangesThanValues() {
        assertThat(PartitionPlanner.plan(BigInteger.valueOf(7), BigInteger.valueOf(8), 10, false)).containsExactly(
                new PartitionBounds("0000", BigInteger.valueOf(7), BigInteger.valueOf(8), false),
                new PartitionBounds("0001", BigInteger.valueOf(8), BigInteger.valueOf(8), true));
    }

    @Example
    void onlyNullsGiveOnlyTheNullPartitionAndAnEmptySourceOneEmptyRange() {
        assertThat(PartitionPlanner.plan(null, null, 4, true)).containsExactly(PartitionBounds.nullPartition());
        assertThat(PartitionPlanner.plan(null, null, 4, false)).containsExactly(
                new PartitionBounds("0000", BigInteger.ZERO, BigInteger.ZERO, true));
    }

    @Example
    void rejectsNonsense() {
        assertThatThrownBy(() -> PartitionPlanner.plan(BigInteger.TEN, BigInteger.ONE, 4, false)).hasMessage("min 10 is greater than max 1");
        assertThatThrownBy(() -> PartitionPlanner.plan(BigInteger.ONE, BigInteger.TEN, 0, false)).hasMessage("partitions must be positive, got 0");
    }

    @Provide
    Arbitrary<BigInteger> bounds() {
        return Arbitraries.oneOf(
                Arbitraries.bigIntegers().between(LIMIT.negate(), LIMIT),
                Arbitraries.bigIntegers().between(BigInteger.valueOf(-1000), BigInteger.valueOf(1000)),
                Arbitraries.longs().map(BigInteger::valueOf));
    }

    @Provide
    Arbitrary<List<Double>> fractions() {
        return Arbitraries.doubles().between(0, 1).list().ofMinSize(1).ofMaxSize(20);
    }
}

package io.loadgate.worker.source;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits {@code [min, max]} of an integer split column into half-open ranges, as Sqoop users expect: range
 * {@code i} starts at {@code min + floor(i * span / n)} where {@code span = max - min + 1}, each range ends where
 * the next starts, and the last one ends at {@code max} inclusive. A NULL partition follows when the column has
 * nulls. Integer arithmetic only, so bounds are exact for any 38-digit value and every row lands in exactly one
 * partition.
 */
public final class PartitionPlanner {
    private PartitionPlanner() {
    }

    /**
     * @param min smallest non-null split value, null when there is none
     * @param max largest non-null split value, null when there is none
     * @param partitions wanted range count; fewer are made when the range has fewer distinct values
     * @param hasNulls whether some row has a null split value
     */
    public static List<PartitionBounds> plan(BigInteger min, BigInteger max, int partitions, boolean hasNulls) {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be positive, got " + partitions);
        }
        if ((min == null) != (max == null)) {
            throw new IllegalArgumentException("min and max are both null or both set");
        }
        List<PartitionBounds> plan = new ArrayList<>();
        if (min != null) {
            if (min.compareTo(max) > 0) {
                throw new IllegalArgumentException("min " + min + " is greater than max " + max);
            }
            BigInteger span = max.subtract(min).add(BigInteger.ONE);
            // Never more ranges than values: an empty range would be a partition no row can reach.
            int count = span.compareTo(BigInteger.valueOf(partitions)) < 0 ? span.intValueExact() : partitions;
            BigInteger n = BigInteger.valueOf(count);
            for (int i = 0; i < count; i++) {
                BigInteger lower = min.add(span.multiply(BigInteger.valueOf(i)).divide(n));
                boolean last = i == count - 1;
                BigInteger upper = last ? max : min.add(span.multiply(BigInteger.valueOf(i + 1)).divide(n));
                plan.add(new PartitionBounds(rangeId(i), lower, upper, last));
            }
        } else if (!hasNulls) {
            // An empty source still needs one partition: a manifest holds 1..10,000 of them.
            plan.add(new PartitionBounds(rangeId(0), BigInteger.ZERO, BigInteger.ZERO, true));
        }
        if (hasNulls) {
            plan.add(PartitionBounds.nullPartition());
        }
        return List.copyOf(plan);
    }

    private static String rangeId(int index) {
        return String.format("%04d", index);
    }
}

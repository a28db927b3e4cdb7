package io.loadgate.worker.source;

import static java.util.Objects.requireNonNull;

import java.math.BigInteger;

/** A planned partition before its rows are counted; {@link #withExpectedRowCount} makes the manifest entry. */
public record PartitionBounds(String partitionId, BigInteger lowerBound, BigInteger upperBound, boolean upperInclusive) {
    public PartitionBounds {
        requireNonNull(partitionId, "partitionId is null");
        // Fields are not assigned yet inside a compact constructor: test the parameter, not isNullPartition().
        boolean nullPartition = Partition.NULL_PARTITION_ID.equals(partitionId);
        if (nullPartition != (lowerBound == null && upperBound == null) || (lowerBound == null) != (upperBound == null)) {
            throw new IllegalArgumentException("only partition NULL has no bounds: " + partitionId);
        }
    }

    public static PartitionBounds nullPartition() {
        return new PartitionBounds(Partition.NULL_PARTITION_ID, null, null, false);
    }

    public boolean isNullPartition() {
        return Partition.NULL_PARTITION_ID.equals(partitionId);
    }

    /** Whether a row whose split column holds {@code value} (null for SQL NULL) belongs here. */
    public boolean contains(BigInteger value) {
        if (value == null || isNullPartition()) {
            return value == null && isNullPartition();
        }
        int upper = value.compareTo(upperBound);
        return value.compareTo(lowerBound) >= 0 && (upper < 0 || (upperInclusive && upper == 0));
    }

    public Partition withExpectedRowCount(long expectedRowCount) {
        return new Partition(partitionId, lowerBound == null ? null : lowerBound.toString(),
                upperBound == null ? null : upperBound.toString(), upperInclusive, isNullPartition(), expectedRowCount);
    }
}

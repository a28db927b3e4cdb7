package io.loadgate.worker.source;

import static java.util.Objects.requireNonNull;

import java.util.regex.Pattern;

/**
 * One partition of a manifest, with the fields the ledger's manifest takes. A range partition covers
 * {@code [lowerBound, upperBound)}, or {@code [lowerBound, upperBound]} when {@code upperInclusive}; the NULL
 * partition holds the rows whose split column is null and has no bounds. Bounds are integers as decimal strings. A
 * file partition has no bounds but a {@code sourceRef}: the files it reads, as its source wrote them.
 */
public record Partition(String partitionId, String lowerBound, String upperBound, boolean upperInclusive,
                        boolean isNullPartition, long expectedRowCount, String sourceRef) {
    public static final String NULL_PARTITION_ID = "NULL";
    private static final Pattern ID = Pattern.compile("[0-9]{4}|NULL");
    private static final Pattern BOUND = Pattern.compile("-?[0-9]{1,38}");

    public Partition {
        requireNonNull(partitionId, "partitionId is null");
        if (!ID.matcher(partitionId).matches()) {
            throw new IllegalArgumentException("partitionId must match ^([0-9]{4}|NULL)$, got " + partitionId);
        }
        if (isNullPartition != NULL_PARTITION_ID.equals(partitionId)) {
            throw new IllegalArgumentException("only partition NULL is the null partition, got " + partitionId);
        }
        if (sourceRef != null) {
            if (isNullPartition || lowerBound != null || upperBound != null || upperInclusive) {
                throw new IllegalArgumentException("a file partition has a sourceRef and no bounds: " + partitionId);
            }
        } else if (isNullPartition) {
            if (lowerBound != null || upperBound != null || upperInclusive) {
                throw new IllegalArgumentException("the NULL partition has no bounds");
            }
        } else {
            requireBound("lowerBound", lowerBound);
            requireBound("upperBound", upperBound);
        }
        if (expectedRowCount < 0) {
            throw new IllegalArgumentException("expectedRowCount is negative: " + expectedRowCount);
        }
    }

    /** A range or NULL partition. */
    public Partition(String partitionId, String lowerBound, String upperBound, boolean upperInclusive,
                     boolean isNullPartition, long expectedRowCount) {
        this(partitionId, lowerBound, upperBound, upperInclusive, isNullPartition, expectedRowCount, null);
    }

    /** A partition of a file source: the files {@code sourceRef} lists. */
    public static Partition ofFiles(String partitionId, String sourceRef, long expectedRowCount) {
        return new Partition(partitionId, null, null, false, false, expectedRowCount,
                requireNonNull(sourceRef, "sourceRef is null"));
    }

    private static void requireBound(String name, String bound) {
        if (bound == null || !BOUND.matcher(bound).matches()) {
            throw new IllegalArgumentException(name + " must match ^-?[0-9]{1,38}$, got " + bound);
        }
    }
}

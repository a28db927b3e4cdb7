package io.loadgate.ledger.run;

import io.loadgate.ledger.run.Manifest.Partition;
import io.loadgate.ledger.run.ManifestViolation.Code;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The thirteen manifest invariants. It reports every violation, not the first, so that the planner's author
 * sees the whole picture from one failed run.
 */
public final class ManifestValidator {
    private ManifestValidator() {
    }

    public static List<ManifestViolation> validate(Manifest manifest, boolean allowEmptySource) {
        List<ManifestViolation> violations = new ArrayList<>();
        List<Partition> partitions = manifest.partitions();

        Set<String> seen = new HashSet<>();
        for (Partition p : partitions) {
            if (!seen.add(p.partitionId())) {
                violations.add(new ManifestViolation(Code.DUPLICATE_PARTITION_ID,
                        "partition id " + p.partitionId() + " appears more than once", p.partitionId()));
            }
        }
        if (manifest.plannedPartitionCount() != partitions.size()) {
            violations.add(new ManifestViolation(Code.PARTITION_COUNT_MISMATCH, "plannedPartitionCount is "
                    + manifest.plannedPartitionCount() + " but " + partitions.size() + " partitions were sent", null));
        }
        long expectedSum = partitions.stream().mapToLong(Partition::expectedRowCount).sum();
        if (expectedSum != manifest.sourceCount()) {
            violations.add(new ManifestViolation(Code.EXPECTED_SUM_MISMATCH, "partitions expect " + expectedSum
                    + " rows in all but sourceCount is " + manifest.sourceCount(), null));
        }
        if (manifest.sourceCount() == 0 && !allowEmptySource) {
            violations.add(new ManifestViolation(Code.EMPTY_SOURCE_BLOCKED,
                    "the source is empty and the run does not allow an empty source", null));
        }
        checkNullPartition(manifest, violations);
        checkRanges(manifest, violations);
        return violations;
    }

    private static void checkNullPartition(Manifest manifest, List<ManifestViolation> violations) {
        List<Partition> nullPartitions = new ArrayList<>();
        for (Partition p : manifest.partitions()) {
            boolean namedNull = p.partitionId().equals("NULL");
            if (p.isNullPartition() || namedNull) {
                if (p.isNullPartition() != namedNull || p.lowerBound() != null || p.upperBound() != null
                        || p.upperInclusive() || p.sourceRef() != null) {
                    violations.add(new ManifestViolation(Code.INVALID_NULL_PARTITION, "a NULL partition has id NULL,"
                            + " isNullPartition=true, no bounds and no sourceRef", p.partitionId()));
                }
                if (p.isNullPartition()) {
                    nullPartitions.add(p);
                }
            }
        }
        if (nullPartitions.size() > 1) {
            violations.add(new ManifestViolation(Code.MULTIPLE_NULL_PARTITIONS,
                    nullPartitions.size() + " partitions claim the NULL split values", null));
        }
        if (nullPartitions.isEmpty()) {
            if (manifest.sourceNullSplitCount() > 0) {
                violations.add(new ManifestViolation(Code.NULL_ROWS_WITHOUT_NULL_PARTITION, "the source has "
                        + manifest.sourceNullSplitCount() + " rows with a NULL split value and no NULL partition", null));
            }
        } else {
            long nullExpected = nullPartitions.stream().mapToLong(Partition::expectedRowCount).sum();
            if (nullExpected != manifest.sourceNullSplitCount()) {
                violations.add(new ManifestViolation(Code.NULL_COUNT_MISMATCH, "the NULL partition expects "
                        + nullExpected + " rows but sourceNullSplitCount is " + manifest.sourceNullSplitCount(), "NULL"));
            }
        }
    }

    private static void checkRanges(Manifest manifest, List<ManifestViolation> violations) {
        List<Partition> ranges = new ArrayList<>();
        for (Partition p : manifest.partitions()) {
            if (!p.isRange()) {
                continue;
            }
            if (p.lowerBound() == null || p.upperBound() == null) {
                violations.add(new ManifestViolation(Code.INVALID_BOUNDS,
                        "a range partition needs lowerBound and upperBound", p.partitionId()));
            } else if (p.lowerBound().compareTo(p.upperBound()) > 0
                    || (p.lowerBound().equals(p.upperBound()) && !p.upperInclusive())) {
                violations.add(new ManifestViolation(Code.INVALID_BOUNDS, "range [" + p.lowerBound() + ", "
                        + p.upperBound() + (p.upperInclusive() ? "]" : ")") + " is empty or reversed", p.partitionId()));
            } else {
                ranges.add(p);
            }
        }
        if (ranges.isEmpty()) {
            return;
        }
        ranges.sort(Comparator.comparing(Partition::lowerBound).thenComparing(Partition::upperBound));
        Partition highest = ranges.get(0);
        for (Partition p : ranges) {
            if (p.upperBound().compareTo(highest.upperBound()) > 0) {
                highest = p;
            }
        }
        for (Partition p : ranges) {
            if (p.upperInclusive() && p != highest) {
                violations.add(new ManifestViolation(Code.UPPER_INCLUSIVE_INVALID,
                        "only the highest range may include its upper bound", p.partitionId()));
            }
        }
        for (int i = 1; i < ranges.size(); i++) {
            Partition previous = ranges.get(i - 1);
            Partition current = ranges.get(i);
            int cmp = current.lowerBound().compareTo(previous.upperBound());
            if (cmp != 0) {
                violations.add(new ManifestViolation(Code.RANGE_GAP_OR_OVERLAP, (cmp > 0 ? "gap" : "overlap")
                        + " between " + previous.partitionId() + " (upper " + previous.upperBound() + ") and "
                        + current.partitionId() + " (lower " + current.lowerBound() + ")", current.partitionId()));
            }
        }
        BigInteger lowest = ranges.get(0).lowerBound();
        boolean emptySource = manifest.sourceCount() == 0;
        if (manifest.sourceMinSplit() == null ? !emptySource : manifest.sourceMinSplit().compareTo(lowest) != 0) {
            violations.add(new ManifestViolation(Code.MIN_SPLIT_MISMATCH, "the lowest lowerBound is " + lowest
                    + " but sourceMinSplit is " + manifest.sourceMinSplit(), ranges.get(0).partitionId()));
        }
        if (manifest.sourceMaxSplit() == null ? !emptySource
                : manifest.sourceMaxSplit().compareTo(highest.upperBound()) != 0) {
            violations.add(new ManifestViolation(Code.MAX_SPLIT_MISMATCH, "the highest upperBound is "
                    + highest.upperBound() + " but sourceMaxSplit is " + manifest.sourceMaxSplit(),
                    highest.partitionId()));
        }
    }
}

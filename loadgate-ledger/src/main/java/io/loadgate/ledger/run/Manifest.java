package io.loadgate.ledger.run;

import static java.util.Objects.requireNonNull;

import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the planner saw at the snapshot: the source's totals and the partitions it will be read in.
 * {@code sourceMetricsPending} (an extension): the source's metrics are measured at the same snapshot while the
 * partitions extract and come later ({@link SourceMetricsLater}); {@code sourceMetrics} is then empty.
 */
public record Manifest(
        BigInteger snapshotScn,
        String snapshotRef,
        long sourceCount,
        long sourceNullSplitCount,
        BigInteger sourceMinSplit,
        BigInteger sourceMaxSplit,
        int plannedPartitionCount,
        Map<String, String> sourceMetrics,
        String sourceMetricsVersion,
        List<Partition> partitions,
        boolean sourceMetricsPending) {

    public Manifest {
        sourceMetrics = Map.copyOf(requireNonNull(sourceMetrics, "sourceMetrics is null"));
        partitions = List.copyOf(requireNonNull(partitions, "partitions is null"));
        if (sourceMetricsPending && !sourceMetrics.isEmpty()) {
            throw new IllegalArgumentException("a manifest whose source metrics are pending carries none");
        }
    }

    /** The contract's manifest, carrying its source metrics. */
    public Manifest(BigInteger snapshotScn, String snapshotRef, long sourceCount, long sourceNullSplitCount,
                    BigInteger sourceMinSplit, BigInteger sourceMaxSplit, int plannedPartitionCount,
                    Map<String, String> sourceMetrics, String sourceMetricsVersion, List<Partition> partitions) {
        this(snapshotScn, snapshotRef, sourceCount, sourceNullSplitCount, sourceMinSplit, sourceMaxSplit,
                plannedPartitionCount, sourceMetrics, sourceMetricsVersion, partitions, false);
    }

    /** One planned partition: a half-open range of the split column, the NULL partition, or a file source. */
    public record Partition(
            String partitionId,
            BigInteger lowerBound,
            BigInteger upperBound,
            boolean upperInclusive,
            boolean isNullPartition,
            long expectedRowCount,
            String sourceRef) {

        public Partition {
            requireNonNull(partitionId, "partitionId is null");
        }

        public boolean isRange() {
            return !isNullPartition && sourceRef == null;
        }

        /** The partition as the API shows it back: decimal bounds as strings, absent values left out. */
        public Map<String, Object> toWire() {
            Map<String, Object> wire = new LinkedHashMap<>();
            wire.put("partitionId", partitionId);
            if (lowerBound != null) {
                wire.put("lowerBound", lowerBound.toString());
            }
            if (upperBound != null) {
                wire.put("upperBound", upperBound.toString());
            }
            wire.put("upperInclusive", upperInclusive);
            wire.put("isNullPartition", isNullPartition);
            wire.put("expectedRowCount", expectedRowCount);
            if (sourceRef != null) {
                wire.put("sourceRef", sourceRef);
            }
            return wire;
        }
    }

    /** The manifest in a canonical form, stored so that an identical resend can be recognised. */
    public Map<String, Object> toWire() {
        Map<String, Object> wire = new LinkedHashMap<>();
        wire.put("snapshotScn", snapshotScn == null ? null : snapshotScn.toString());
        wire.put("snapshotRef", snapshotRef);
        wire.put("sourceCount", sourceCount);
        wire.put("sourceNullSplitCount", sourceNullSplitCount);
        wire.put("sourceMinSplit", sourceMinSplit == null ? null : sourceMinSplit.toString());
        wire.put("sourceMaxSplit", sourceMaxSplit == null ? null : sourceMaxSplit.toString());
        wire.put("plannedPartitionCount", plannedPartitionCount);
        wire.put("sourceMetrics", sourceMetrics);
        wire.put("sourceMetricsVersion", sourceMetricsVersion);
        wire.put("partitions", partitions.stream().map(Partition::toWire).toList());
        // Only when true, so that the stored canonical form of a contract manifest is what it always was.
        if (sourceMetricsPending) {
            wire.put("sourceMetricsPending", true);
        }
        return wire;
    }
}

package io.loadgate.ledger.run;

import static java.util.Objects.requireNonNull;

import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What the planner saw at the snapshot: the source's totals and the partitions it will be read in. */
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
        List<Partition> partitions) {

    public Manifest {
        sourceMetrics = Map.copyOf(requireNonNull(sourceMetrics, "sourceMetrics is null"));
        partitions = List.copyOf(requireNonNull(partitions, "partitions is null"));
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
        return wire;
    }
}

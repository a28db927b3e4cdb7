package io.loadgate.spark;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.RunId;
import io.loadgate.worker.source.Partition;
import java.io.Serializable;

/**
 * One partition of a run as a Spark task carries it: the manifest's partition and the snapshot to read it at. A
 * database partition is its bounds; a file partition its {@code sourceRef}, the files the driver listed for it (the
 * listing is a file source's snapshot), so the task reads exactly those and lists nothing itself.
 */
public record PartitionTask(RunId runId, String snapshotRef, String partitionId, String lowerBound, String upperBound,
                            boolean upperInclusive, boolean isNullPartition, long expectedRowCount, String sourceRef)
        implements Serializable {
    public PartitionTask {
        requireNonNull(runId, "runId is null");
        requireNonNull(snapshotRef, "snapshotRef is null");
        requireNonNull(partitionId, "partitionId is null");
    }

    static PartitionTask of(RunId runId, String snapshotRef, Partition p) {
        return new PartitionTask(runId, snapshotRef, p.partitionId(), p.lowerBound(), p.upperBound(),
                p.upperInclusive(), p.isNullPartition(), p.expectedRowCount(), p.sourceRef());
    }

    Partition partition() {
        return new Partition(partitionId, lowerBound, upperBound, upperInclusive, isNullPartition, expectedRowCount,
                sourceRef);
    }
}

package io.loadgate.spark;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.RunId;
import io.loadgate.worker.source.Partition;
import java.io.Serializable;

/** One partition of a run as a Spark task carries it: the manifest's partition and the snapshot to read it at. */
public record PartitionTask(RunId runId, String snapshotRef, String partitionId, String lowerBound, String upperBound,
                            boolean upperInclusive, boolean isNullPartition, long expectedRowCount)
        implements Serializable {
    public PartitionTask {
        requireNonNull(runId, "runId is null");
        requireNonNull(snapshotRef, "snapshotRef is null");
        requireNonNull(partitionId, "partitionId is null");
    }

    static PartitionTask of(RunId runId, String snapshotRef, Partition p) {
        return new PartitionTask(runId, snapshotRef, p.partitionId(), p.lowerBound(), p.upperBound(),
                p.upperInclusive(), p.isNullPartition(), p.expectedRowCount());
    }

    Partition partition() {
        return new Partition(partitionId, lowerBound, upperBound, upperInclusive, isNullPartition, expectedRowCount);
    }
}

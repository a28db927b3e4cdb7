package io.loadgate.spark;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.PartitionStatus;
import io.loadgate.api.RunStatus;
import java.io.Serializable;

/**
 * What one Spark attempt did with its partition, as the task returns it to the driver. Only an {@link Role#OWNER}
 * wrote the files the ledger counts; Spark may report a {@link Role#STANDBY} attempt as the task's successful one
 * (it finished first), which changes nothing: the ledger, not Spark, says whose files are published.
 */
public record PartitionResult(String partitionId, TaskAttempt attempt, String node, Role role,
                              PartitionStatus partitionStatus, RunStatus runStatus) implements Serializable {
    public PartitionResult {
        requireNonNull(partitionId, "partitionId is null");
        requireNonNull(attempt, "attempt is null");
        requireNonNull(node, "node is null");
        requireNonNull(role, "role is null");
    }

    public enum Role {
        /** This attempt's claim extracted the partition and its chunks are the committed ones. */
        OWNER,
        /** Another attempt's claim did; this one waited for it and wrote nothing that counts. */
        STANDBY,
        /** The partition failed (reported by whichever attempt owned it); the run has failed or will. */
        FAILED,
        /** The run left EXTRACTING (failed, cancelled) before the partition was done. */
        RUN_ENDED
    }
}

package io.loadgate.ledger.partition;

import static java.util.Objects.requireNonNull;

import java.util.UUID;

/** A worker's report that it could not extract its partition. */
public record PartitionFailure(UUID claimToken, String errorStage, String errorClass, String errorCode,
                               String message, Integer attempt) {
    public PartitionFailure {
        requireNonNull(claimToken, "claimToken is null");
    }

    /** The snapshot the run reads at is gone: re-reading would see another point in time, so the run fails. */
    boolean isSnapshotLoss() {
        return "SNAPSHOT".equals(errorClass) || "ORA-01555".equals(errorCode) || "ORA-08180".equals(errorCode);
    }

    boolean isTransient() {
        return "TRANSIENT".equals(errorClass);
    }
}

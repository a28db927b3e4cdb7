package io.loadgate.api;

/** The steps the ledger asks an executor to run next; a worker leases the ones it can execute. */
public enum DispatchType {
    EXTRACT_PARTITION,
    VALIDATE_RUN,
    PUBLISH_RUN,
    VALIDATE_TARGET,
    REISSUE_PARTITION,
    /** Settle a PUBLISH_UNKNOWN run by probing the target (extension; created by the sweeper, pull only). */
    PROBE_PUBLISH;

    /** Push delivery (executor "http", a NiFi flow) knows only these two; the other steps are pull-only. */
    public boolean isPushed() {
        return this == VALIDATE_RUN || this == REISSUE_PARTITION;
    }

    /** The steps that extract one partition: the first attempt and a reissued one. */
    public boolean isPartitionStep() {
        return this == EXTRACT_PARTITION || this == REISSUE_PARTITION;
    }
}

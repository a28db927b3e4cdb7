package io.loadgate.api;

/** The steps the ledger asks an executor to run next; a worker leases the ones it can execute. */
public enum DispatchType {
    EXTRACT_PARTITION,
    VALIDATE_RUN,
    PUBLISH_RUN,
    VALIDATE_TARGET,
    REISSUE_PARTITION
}

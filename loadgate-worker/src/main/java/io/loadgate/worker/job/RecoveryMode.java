package io.loadgate.worker.job;

/** What the ledger does with a partition whose worker went silent: fail the run, or reissue the partition. */
public enum RecoveryMode {
    FAIL,
    REISSUE
}

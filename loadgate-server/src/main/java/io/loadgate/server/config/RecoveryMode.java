package io.loadgate.server.config;

/** What the sweeper does with a RUNNING partition whose worker went silent for {@code recovery.stale}. */
public enum RecoveryMode {
    /** Time the run out: nothing is extracted twice, an operator starts a new run. */
    FAIL,
    /** Hand the partition to another worker with the same snapshot, up to {@code recovery.max_attempts}. */
    REISSUE
}

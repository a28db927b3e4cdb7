package io.loadgate.worker.job;

/**
 * The job's recovery section. A job that names no mode leaves the choice to the ledger's {@code recovery.mode};
 * one that names it carries it on each of its runs.
 */
public record RecoverySpec(RecoveryMode mode) {
    public static final RecoverySpec DEFAULT = new RecoverySpec(null);
}

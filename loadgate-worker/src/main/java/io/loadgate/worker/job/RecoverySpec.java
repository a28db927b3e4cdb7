package io.loadgate.worker.job;

/** The job's recovery section; only the mode for now. */
public record RecoverySpec(RecoveryMode mode) {
    public static final RecoverySpec DEFAULT = new RecoverySpec(null);

    public RecoverySpec {
        mode = mode == null ? RecoveryMode.FAIL : mode;
    }
}

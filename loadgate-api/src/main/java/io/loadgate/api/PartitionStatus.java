package io.loadgate.api;

/** A partition's state as the ledger reports it. */
public enum PartitionStatus {
    PENDING,
    RUNNING,
    SUCCESS,
    FAILED,
    RETRY,
    TIMED_OUT;

    public boolean isFinished() {
        return switch (this) {
            case SUCCESS, FAILED, TIMED_OUT -> true;
            case PENDING, RUNNING, RETRY -> false;
        };
    }
}

package io.loadgate.api;

/** A run's state as the ledger reports it (contract: "Run states"). */
public enum RunStatus {
    CREATED,
    EXTRACTING,
    EXTRACTED_VALIDATED,
    STAGE_VALIDATING,
    STAGING_VALIDATED,
    PUBLISHING,
    PUBLISHED,
    PUBLISH_UNKNOWN,
    SUCCESS,
    FAILED_MANIFEST,
    FAILED_EXTRACT,
    FAILED_SNAPSHOT_EXPIRED,
    FAILED_STAGE_VALIDATION,
    FAILED_PUBLISH,
    FAILED_TARGET_VALIDATION,
    TIMED_OUT,
    CANCELLED;

    /** An active run blocks a new run for the same job key and business key. */
    public boolean isActive() {
        return switch (this) {
            case CREATED, EXTRACTING, EXTRACTED_VALIDATED, STAGE_VALIDATING, STAGING_VALIDATED, PUBLISHING,
                    PUBLISHED, PUBLISH_UNKNOWN -> true;
            case SUCCESS, FAILED_MANIFEST, FAILED_EXTRACT, FAILED_SNAPSHOT_EXPIRED, FAILED_STAGE_VALIDATION,
                    FAILED_PUBLISH, FAILED_TARGET_VALIDATION, TIMED_OUT, CANCELLED -> false;
        };
    }

    public boolean isTerminal() {
        return !isActive();
    }

    public boolean isFailure() {
        return isTerminal() && this != SUCCESS;
    }
}

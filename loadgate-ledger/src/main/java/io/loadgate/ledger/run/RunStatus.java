package io.loadgate.ledger.run;

/** The states of a run. The active ones block a second run for the same job and business key. */
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

    public static RunStatus parse(String text) {
        try {
            return valueOf(text);
        } catch (IllegalArgumentException e) {
            throw new io.loadgate.ledger.LedgerException.Invalid("REQUEST_INVALID", "unknown run status: " + text);
        }
    }
}

package io.loadgate.cli;

import io.loadgate.api.RunStatus;

/** The exit code of {@code loadgate run} and {@code loadgate demo}: 0 only for SUCCESS, one code per failure class. */
final class RunOutcome {
    /** The job already has an active run for the business key (or one whose publish is in doubt). */
    static final int ACTIVE_RUN_EXISTS = 4;
    /** The source did not answer (down, starting, out of connections): unlike 2, worth retrying as it is. */
    static final int SOURCE_UNAVAILABLE = 5;

    private RunOutcome() {
    }

    static int exitCode(RunStatus status) {
        return switch (status) {
            case SUCCESS -> 0;
            case FAILED_MANIFEST -> 10;
            case FAILED_EXTRACT -> 11;
            case FAILED_SNAPSHOT_EXPIRED -> 12;
            case FAILED_STAGE_VALIDATION -> 13;
            case FAILED_PUBLISH -> 14;
            case PUBLISH_UNKNOWN -> 15;
            case FAILED_TARGET_VALIDATION -> 16;
            case TIMED_OUT -> 17;
            case CANCELLED -> 18;
            case CREATED, EXTRACTING, EXTRACTED_VALIDATED, STAGE_VALIDATING, STAGING_VALIDATED, PUBLISHING,
                    PUBLISHED -> 19;
        };
    }

    static String describe(RunStatus status) {
        return switch (status) {
            case SUCCESS -> "loaded, validated and published";
            case FAILED_MANIFEST -> "the plan broke a manifest invariant";
            case FAILED_EXTRACT -> "a partition failed to extract";
            case FAILED_SNAPSHOT_EXPIRED -> "the source snapshot expired; nothing was re-read at another point in time";
            case FAILED_STAGE_VALIDATION -> "staged files do not match the source";
            case FAILED_PUBLISH -> "the publish failed and left the table unchanged";
            case PUBLISH_UNKNOWN -> "the publish outcome is unknown: an operator must resolve it (loadgate resolve)";
            case FAILED_TARGET_VALIDATION -> "the published table does not match the source";
            case TIMED_OUT -> "the run timed out";
            case CANCELLED -> "the run was cancelled";
            case CREATED, EXTRACTING, EXTRACTED_VALIDATED, STAGE_VALIDATING, STAGING_VALIDATED, PUBLISHING,
                    PUBLISHED -> "still running";
        };
    }
}

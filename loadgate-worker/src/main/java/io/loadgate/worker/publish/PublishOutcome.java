package io.loadgate.worker.publish;

import static java.util.Objects.requireNonNull;

/**
 * What a publish did to the table, in the ledger's {@code publish/result} terms.
 *
 * @param targetRef the committed snapshot id (PUBLISHED only)
 * @param errorCode why not PUBLISHED (null when PUBLISHED)
 * @param message a human-readable account, including the exception that decided the outcome
 */
public record PublishOutcome(Status status, String targetRef, ErrorCode errorCode, String message) {
    /** Named as the ledger's {@code outcome} values. */
    public enum Status {
        /** The commit landed; {@code targetRef} is its snapshot id. */
        PUBLISHED,
        /** The table is certainly unchanged by this attempt; the run may be cleaned up. */
        FAILED_PUBLISH,
        /** The commit may or may not have landed: never retry, never clean up; probe or ask an operator. */
        PUBLISH_UNKNOWN
    }

    public enum ErrorCode {
        /** FAILED_PUBLISH: the table exists with another schema or partitioning. */
        TARGET_MISMATCH,
        /** FAILED_PUBLISH: loading or creating the table, or building the commit, failed before committing. */
        NOT_COMMITTED,
        /** FAILED_PUBLISH: the catalog refused the commit (a concurrent change that retries did not overcome). */
        COMMIT_CONFLICT,
        /** FAILED_PUBLISH: Iceberg's validation refused it, e.g. data added to the same partition meanwhile. */
        COMMIT_VALIDATION_FAILED,
        /**
         * FAILED_PUBLISH: the publish fence refused the commit before it was sent: the target holds a later publish of
         * the business key, or the publish deadline had passed.
         */
        PUBLISH_FENCED,
        /** PUBLISH_UNKNOWN: Iceberg reported the commit state unknown. */
        COMMIT_STATE_UNKNOWN,
        /** PUBLISH_UNKNOWN: any other failure while committing (a lost catalog connection, a timeout...). */
        COMMIT_INTERRUPTED
    }

    public PublishOutcome {
        requireNonNull(status, "status is null");
        requireNonNull(message, "message is null");
        switch (status) {
            case PUBLISHED -> {
                requireNonNull(targetRef, "targetRef is null");
                if (errorCode != null) {
                    throw new IllegalArgumentException("a PUBLISHED outcome has no errorCode, got " + errorCode);
                }
            }
            case FAILED_PUBLISH, PUBLISH_UNKNOWN -> {
                requireNonNull(errorCode, "errorCode is null");
                if (targetRef != null) {
                    throw new IllegalArgumentException(status + " has no targetRef, got " + targetRef);
                }
            }
        }
    }

    public static PublishOutcome published(long snapshotId, String message) {
        return new PublishOutcome(Status.PUBLISHED, Long.toString(snapshotId), null, message);
    }

    public static PublishOutcome failed(ErrorCode errorCode, String message) {
        return new PublishOutcome(Status.FAILED_PUBLISH, null, errorCode, message);
    }

    public static PublishOutcome unknown(ErrorCode errorCode, String message) {
        return new PublishOutcome(Status.PUBLISH_UNKNOWN, null, errorCode, message);
    }
}

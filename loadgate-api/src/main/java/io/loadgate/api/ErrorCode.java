package io.loadgate.api;

/**
 * The {@code code} of every error body, with the HTTP status it comes with. The names are the contract's; those
 * marked extension are Loadgate's own (a NiFi flow never sees them). Request-level codes (bad body, bad token) come
 * first, then each endpoint's.
 */
public enum ErrorCode {
    REQUEST_INVALID(422, false),
    /** Extension: a body over 32 MiB. */
    REQUEST_TOO_LARGE(413, true),
    /** Extension: a request the HTTP server refused before routing (bad bytes or ambiguous segments in the URL). */
    BAD_REQUEST(400, true),
    /** Extension: refused before routing, as {@link #BAD_REQUEST}. */
    URI_TOO_LONG(414, true),
    /** Extension: refused before routing, as {@link #BAD_REQUEST}. */
    HEADERS_TOO_LARGE(431, true),
    UNAUTHENTICATED(401, false),
    FORBIDDEN(403, false),
    NOT_FOUND(404, false),
    METHOD_NOT_ALLOWED(405, false),
    DATABASE_UNAVAILABLE(503, false),
    INTERNAL_ERROR(500, false),
    RUN_NOT_FOUND(404, false),
    PARTITION_NOT_FOUND(404, false),
    DISPATCH_NOT_FOUND(404, false),
    DUPLICATE_ACTIVE_RUN(409, false),
    /** Extension: a create's {@code afterRun} is not the key's latest run any more (another run was created since). */
    STALE_PLAN(409, true),
    /** Extension: an Idempotency-Key its caller used before for another create request. */
    IDEMPOTENCY_KEY_REUSED(422, true),
    INVALID_HDFS_ROOT(422, false),
    MANIFEST_INVALID(422, false),
    FAIL_TRANSITION_NOT_ALLOWED(422, false),
    RUN_STATUS_MISMATCH(409, false),
    CLAIM_MISMATCH(409, false),
    PARTITION_STATUS_MISMATCH(409, false),
    CHUNK_INDEX_OUT_OF_RANGE(422, false),
    HDFS_PATH_OUTSIDE_RUN(422, false),
    CHUNK_CONFLICT(409, false),
    DISPATCH_MISMATCH(409, false),
    DISPATCH_STATUS_MISMATCH(409, false),
    PUBLISH_TOKEN_MISMATCH(409, false),
    CLEANUP_NOT_DUE(409, false),
    /** Extension: the publish probe cannot tell yet whether the attempt is over. */
    PROBE_INCONCLUSIVE(409, true),
    /** Extension: rollback of a run that a later SUCCESS run of its key superseded. */
    NOT_LATEST_SUCCESS(409, true),
    /** Extension: rollback recorded before with another targetRef. */
    ALREADY_ROLLED_BACK(409, true),
    /** Extension: source metrics for a run that already has different ones. */
    SOURCE_METRICS_CONFLICT(409, true);

    private final int httpStatus;
    private final boolean extension;

    ErrorCode(int httpStatus, boolean extension) {
        this.httpStatus = httpStatus;
        this.extension = extension;
    }

    public int httpStatus() {
        return httpStatus;
    }

    /** A Loadgate extension: not part of the NiFi-compatible contract. */
    public boolean isExtension() {
        return extension;
    }
}

package io.loadgate.worker.transform;

import static java.util.Objects.requireNonNull;

/**
 * A job's mapper did not map its partition: it could not start, exited non-zero, went silent past its timeout, or
 * broke the framing of its output. No attempt of the same program on the same lines can do better, so the partition
 * fails (and its run). The message never quotes the program's stderr, which may hold secrets: its tail is in the
 * worker's log.
 */
public final class MapperFailedException extends RuntimeException {
    /** What went wrong, as the partition's error code. */
    public enum Reason {
        MAPPER_START,
        MAPPER_EXIT,
        MAPPER_TIMEOUT,
        MAPPER_PROTOCOL
    }

    private final Reason reason;

    MapperFailedException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = requireNonNull(reason, "reason is null");
    }

    public Reason reason() {
        return reason;
    }
}

package io.loadgate.ledger;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.ErrorCode;
import java.util.Map;

/**
 * A decision the ledger refused. The subclass says what the caller may do: fix its request ({@link Invalid}),
 * look again at the current state ({@link Conflict}), or stop asking about something that does not exist
 * ({@link NotFound}). The HTTP layer maps each to one status code, in one place.
 */
public abstract sealed class LedgerException extends RuntimeException {
    private final ErrorCode code;
    private final Map<String, Object> details;

    private LedgerException(int httpStatus, ErrorCode code, String message, Map<String, Object> details) {
        super(message);
        this.code = requireNonNull(code, "code is null");
        this.details = Map.copyOf(requireNonNull(details, "details is null"));
        // The kind of refusal and its code answer the same HTTP status, or the client would read two stories.
        if (code.httpStatus() != httpStatus) {
            throw new IllegalArgumentException(code + " is HTTP " + code.httpStatus() + ", not " + httpStatus);
        }
    }

    public ErrorCode code() {
        return code;
    }

    public Map<String, Object> details() {
        return details;
    }

    /** The request can never succeed as sent (HTTP 422). Nothing was changed, unless the code says so. */
    public static final class Invalid extends LedgerException {
        public Invalid(ErrorCode code, String message, Map<String, Object> details) {
            super(422, code, message, details);
        }

        public Invalid(ErrorCode code, String message) {
            this(code, message, Map.of());
        }
    }

    /** The state is not what the caller assumed (HTTP 409); read it again before deciding anything. */
    public static final class Conflict extends LedgerException {
        public Conflict(ErrorCode code, String message, Map<String, Object> details) {
            super(409, code, message, details);
        }

        public Conflict(ErrorCode code, String message) {
            this(code, message, Map.of());
        }
    }

    /** The run, partition or dispatch does not exist (HTTP 404). */
    public static final class NotFound extends LedgerException {
        public NotFound(ErrorCode code, String message) {
            super(404, code, message, Map.of());
        }
    }
}

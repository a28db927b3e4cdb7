package io.loadgate.ledger;

import static java.util.Objects.requireNonNull;

import java.util.Map;

/**
 * A decision the ledger refused. The subclass says what the caller may do: fix its request ({@link Invalid}),
 * look again at the current state ({@link Conflict}), or stop asking about something that does not exist
 * ({@link NotFound}). The HTTP layer maps each to one status code, in one place.
 */
public abstract sealed class LedgerException extends RuntimeException {
    private final String code;
    private final Map<String, Object> details;

    private LedgerException(String code, String message, Map<String, Object> details) {
        super(message);
        this.code = requireNonNull(code, "code is null");
        this.details = Map.copyOf(requireNonNull(details, "details is null"));
    }

    public String code() {
        return code;
    }

    public Map<String, Object> details() {
        return details;
    }

    /** The request can never succeed as sent (HTTP 422). Nothing was changed, unless the code says so. */
    public static final class Invalid extends LedgerException {
        public Invalid(String code, String message, Map<String, Object> details) {
            super(code, message, details);
        }

        public Invalid(String code, String message) {
            this(code, message, Map.of());
        }
    }

    /** The state is not what the caller assumed (HTTP 409); read it again before deciding anything. */
    public static final class Conflict extends LedgerException {
        public Conflict(String code, String message, Map<String, Object> details) {
            super(code, message, details);
        }

        public Conflict(String code, String message) {
            this(code, message, Map.of());
        }
    }

    /** The run, partition or dispatch does not exist (HTTP 404). */
    public static final class NotFound extends LedgerException {
        public NotFound(String code, String message) {
            super(code, message, Map.of());
        }
    }
}

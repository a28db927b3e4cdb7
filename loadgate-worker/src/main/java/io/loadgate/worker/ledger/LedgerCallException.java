package io.loadgate.worker.ledger;

import io.loadgate.api.ErrorCode;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A ledger call that did not succeed. Either the ledger answered with an error ({@link #status()} is the HTTP
 * status, {@link #code()} the envelope's code), or no answer came after the client's bounded retries
 * ({@link #status()} is 0). The predicates say what the caller may do:
 * <ul>
 *   <li>{@link #isConflict()} (409): the state is not what the caller assumed; read it again before deciding.</li>
 *   <li>{@link #isInvalid()} (422) and other {@link #isClientError()}s: the request can never succeed as sent.</li>
 *   <li>{@link #isNotFound()} (404): the run, partition or dispatch does not exist.</li>
 *   <li>{@link #isUnreachable()}: no attempt reached the ledger; nothing happened, so repeating later is safe.</li>
 *   <li>{@link #isOutcomeUnknown()}: the request may have been applied. Never repeat a non-idempotent step blindly
 *       (and never clean up after it); read the state first.</li>
 * </ul>
 */
public final class LedgerCallException extends RuntimeException {
    /** Code of a call no attempt of which reached the ledger. */
    public static final String UNREACHABLE = "LEDGER_UNREACHABLE";
    /** Code of a call whose request may have reached the ledger, but no answer came back. */
    public static final String OUTCOME_UNKNOWN = "OUTCOME_UNKNOWN";
    /** Code of a call interrupted while waiting; the thread's interrupt flag is set again. */
    public static final String INTERRUPTED = "INTERRUPTED";

    private final String call;
    private final int status;
    private final String code;
    private final String ledgerMessage;
    private final String requestId;
    private final Map<String, Object> details;
    private final int attempts;

    LedgerCallException(String call, int status, String code, String ledgerMessage, String requestId,
                        Map<String, Object> details, int attempts, Throwable cause) {
        super(describe(call, status, code, ledgerMessage), cause);
        this.call = call;
        this.status = status;
        this.code = code;
        this.ledgerMessage = ledgerMessage;
        this.requestId = requestId;
        // Details are the ledger's free-form JSON, whose values may be null.
        this.details = details == null ? Map.of() : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(details));
        this.attempts = attempts;
    }

    private static String describe(String call, int status, String code, String message) {
        return status == 0 ? call + ": " + message : call + ": " + status + " " + code + ": " + message;
    }

    /** The call, as {@code METHOD /path}. */
    public String call() {
        return call;
    }

    /** The HTTP status, or 0 when no answer came. */
    public int status() {
        return status;
    }

    /** The error envelope's code ({@code RUN_NOT_FOUND}, {@code CLAIM_MISMATCH}...), or one of this class's constants. */
    public String code() {
        return code;
    }

    /** The ledger answered with {@code errorCode}. */
    public boolean is(ErrorCode errorCode) {
        return errorCode.name().equals(code);
    }

    /** The ledger's own message, without the call and status this exception's message adds. */
    public String ledgerMessage() {
        return ledgerMessage;
    }

    /** The request id to look for in the ledger's log; the client sends one, so it is known even without an answer. */
    public String requestId() {
        return requestId;
    }

    /** The envelope's details, e.g. {@code activeRunId}, {@code errors}, {@code violations}; empty when none. */
    public Map<String, Object> details() {
        return details;
    }

    /** How many attempts were made. */
    public int attempts() {
        return attempts;
    }

    public boolean hasResponse() {
        return status != 0;
    }

    public boolean isClientError() {
        return status >= 400 && status < 500;
    }

    public boolean isServerError() {
        return status >= 500;
    }

    public boolean isConflict() {
        return status == 409;
    }

    public boolean isNotFound() {
        return status == 404;
    }

    public boolean isInvalid() {
        return status == 422;
    }

    public boolean isUnauthenticated() {
        return status == 401;
    }

    public boolean isForbidden() {
        return status == 403;
    }

    /** The ledger answered 503 (its database is unavailable) or did not answer at all. */
    public boolean isUnavailable() {
        return status == 503 || status == 0;
    }

    /** No attempt reached the ledger (connection refused or connect timeout on every attempt). */
    public boolean isUnreachable() {
        return UNREACHABLE.equals(code);
    }

    /** A request may have been applied, but the answer was lost. */
    public boolean isOutcomeUnknown() {
        return OUTCOME_UNKNOWN.equals(code);
    }

    public boolean isInterrupted() {
        return INTERRUPTED.equals(code);
    }
}

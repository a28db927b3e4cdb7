package io.loadgate.worker.submit;

/** The job's target cannot take a run (unreachable, credentials refused, a table that does not fit): no run was made. */
public final class TargetCheckException extends RuntimeException {
    public TargetCheckException(String message, Throwable cause) {
        super(message, cause);
    }
}

package io.loadgate.worker.target;

/** The target could not be reached, read or changed; the message says what was tried and is complete. */
public final class TargetException extends RuntimeException {
    public TargetException(String message, Throwable cause) {
        super(message, cause);
    }
}

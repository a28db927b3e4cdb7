package io.loadgate.worker.job;

/**
 * A job spec the worker cannot run: invalid file content, or a setting that cannot be resolved on this host (an
 * unset password variable). The message is one line naming the file or key; the run must not start.
 */
public final class JobSpecException extends RuntimeException {
    public JobSpecException(String message) {
        super(message);
    }

    public JobSpecException(String message, Throwable cause) {
        super(message, cause);
    }
}

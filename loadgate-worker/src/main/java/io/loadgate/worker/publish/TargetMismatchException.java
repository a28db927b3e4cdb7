package io.loadgate.worker.publish;

/**
 * An existing target table does not fit the job (schema or partitioning differ): the staged files cannot be
 * added to it as they are. Not retryable; an operator must fix the table or the job.
 */
public final class TargetMismatchException extends RuntimeException {
    public TargetMismatchException(String message) {
        super(message);
    }
}

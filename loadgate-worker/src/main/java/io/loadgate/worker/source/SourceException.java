package io.loadgate.worker.source;

/**
 * The source cannot be read as the job asks: a missing table or column, a split column that is not an integer, an
 * unsupported column type. The message is one line for the operator; retrying will not help until the job or the
 * source changes, except for {@link SourceUnavailableException} (the source did not answer).
 */
public class SourceException extends RuntimeException {
    public SourceException(String message) {
        super(message);
    }

    public SourceException(String message, Throwable cause) {
        super(message, cause);
    }
}

package io.loadgate.worker.publish;

import java.util.List;

/**
 * An existing target table does not fit the job (schema or partitioning differ): the staged files cannot be
 * added to it as they are. Not retryable; an operator must fix the table or the job.
 */
public final class TargetMismatchException extends RuntimeException {
    public TargetMismatchException(String message) {
        super(message);
    }

    /** The one line that refuses a load whose source has columns the table lacks, whichever the target. */
    public static TargetMismatchException newColumns(String table, List<String> columns) {
        return new TargetMismatchException("table " + table + " lacks the source's new columns " + columns
                + ": add them with target.schema: add_columns, or leave them out with source.columns");
    }
}

package io.loadgate.worker.source;

import java.util.List;

/**
 * The rows of one partition, read at the run's snapshot, as a forward-only cursor. Values are of the class
 * {@link ColumnType} names for their column, or null. Close it to end the reader's transaction.
 */
public interface PartitionRows extends AutoCloseable {
    List<SourceColumn> columns();

    /** Moves to the next row; false when the partition is exhausted. */
    boolean next();

    /** The current row's value of column {@code index} (0-based, in {@link #columns()} order). */
    Object value(int index);

    @Override
    void close();
}

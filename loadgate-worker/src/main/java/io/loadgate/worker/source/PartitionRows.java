package io.loadgate.worker.source;

import io.loadgate.worker.transform.MapperCounts;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;

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

    /**
     * The current row read as primitives, the same object after every {@link #next()}; empty when this reader cannot
     * give every column so (then {@link #value} is the only way).
     */
    default Optional<PrimitiveRow> primitiveRow() {
        return Optional.empty();
    }

    /**
     * Whether this reader parses text lines, some of which may not be rows (a file source). Such a reader gives each
     * of those, raw, with its reason, to the sink of {@link #rejectLinesTo}; it is one of the partition's rows too.
     */
    default boolean rejectsLines() {
        return false;
    }

    /** Where lines that are not rows go, before {@link #next()} moves past them; only when {@link #rejectsLines}. */
    default void rejectLinesTo(BiConsumer<String, String> sink) {
        throw new UnsupportedOperationException("this reader rejects no lines");
    }

    /**
     * What the job's mapper did with the partition's lines, once {@link #next()} returned false; empty when the
     * job has none (the rows are the source's own).
     */
    default Optional<MapperCounts> mapperCounts() {
        return Optional.empty();
    }

    @Override
    void close();
}

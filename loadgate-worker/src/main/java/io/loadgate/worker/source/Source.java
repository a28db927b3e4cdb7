package io.loadgate.worker.source;

import io.loadgate.worker.job.SourceMetricsTiming;
import java.util.List;

/**
 * A relational source read at one consistent point in time.
 *
 * <p>The planner calls {@link #openSnapshot} once per run: it fixes the snapshot, measures the source inside it
 * (row count, split column min/max/null count, the job's source metrics, each partition's expected row count)
 * and keeps the snapshot alive until the returned holder is closed. Partition readers, possibly on other hosts,
 * call {@link #readPartition} with the plan's {@code snapshotRef}; every reader sees exactly the rows the
 * planner counted, whatever is committed to the source meanwhile. A reader that can no longer attach to the
 * snapshot throws {@link SnapshotExpiredException} and never falls back to reading current data.
 *
 * <p>Implementations are thread-safe: each call uses its own connection. Failures are unchecked:
 * {@link SnapshotExpiredException} (report errorClass SNAPSHOT), {@link SourceException} (the source or job is
 * wrong; one line for the operator), {@link io.loadgate.worker.job.JobSpecException} (a setting cannot be
 * resolved on this host, e.g. the password variable is unset).
 */
public interface Source {
    /**
     * The business key in the one form this source's rows carry it, before the business-key column's type checks
     * it ({@link io.loadgate.worker.job.BusinessKeyFormat}). A table source leaves that to the column's type; a file
     * source, whose key is an hour or a day of directories, writes it as {@code 2026-11-30T14}.
     *
     * @throws io.loadgate.worker.job.JobSpecException when the key is not one this source takes
     */
    default String canonicalKey(String businessKey) {
        return businessKey;
    }

    /**
     * Opens a snapshot and plans the run. {@code businessKey} is bound wherever the job's filter says
     * {@code :business_key}.
     */
    SnapshotHolder openSnapshot(String businessKey);

    /**
     * {@link #openSnapshot(String)}, measuring the source's metrics when {@code timing} says. A source that can
     * measure them later at the same snapshot overrides this; the others measure them while planning whatever
     * {@code timing} asks, and their plan carries them.
     */
    default SnapshotHolder openSnapshot(String businessKey, SourceMetricsTiming timing) {
        return openSnapshot(businessKey);
    }

    /**
     * Checks the job against the source without reading rows or taking a snapshot: the table or query resolves, and
     * the split, extracted and validation columns exist with usable types. Returns the columns a reader would yield,
     * in order (the staged files' schema is made from them).
     */
    List<SourceColumn> columns();

    /**
     * Streams the rows of {@code partition} at {@code snapshotRef}: the caller must close the result. Throws
     * {@link SnapshotExpiredException} when the snapshot is gone.
     */
    PartitionRows readPartition(String snapshotRef, Partition partition, String businessKey);

    /**
     * Whether a reader in another process can attach to this source's snapshot by its {@code snapshotRef}. An engine
     * that runs partitions in other processes (Spark's executors) refuses a source that cannot.
     */
    default boolean snapshotSharedAcrossProcesses() {
        return true;
    }
}

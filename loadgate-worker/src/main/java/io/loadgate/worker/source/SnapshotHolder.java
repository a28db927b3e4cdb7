package io.loadgate.worker.source;

import io.loadgate.worker.job.SourceMetricsTiming;

/**
 * Keeps a source snapshot readable. For PostgreSQL it is the open transaction that exported the snapshot: once
 * it is closed, partitions that have not started reading fail with {@link SnapshotExpiredException}. Close it
 * only when extraction has ended (every partition reported, or the run failed).
 */
public interface SnapshotHolder extends AutoCloseable {
    /** What was measured inside the snapshot; the manifest is made from it. */
    SourcePlan plan();

    /**
     * The source's metrics at the snapshot: those the plan carries, or, when planning left them out
     * ({@link SourceMetricsTiming#DURING_EXTRACTION}), measured now on connections of their own that see the same
     * snapshot. Safe to call while partitions read; call it before {@link #close()}, which ends the snapshot.
     *
     * @throws SourceException when the source cannot measure them
     */
    default io.loadgate.worker.validation.MetricSet sourceMetrics() {
        return plan().sourceMetrics().orElseThrow(() -> new IllegalStateException(
                "the plan of snapshot " + plan().snapshotRef() + " carries no source metrics"));
    }

    /** True while the snapshot can still be imported by partition readers. */
    boolean isAlive();

    @Override
    void close();
}

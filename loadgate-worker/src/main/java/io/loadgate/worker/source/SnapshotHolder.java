package io.loadgate.worker.source;

/**
 * Keeps a source snapshot readable. For PostgreSQL it is the open transaction that exported the snapshot: once
 * it is closed, partitions that have not started reading fail with {@link SnapshotExpiredException}. Close it
 * only when extraction has ended (every partition reported, or the run failed).
 */
public interface SnapshotHolder extends AutoCloseable {
    /** What was measured inside the snapshot; the manifest is made from it. */
    SourcePlan plan();

    /** True while the snapshot can still be imported by partition readers. */
    boolean isAlive();

    @Override
    void close();
}

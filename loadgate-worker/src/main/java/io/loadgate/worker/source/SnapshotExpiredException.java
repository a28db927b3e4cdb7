package io.loadgate.worker.source;

/**
 * The snapshot a partition must be read at is gone (its holder ended, or the database discarded it). The caller
 * reports the partition with errorClass SNAPSHOT, so the run ends FAILED_SNAPSHOT_EXPIRED; it must never re-read
 * at another point in time.
 */
public final class SnapshotExpiredException extends SourceException {
    public SnapshotExpiredException(String message, Throwable cause) {
        super(message, cause);
    }
}

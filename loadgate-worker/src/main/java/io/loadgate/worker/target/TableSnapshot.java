package io.loadgate.worker.target;

import static java.util.Objects.requireNonNull;

import java.time.Instant;

/**
 * One commit a target table retains, for {@code loadgate table snapshots|history}: an Iceberg snapshot, or a
 * warehouse's publish marker. {@code runId}, {@code publishToken} and {@code businessKey} are those of the Loadgate
 * publish that made it, null for a commit Loadgate did not make (a rollback, an engine's own). {@code id} is the
 * snapshot id, null for a warehouse (a marker is known by its publish token); {@code rows} the rows it added.
 */
public record TableSnapshot(String id, Instant committedAt, String operation, String runId, String publishToken,
                            String businessKey, long rows) {
    public TableSnapshot {
        requireNonNull(committedAt, "committedAt is null");
        requireNonNull(operation, "operation is null");
    }
}

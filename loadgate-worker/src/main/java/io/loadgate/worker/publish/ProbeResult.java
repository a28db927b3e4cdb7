package io.loadgate.worker.publish;

import static java.util.Objects.requireNonNull;

/**
 * What the publish probe found in the table's snapshots.
 *
 * @param snapshotId the snapshot carrying the token (PUBLISHED only)
 * @param evidence what was looked at and found, worded for the run's event log
 */
public record ProbeResult(Status status, Long snapshotId, String evidence) {
    public enum Status {
        /** A snapshot carries the token: the attempt landed. */
        PUBLISHED,
        /** No retained snapshot carries the token (or the table does not exist). */
        NOT_FOUND
    }

    public ProbeResult {
        requireNonNull(status, "status is null");
        requireNonNull(evidence, "evidence is null");
        switch (status) {
            case PUBLISHED -> requireNonNull(snapshotId, "snapshotId is null");
            case NOT_FOUND -> {
                if (snapshotId != null) {
                    throw new IllegalArgumentException("NOT_FOUND has no snapshotId, got " + snapshotId);
                }
            }
        }
    }
}

package io.loadgate.server.config;

import static io.loadgate.server.config.ConfigChecks.positive;

import java.time.Duration;

/**
 * How long finished runs keep their staging data before they become cleanup candidates, and how long a target
 * table keeps its snapshots (at least the newest {@code snapshotsKept}) before cleanup expires them
 * ({@code cleanup.*}).
 */
public record CleanupConfig(Duration successRetention, Duration failedRetention, int maxBatch,
                            Duration snapshotRetention, int snapshotsKept) {
    public CleanupConfig {
        positive(successRetention, "cleanup.success_retention");
        positive(failedRetention, "cleanup.failed_retention");
        positive(maxBatch, "cleanup.max_batch");
        positive(snapshotRetention, "cleanup.snapshot_retention");
        positive(snapshotsKept, "cleanup.snapshots_kept");
    }

    static CleanupConfig defaults() {
        return new CleanupConfig(Duration.ofDays(3), Duration.ofDays(14), 200, Duration.ofDays(2), 1);
    }
}

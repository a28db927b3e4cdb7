package io.loadgate.server.config;

import static io.loadgate.server.config.ConfigChecks.positive;

import java.time.Duration;

/** How long finished runs keep their staging data before they become cleanup candidates ({@code cleanup.*}). */
public record CleanupConfig(Duration successRetention, Duration failedRetention, int maxBatch) {
    public CleanupConfig {
        positive(successRetention, "cleanup.success_retention");
        positive(failedRetention, "cleanup.failed_retention");
        positive(maxBatch, "cleanup.max_batch");
    }

    static CleanupConfig defaults() {
        return new CleanupConfig(Duration.ofDays(3), Duration.ofDays(14), 200);
    }
}

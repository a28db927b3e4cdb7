package io.loadgate.server.config;

import static io.loadgate.server.config.ConfigChecks.positive;
import static java.util.Objects.requireNonNull;

import io.loadgate.ledger.LedgerSettings;
import io.loadgate.ledger.LedgerSettings.RecoveryMode;
import java.time.Duration;

/** What the sweeper treats as stuck and what it then does ({@code recovery.*}). */
public record RecoveryConfig(
        RecoveryMode mode,
        int maxAttempts,
        Duration stale,
        Duration runTimeout,
        Duration manifestTimeout,
        Duration extractQueryTimeout,
        Duration validationStale,
        Duration publishStale,
        Duration sweeperInterval,
        Duration heartbeatInterval) {
    /**
     * How many heartbeat intervals {@code stale} and {@code validation_stale} must span at least: two beats may be
     * lost (a slow ledger, a pause of the worker's JVM) before a live worker's step is taken from it.
     */
    static final int MIN_BEATS_PER_STALE = 3;

    public RecoveryConfig {
        requireNonNull(mode, "recovery.mode is null");
        positive(maxAttempts, "recovery.max_attempts");
        positive(stale, "recovery.stale");
        positive(runTimeout, "recovery.run_timeout");
        positive(manifestTimeout, "recovery.manifest_timeout");
        positive(extractQueryTimeout, "recovery.extract_query_timeout");
        positive(validationStale, "recovery.validation_stale");
        positive(publishStale, "recovery.publish_stale");
        positive(sweeperInterval, "recovery.sweeper_interval");
        positive(heartbeatInterval, "recovery.heartbeat_interval");
        // A worker sends no heartbeat while its source query runs, so a stale window no longer than that query
        // would reissue (or time out) healthy partitions.
        if (stale.compareTo(extractQueryTimeout) <= 0) {
            throw new ConfigException("recovery.stale", "recovery.stale (" + Durations.format(stale)
                    + ") must exceed recovery.extract_query_timeout (" + Durations.format(extractQueryTimeout) + ")");
        }
        // Below a few beats, a step whose worker is alive and beating would be declared dead between two beats.
        aboveHeartbeat(stale, "recovery.stale", heartbeatInterval);
        aboveHeartbeat(validationStale, "recovery.validation_stale", heartbeatInterval);
    }

    private static void aboveHeartbeat(Duration window, String key, Duration heartbeatInterval) {
        if (window.compareTo(heartbeatInterval.multipliedBy(MIN_BEATS_PER_STALE)) < 0) {
            throw new ConfigException(key, key + " (" + Durations.format(window) + ") must be at least "
                    + MIN_BEATS_PER_STALE + " times recovery.heartbeat_interval (" + Durations.format(heartbeatInterval)
                    + "), or steps whose workers are alive are taken from them between two heartbeats");
        }
    }

    static RecoveryConfig defaults() {
        // manifest_timeout: a NiFi flow may create the run before it counts the source, and a count is a source
        // query, which may take up to extract_query_timeout.
        return new RecoveryConfig(RecoveryMode.FAIL, 3, Duration.ofMinutes(90), Duration.ofHours(6),
                Duration.ofHours(1), Duration.ofMinutes(60), Duration.ofHours(2), Duration.ofHours(2),
                Duration.ofMinutes(1), LedgerSettings.DEFAULT_HEARTBEAT_INTERVAL);
    }
}

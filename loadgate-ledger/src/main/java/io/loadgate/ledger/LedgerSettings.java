package io.loadgate.ledger;

import static java.util.Objects.requireNonNull;

import io.loadgate.ledger.run.StagePath;
import java.time.Duration;
import java.util.List;

/**
 * What the ledger's decisions depend on beyond the request: where runs may stage, and how partitions recover.
 * {@code heartbeatInterval} is how often the ledger expects a working caller to beat; it tells workers in its claim
 * and validation-start answers.
 */
public record LedgerSettings(List<StagePath> allowedRoots, RecoveryMode recoveryMode, int maxAttempts,
                             Duration publishStale, Retention retention, Duration heartbeatInterval) {
    /** The contract's default heartbeat interval. */
    public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofSeconds(30);

    public LedgerSettings {
        requireNonNull(publishStale, "publishStale is null");
        requireNonNull(heartbeatInterval, "heartbeatInterval is null");
        requireNonNull(retention, "retention is null");
        allowedRoots = List.copyOf(requireNonNull(allowedRoots, "allowedRoots is null"));
        requireNonNull(recoveryMode, "recoveryMode is null");
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1");
        }
    }

    /**
     * The contract's defaults: publish_stale 2 hours; retention 3 days after success, 14 after a failure; a heartbeat
     * every 30 seconds.
     */
    public LedgerSettings(List<StagePath> allowedRoots, RecoveryMode recoveryMode, int maxAttempts) {
        this(allowedRoots, recoveryMode, maxAttempts, Duration.ofHours(2),
                new Retention(Duration.ofDays(3), Duration.ofDays(14), 200), DEFAULT_HEARTBEAT_INTERVAL);
    }

    /** How long a finished run's staged files and tables are kept before they become cleanup candidates. */
    public record Retention(Duration afterSuccess, Duration afterFailure, int maxBatch) {
        public Retention {
            requireNonNull(afterSuccess, "afterSuccess is null");
            requireNonNull(afterFailure, "afterFailure is null");
        }
    }

    /** FAIL ends the run when a partition stalls or fails; REISSUE retries the partition at the same snapshot. */
    public enum RecoveryMode {
        FAIL,
        REISSUE
    }
}

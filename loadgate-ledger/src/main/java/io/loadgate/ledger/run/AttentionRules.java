package io.loadgate.ledger.run;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.RunStatus;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * When the monitor calls a run stuck and a job's data stale. {@code stuckAfter} holds, for every active state but
 * PUBLISH_UNKNOWN (always listed), how long a run may stay in it before a person should look; an EXTRACTING run counts
 * from its last heartbeat. {@code freshness} holds, per job key, how old the job's last successful load may be; a job
 * without an entry is never called stale.
 */
public record AttentionRules(Map<RunStatus, Duration> stuckAfter, Map<String, Duration> freshness) {
    public AttentionRules {
        requireNonNull(stuckAfter, "stuckAfter is null");
        requireNonNull(freshness, "freshness is null");
        for (RunStatus status : RunStatus.ACTIVE) {
            if (status != RunStatus.PUBLISH_UNKNOWN && !stuckAfter.containsKey(status)) {
                throw new IllegalArgumentException("stuckAfter has no threshold for " + status);
            }
        }
        stuckAfter = Collections.unmodifiableMap(new EnumMap<>(stuckAfter));
        freshness = Collections.unmodifiableMap(new LinkedHashMap<>(freshness));
    }

    /**
     * The sweeper's own thresholds where it has one (a manifest is due within manifest_timeout, a partition beats
     * within stale, a validation within validation_stale), and {@code waitingStep} for the states in which a run
     * waits for one step of a worker or publisher. PUBLISHING gets {@code waitingStep} too, not publish_stale: the
     * probe settles a silent publish only at publish_stale, hours after a person could have looked at the publisher.
     */
    public static AttentionRules of(Duration manifestTimeout, Duration stale, Duration validationStale,
                                    Duration waitingStep, Map<String, Duration> freshness) {
        Map<RunStatus, Duration> stuck = new EnumMap<>(RunStatus.class);
        for (RunStatus status : RunStatus.ACTIVE) {
            switch (status) {
                case CREATED -> stuck.put(status, manifestTimeout);
                case EXTRACTING -> stuck.put(status, stale);
                case STAGE_VALIDATING -> stuck.put(status, validationStale);
                case EXTRACTED_VALIDATED, STAGING_VALIDATED, PUBLISHING, PUBLISHED -> stuck.put(status, waitingStep);
                case PUBLISH_UNKNOWN -> {
                    // listed whatever its age
                }
                case SUCCESS, FAILED_MANIFEST, FAILED_EXTRACT, FAILED_SNAPSHOT_EXPIRED, FAILED_STAGE_VALIDATION,
                        FAILED_PUBLISH, FAILED_TARGET_VALIDATION, TIMED_OUT, CANCELLED ->
                        throw new IllegalStateException(status + " is not active");
            }
        }
        return new AttentionRules(stuck, freshness);
    }

    /** The server's default recovery thresholds, a waiting step of 30 minutes, and no freshness expected. */
    public static AttentionRules defaults() {
        return of(Duration.ofHours(1), Duration.ofMinutes(90), Duration.ofHours(2), Duration.ofMinutes(30), Map.of());
    }
}

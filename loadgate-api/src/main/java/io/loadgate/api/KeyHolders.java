package io.loadgate.api;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.List;

/**
 * {@code GET /v1/jobs/{jobKey}/keys?after=&limit=} (extension): per business key of a job, in key order, the run whose
 * rows the target holds now and the key's newest run. {@code next} is the {@code after} of the following page, null on
 * the last one.
 */
public record KeyHolders(JobKey jobKey, List<Key> keys, BusinessKey next) {
    /** The page a client asks for when it gives no limit, and the largest it may ask for. */
    public static final int DEFAULT_LIMIT = 100;
    public static final int MAX_LIMIT = 1000;

    public KeyHolders {
        requireNonNull(jobKey, "jobKey is null");
        keys = List.copyOf(keys);
    }

    /**
     * One business key. {@code inTargetRunId}: the key's latest SUCCESS unless it was rolled back (then null, and
     * {@code rolledBackRunId} names it); {@code loadedAt} and {@code inTargetRows} are its completion and target count.
     * {@code lastRunId}: the key's newest run, which may be a reload in progress or a failure the target does not
     * show; {@code lastTargetState} is that run's {@link TargetState}, null unless it is a SUCCESS.
     */
    public record Key(BusinessKey businessKey, RunId inTargetRunId, Instant loadedAt, Long inTargetRows,
                      RunId rolledBackRunId, RunId lastRunId, RunStatus lastStatus, TargetState lastTargetState,
                      Instant lastStartedAt) {
        public Key {
            requireNonNull(businessKey, "businessKey is null");
            requireNonNull(lastRunId, "lastRunId is null");
            requireNonNull(lastStatus, "lastStatus is null");
        }
    }
}

package io.loadgate.ledger.sweeper;

import static java.util.Objects.requireNonNull;

import io.loadgate.ledger.dispatch.DispatchPolicy;
import java.time.Duration;

/**
 * When the sweeper calls something stuck. Every threshold is compared with the database clock, so sweepers on
 * several hosts agree whatever their own clocks say. {@code batch} bounds the rows one rule takes per tick.
 */
public record SweepThresholds(Duration stale, Duration runTimeout, Duration manifestTimeout, Duration validationStale,
                              Duration publishStale, DispatchPolicy dispatch, int batch) {
    public SweepThresholds {
        requireNonNull(stale, "stale is null");
        requireNonNull(runTimeout, "runTimeout is null");
        requireNonNull(manifestTimeout, "manifestTimeout is null");
        requireNonNull(validationStale, "validationStale is null");
        requireNonNull(publishStale, "publishStale is null");
        requireNonNull(dispatch, "dispatch is null");
        if (batch < 1) {
            throw new IllegalArgumentException("batch must be at least 1");
        }
    }

    static double seconds(Duration duration) {
        return duration.toNanos() / 1e9;
    }
}

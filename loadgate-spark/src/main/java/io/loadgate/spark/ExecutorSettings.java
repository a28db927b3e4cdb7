package io.loadgate.spark;

import static java.util.Objects.requireNonNull;

import java.io.Serializable;
import java.time.Duration;

/**
 * What a Spark task needs to reach the ledger, shipped with every task: the ledger's URL and worker token, how
 * often an extraction beats, and how often a task whose partition another attempt owns asks the ledger again.
 * The token travels inside Spark's task closures (as any credential of a Spark job's code does); it never appears
 * in {@link #toString()}.
 */
public record ExecutorSettings(String ledgerUrl, String token, Duration heartbeatInterval, Duration standbyPoll)
        implements Serializable {
    public ExecutorSettings {
        requireNonNull(ledgerUrl, "ledgerUrl is null");
        requireNonNull(token, "token is null");
        requireNonNull(heartbeatInterval, "heartbeatInterval is null");
        requireNonNull(standbyPoll, "standbyPoll is null");
        if (heartbeatInterval.isNegative() || heartbeatInterval.isZero() || standbyPoll.isNegative()
                || standbyPoll.isZero()) {
            throw new IllegalArgumentException("heartbeatInterval and standbyPoll must be positive");
        }
    }

    /** A worker's intervals: beat every 10 s (or the ledger's interval when shorter), ask again every second. */
    public static ExecutorSettings of(String ledgerUrl, String token) {
        return new ExecutorSettings(ledgerUrl, token, Duration.ofSeconds(10), Duration.ofSeconds(1));
    }

    @Override
    public String toString() {
        return "ExecutorSettings[ledgerUrl=" + ledgerUrl + ", token=***, heartbeatInterval=" + heartbeatInterval
                + ", standbyPoll=" + standbyPoll + "]";
    }
}

package io.loadgate.ledger.dispatch;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * How the outbox is delivered: the lease a dispatcher holds while it sends, the retry backoff
 * {@code backoffMin × 2^(attempt-1)} capped at {@code backoffMax}, the attempts before a dispatch is DEAD, and how
 * long a SENT dispatch waits for its ACK before it is delivered again.
 */
public record DispatchPolicy(int maxAttempts, Duration backoffMin, Duration backoffMax, Duration ackTimeout,
                             Duration lease) {
    public DispatchPolicy {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1");
        }
        requirePositive(backoffMin, "backoffMin");
        requirePositive(backoffMax, "backoffMax");
        requirePositive(ackTimeout, "ackTimeout");
        requirePositive(lease, "lease");
    }

    private static void requirePositive(Duration value, String name) {
        requireNonNull(value, name + " is null");
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive");
        }
    }

    /** Seconds as the database's {@code make_interval(secs => ?)} takes them; sub-second values are kept. */
    static double seconds(Duration duration) {
        return duration.toNanos() / 1e9;
    }
}

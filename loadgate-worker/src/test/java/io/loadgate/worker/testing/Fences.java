package io.loadgate.worker.testing;

import io.loadgate.worker.publish.PublishFence;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/** Publish fences for tests that publish without a ledger: each above every one before it, an hour to commit. */
public final class Fences {
    private static final AtomicLong GENERATIONS = new AtomicLong();

    private Fences() {
    }

    public static PublishFence next() {
        return new PublishFence(GENERATIONS.incrementAndGet(), Instant.now().plus(Duration.ofHours(1)));
    }
}

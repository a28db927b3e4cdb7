package io.loadgate.worker.metrics;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.ledger.ForwardingLedgerClient;
import io.loadgate.worker.ledger.LedgerClient;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * A {@link LedgerClient} that times every call it passes on, by method and whether it threw, into
 * {@code loadgate_worker_ledger_calls_seconds}. A failed call is timed too: its time was spent all the same. The
 * lease long poll is timed like the rest; its time is mostly waiting for work.
 */
public final class MeteredLedgerClient extends ForwardingLedgerClient {
    private final WorkerMetrics metrics;

    public MeteredLedgerClient(LedgerClient delegate, WorkerMetrics metrics) {
        super(delegate);
        this.metrics = requireNonNull(metrics, "metrics is null");
    }

    @Override
    protected <T> T around(String method, Supplier<T> call) {
        long start = System.nanoTime();
        boolean failed = true;
        try {
            T result = call.get();
            failed = false;
            return result;
        } finally {
            metrics.ledgerCall(method, failed).record(Duration.ofNanos(System.nanoTime() - start));
        }
    }
}

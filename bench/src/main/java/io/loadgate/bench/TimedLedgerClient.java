package io.loadgate.bench;

import io.loadgate.worker.ledger.ForwardingLedgerClient;
import io.loadgate.worker.ledger.LedgerClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Supplier;

/**
 * A {@link LedgerClient} that records every call it passes on: method, thread, start and duration (System.nanoTime),
 * and whether it threw. Failed calls are recorded too — their time was spent all the same. The long poll
 * {@code leaseDispatches} is recorded like the rest; {@link Call#isLeaseWait()} lets the report leave it out.
 */
final class TimedLedgerClient extends ForwardingLedgerClient {
    /** One call. {@code delivered} is the number of dispatches a lease returned, else 0. */
    record Call(String method, String thread, long startNanos, long nanos, boolean failed, int delivered) {
        boolean isLeaseWait() {
            return method.equals("leaseDispatches");
        }

        long endNanos() {
            return startNanos + nanos;
        }
    }

    private final ConcurrentLinkedQueue<Call> calls = new ConcurrentLinkedQueue<>();

    TimedLedgerClient(LedgerClient delegate) {
        super(delegate);
    }

    List<Call> calls() {
        return new ArrayList<>(calls);
    }

    @Override
    protected <T> T around(String method, Supplier<T> call) {
        long start = System.nanoTime();
        boolean failed = true;
        T result = null;
        try {
            result = call.get();
            failed = false;
            return result;
        } finally {
            int delivered = result instanceof List<?> list && method.equals("leaseDispatches") ? list.size() : 0;
            calls.add(new Call(method, Thread.currentThread().getName(), start, System.nanoTime() - start, failed,
                    delivered));
        }
    }
}

package io.loadgate.server.dispatch;

import static java.util.Objects.requireNonNull;

import io.loadgate.ledger.dispatch.DispatchPolicy;
import io.loadgate.ledger.dispatch.DispatchType;
import io.loadgate.ledger.dispatch.Dispatches;
import io.loadgate.ledger.dispatch.LeasedDispatch;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The long poll behind {@code POST /v1/dispatches/lease}: lease now, and when there is nothing, wait on the
 * notification hub until a worker dispatch of a wanted type is inserted or the caller's wait is over.
 */
public final class WorkerLeases implements AutoCloseable {
    /** Look again at least this often even without a notification (one may be missed while the listener reconnects). */
    private static final Duration RECHECK = Duration.ofSeconds(5);

    private final Dispatches dispatches;
    private final NotificationHub hub;
    private final DispatchPolicy policy;
    private volatile boolean closed;

    public WorkerLeases(Dispatches dispatches, NotificationHub hub, DispatchPolicy policy) {
        this.dispatches = requireNonNull(dispatches, "dispatches is null");
        this.hub = requireNonNull(hub, "hub is null");
        this.policy = requireNonNull(policy, "policy is null");
    }

    public Dispatches dispatches() {
        return dispatches;
    }

    /** Leases up to {@code max} dispatches for {@code node}, waiting up to {@code wait} for the first one. */
    public List<LeasedDispatch> lease(String node, Set<DispatchType> types, int max, Duration wait) {
        Waiter waiter = new Waiter();
        Predicate<String> interest = payload -> payload.endsWith(":worker")
                && types.stream().anyMatch(type -> payload.startsWith(type.name() + ":"));
        // Registered before the first query, so an insert between query and wait still wakes this poll.
        try (var registration = hub.register(waiter, interest)) {
            long deadline = System.nanoTime() + wait.toNanos();
            while (true) {
                List<LeasedDispatch> leased = dispatches.leaseForWorker(node, types, max, policy);
                long remaining = deadline - System.nanoTime();
                if (!leased.isEmpty() || remaining <= 0 || closed) {
                    return leased;
                }
                waiter.await(Duration.ofNanos(Math.min(remaining, RECHECK.toNanos())));
                if (closed) {
                    return List.of();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }

    /** Ends every waiting poll with an empty answer, so the API can stop without waiting a minute. */
    @Override
    public void close() {
        closed = true;
        hub.publishAll();
    }
}

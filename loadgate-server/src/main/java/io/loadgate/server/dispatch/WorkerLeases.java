package io.loadgate.server.dispatch;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.DispatchApi;
import io.loadgate.ledger.dispatch.DispatchPolicy;
import io.loadgate.ledger.dispatch.Dispatches;
import io.loadgate.ledger.dispatch.LeasedDispatch;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * The long poll behind {@code POST /v1/dispatches/lease}: lease now, and when there is nothing, wait on the
 * notification hub until a worker dispatch of a wanted type is inserted or the caller's wait is over.
 *
 * <p>A waiting poll holds no thread: it is a registration on the hub and a timer, and its answer is a future the
 * HTTP layer completes the response from. Hundreds of worker threads may each keep a poll open for a minute
 * without taking the server's request threads from everyone else (health checks, chunk reports, operators).
 */
public final class WorkerLeases implements AutoCloseable {
    /** Look again at least this often even without a notification (one may be missed while the listener reconnects). */
    private static final Duration RECHECK = Duration.ofSeconds(5);

    private final Dispatches dispatches;
    private final NotificationHub hub;
    private final DispatchPolicy policy;
    private final ScheduledExecutorService checks;
    private final Set<Poll> waiting = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    public WorkerLeases(Dispatches dispatches, NotificationHub hub, DispatchPolicy policy) {
        this.dispatches = requireNonNull(dispatches, "dispatches is null");
        this.hub = requireNonNull(hub, "hub is null");
        this.policy = requireNonNull(policy, "policy is null");
        AtomicInteger threads = new AtomicInteger();
        // Rechecks are one short query each; two threads keep up with a notification that wakes every poll at once.
        this.checks = Executors.newScheduledThreadPool(2, r -> {
            Thread t = new Thread(r, "loadgate-lease-poll-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    public Dispatches dispatches() {
        return dispatches;
    }

    /**
     * Leases up to {@code max} dispatches for {@code node}, waiting up to {@code waitSeconds} for the first one. The
     * first look runs on the caller's thread, so a poll that finds work (or does not wait) is answered at once.
     * {@code requestId} is the same on every attempt of one lease: a retry gets what a lost answer held
     * ({@link Dispatches#leaseForWorker}).
     */
    public CompletableFuture<List<LeasedDispatch>> lease(DispatchApi.Lease request, String requestId) {
        Poll poll = new Poll(request, System.nanoTime() + Duration.ofSeconds(request.waitSeconds()).toNanos(),
                requestId);
        poll.check();
        return poll.result;
    }

    /** Ends every waiting poll with an empty answer, so the API can stop without waiting a minute. */
    @Override
    public void close() {
        closed = true;
        waiting.forEach(poll -> poll.finish(List.of()));
        checks.shutdownNow();
    }

    private final class Poll {
        private final CompletableFuture<List<LeasedDispatch>> result = new CompletableFuture<>();
        private final AtomicBoolean checkQueued = new AtomicBoolean();
        private final DispatchApi.Lease request;
        private final long deadline;
        private final String requestId;
        private final NotificationHub.Registration registration;
        private ScheduledFuture<?> timer;

        Poll(DispatchApi.Lease request, long deadline, String requestId) {
            this.request = request;
            this.deadline = deadline;
            this.requestId = requireNonNull(requestId, "requestId is null");
            Predicate<String> interest = payload -> payload.endsWith(":worker")
                    && request.types().stream().anyMatch(type -> payload.startsWith(type.name() + ":"));
            // Registered before the first query, so an insert between query and wait still wakes this poll.
            this.registration = hub.register(this::wake, interest);
            waiting.add(this);
        }

        /** From the hub or the timer: look again soon, on a check thread; wake-ups while one is queued merge. */
        private void wake() {
            if (!checkQueued.compareAndSet(false, true)) {
                return;
            }
            try {
                checks.execute(this::check);
            } catch (RejectedExecutionException e) {
                finish(List.of());
            }
        }

        /** Serialised with {@link #finish}: a lease taken here is never dropped by a concurrent close. */
        synchronized void check() {
            checkQueued.set(false);
            if (result.isDone()) {
                return;
            }
            List<LeasedDispatch> leased;
            try {
                leased = closed ? List.of() : dispatches.leaseForWorker(request, policy, requestId);
            } catch (RuntimeException e) {
                end();
                result.completeExceptionally(e);
                return;
            }
            long remaining = deadline - System.nanoTime();
            if (!leased.isEmpty() || remaining <= 0 || closed) {
                finish(leased);
                return;
            }
            if (timer != null) {
                timer.cancel(false);
            }
            try {
                timer = checks.schedule(this::wake, Math.min(remaining, RECHECK.toNanos()), TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                finish(List.of());
            }
        }

        synchronized void finish(List<LeasedDispatch> leased) {
            if (result.isDone()) {
                return;
            }
            end();
            result.complete(leased);
        }

        private void end() {
            registration.close();
            waiting.remove(this);
            if (timer != null) {
                timer.cancel(false);
            }
        }
    }
}

package io.loadgate.worker.execution;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.DispatchApi.Lease;
import io.loadgate.api.DispatchApi.LeasedDispatch;
import io.loadgate.api.DispatchType;
import io.loadgate.worker.ledger.LedgerCallException;
import io.loadgate.worker.metrics.StepOutcome;
import io.loadgate.worker.metrics.WorkerMetrics;
import io.loadgate.worker.validation.StagedFilesReader;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker: threads that each lease one dispatch at a time from the ledger (a long poll) and run its step. A lease
 * is only a receipt; the step's own compare-and-set acknowledges it, so a step that dies half-way is redelivered
 * after ack_timeout, and a partition abandoned at shutdown is left to the sweeper.
 */
public final class Worker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Worker.class);

    private final WorkerContext context;
    private final ExecutorService threads;
    /** Measures extracted chunks beside the worker's threads (one file of a partition at a time). */
    private final ExecutorService measuring;
    private final ExtractStep extract;
    private final StagingValidationStep validate;
    private final PublishStep publish;
    private final TargetValidationStep validateTarget;
    private final ProbePublishStep probe;
    private final AtomicInteger busy = new AtomicInteger();
    private final int threadCount;
    private volatile boolean stopping;
    private final AtomicBoolean stopped = new AtomicBoolean();
    private final CompletableFuture<String> refused = new CompletableFuture<>();

    private final List<DispatchType> types;
    /** A dispatch the ledger handed to this thread with its step's answer: the thread's next step. */
    private final ThreadLocal<LeasedDispatch> handedOff = new ThreadLocal<>();

    private Worker(WorkerContext context, int threadCount, Set<DispatchType> types) {
        this.context = requireNonNull(context, "context is null");
        this.types = List.copyOf(types);
        this.threadCount = threadCount;
        this.threads = Executors.newFixedThreadPool(threadCount, daemons("loadgate-worker-"));
        // As many as the steps that write chunks: measuring, faster than extracting, never takes more cores than
        // the extractions it follows; what waits in the queue past the validation's start finds nothing to do.
        this.measuring = Executors.newFixedThreadPool(threadCount, daemons("loadgate-early-measure-"));
        // One per worker process: its extractions have their chunks measured, its validations take them; a worker
        // that validates no run would only hold them until they age out.
        Optional<EarlyMeasurements> early = types.contains(DispatchType.VALIDATE_RUN)
                ? Optional.of(new EarlyMeasurements(new StagedFilesReader(context.hadoop()), Clock.systemUTC(),
                        measuring))
                : Optional.empty();
        // A validation handed to the thread whose report completed the extraction is that thread's next step.
        this.extract = new ExtractStep(context, early, handOff(DispatchType.VALIDATE_RUN));
        this.validate = new StagingValidationStep(context, early, handOff(DispatchType.PUBLISH_RUN));
        this.publish = new PublishStep(context, handOff(DispatchType.VALIDATE_TARGET));
        this.validateTarget = new TargetValidationStep(context);
        this.probe = new ProbePublishStep(context);
    }

    private static ThreadFactory daemons(String prefix) {
        AtomicInteger number = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + number.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /** A step handed to this thread by the ledger with an answer, when this worker takes steps of that type. */
    private Optional<Consumer<LeasedDispatch>> handOff(DispatchType next) {
        return types.contains(next) ? Optional.of(handedOff::set) : Optional.empty();
    }

    public static Worker start(WorkerContext context, int threadCount) {
        return start(context, threadCount, EnumSet.allOf(DispatchType.class));
    }

    /** A worker that takes only the given kinds of step (a node dedicated to extraction, say). */
    public static Worker start(WorkerContext context, int threadCount, Set<DispatchType> types) {
        if (threadCount < 1 || types.isEmpty()) {
            throw new IllegalArgumentException("a worker needs at least one thread and one dispatch type");
        }
        Worker worker = new Worker(context, threadCount, types);
        context.shared().metrics().threadsStarted(threadCount);
        for (int i = 0; i < threadCount; i++) {
            worker.threads.submit(worker::leaseLoop);
        }
        return worker;
    }

    boolean isStopping() {
        return stopping;
    }

    /**
     * Completes, with one line saying why, when this worker has stopped leasing for good and its process should end:
     * the ledger refused its token (401 or 403), which no retry can change, or a step hit a
     * {@link VirtualMachineError} (out of memory, say), after which this JVM cannot be trusted to run another step.
     * Never completes otherwise.
     */
    public CompletableFuture<String> refused() {
        // A copy: completing or cancelling it must not touch the worker's own.
        return refused.copy();
    }

    /** Why the worker cannot work, while it cannot; empty while it can (what {@code /healthz} reports). */
    public Optional<String> unhealthy() {
        return Optional.ofNullable(refused.getNow(null));
    }

    private void leaseLoop() {
        Lease lease = new Lease(context.node(), types, 1, (int) Math.max(1, context.leaseWait().toSeconds()));
        Duration backoff = Duration.ofMillis(250);
        while (!stopping && !Thread.currentThread().isInterrupted()) {
            try {
                List<LeasedDispatch> leased = context.ledger().leaseDispatches(lease);
                if (leased.isEmpty()) {
                    context.shared().metrics().emptyLease();
                }
                for (LeasedDispatch dispatch : leased) {
                    if (stopping) {
                        // Leased while stopping: hand it back, so another worker takes it now, not after ack_timeout.
                        context.ledger().releaseDispatch(dispatch.dispatchId(), context.node());
                    } else {
                        run(dispatch);
                    }
                }
                backoff = Duration.ofMillis(250);
            } catch (Throwable e) {
                if (stopping || Thread.currentThread().isInterrupted()) {
                    return;
                }
                if (e instanceof LedgerCallException call && (call.isUnauthenticated() || call.isForbidden())) {
                    // A wrong or revoked token, or one without the worker role: every later lease gets the same
                    // answer, so retrying would only hide it behind a healthy-looking process.
                    stopping = true;
                    refused.complete("the ledger refused this worker's token (" + call.status() + " " + call.code()
                            + " on " + call.call() + "): check --token-file holds a worker token the ledger knows");
                    return;
                }
                if (e instanceof VirtualMachineError fatal) {
                    LOG.error("lease loop hit {}; this worker stops leasing", fatal.toString(), fatal);
                    halt(fatal, "leasing");
                    return;
                }
                // One bad pass must not end the loop: log, wait a little longer each time, try again.
                LOG.warn("lease loop: {}", e.toString());
                try {
                    Thread.sleep(backoff.toMillis());
                } catch (InterruptedException interrupted) {
                    return;
                }
                backoff = backoff.multipliedBy(2).compareTo(Duration.ofSeconds(10)) > 0 ? Duration.ofSeconds(10)
                        : backoff.multipliedBy(2);
            }
        }
    }

    /** Runs a dispatch, then the one the ledger handed this thread with the step's answer, if any. */
    private void run(LeasedDispatch dispatch) {
        execute(dispatch);
        LeasedDispatch handed = handedOff.get();
        if (handed != null) {
            handedOff.remove();
            runHandedOff(handed);
        }
    }

    /** A dispatch handed to this thread once its step has ended: run next, or given back when stopping. */
    void runHandedOff(LeasedDispatch dispatch) {
        if (stopping) {
            context.ledger().releaseDispatch(dispatch.dispatchId(), context.node());
        } else {
            run(dispatch);
        }
    }

    private void execute(LeasedDispatch dispatch) {
        WorkerMetrics metrics = context.shared().metrics();
        busy.incrementAndGet();
        metrics.stepStarted();
        long start = System.nanoTime();
        // FAILED unless the step returns: a step that throws failed.
        StepOutcome outcome = StepOutcome.FAILED;
        try {
            LOG.debug("running {} {} {}", dispatch.dispatchType(), dispatch.runId(), dispatch.partitionId());
            outcome = switch (dispatch.dispatchType()) {
                case EXTRACT_PARTITION, REISSUE_PARTITION -> extract.run(dispatch);
                case VALIDATE_RUN -> validate.run(dispatch);
                case PUBLISH_RUN -> publish.run(dispatch);
                case VALIDATE_TARGET -> validateTarget.run(dispatch);
                case PROBE_PUBLISH -> probe.run(dispatch);
            };
        } catch (RuntimeException e) {
            // The dispatch stays unacknowledged and comes back after ack_timeout, unless the run has moved on.
            LOG.warn("{} of run {} failed: {}", dispatch.dispatchType(), dispatch.runId(), e.toString(), e);
        } catch (VirtualMachineError e) {
            // The step reported its failure if it could. Another step in this JVM could fail anywhere, half-way
            // through a write or a report, so no thread of this worker leases again: /healthz says why and the
            // process ends, for its supervisor to start a fresh one.
            LOG.error("{} of run {} hit {}; this worker stops leasing", dispatch.dispatchType(), dispatch.runId(),
                    e.toString(), e);
            halt(e, dispatch.dispatchType() + " of run " + dispatch.runId());
        } catch (Error e) {
            // A linkage error (a library version mismatch, say) fails this step, which reported it to the ledger;
            // the JVM itself is sound, so the thread takes the next dispatch.
            LOG.error("{} of run {} failed: {}", dispatch.dispatchType(), dispatch.runId(), e.toString(), e);
        } finally {
            busy.decrementAndGet();
            metrics.stepEnded(dispatch.dispatchType(), outcome, Duration.ofNanos(System.nanoTime() - start));
        }
    }

    /** No thread leases again, and {@link #refused()} and {@code /healthz} say why. */
    private void halt(VirtualMachineError e, String during) {
        stopping = true;
        refused.complete("the worker stopped after " + e.getClass().getSimpleName() + " in " + during
                + ": restart it (its log has the stack trace)");
    }

    /**
     * Stops leasing and lets running steps finish and waiting polls come back (within the lease wait, their leases
     * handed back) for up to {@code grace}; then interrupts what is left. A poll interrupted at the ledger may still
     * be given a dispatch, which then comes back only after ack_timeout; an interrupted extraction's partition keeps
     * its claim until the sweeper finds it stale.
     */
    public void stop(Duration grace) {
        // stop() then close() is common: the threads leave the gauge once.
        if (stopped.compareAndSet(false, true)) {
            context.shared().metrics().threadsStopped(threadCount);
        }
        stopping = true;
        threads.shutdown();
        try {
            if (!threads.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                int abandoned = busy.get();
                threads.shutdownNow();
                if (abandoned > 0) {
                    LOG.warn("stopped with {} step(s) still running; their claims are left to the sweeper", abandoned);
                }
                threads.awaitTermination(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            threads.shutdownNow();
            Thread.currentThread().interrupt();
        } finally {
            // What is measured early only saves a validation reading; one that needs a file reads it itself.
            measuring.shutdownNow();
        }
    }

    @Override
    public void close() {
        stop(Duration.ofSeconds(30));
    }
}

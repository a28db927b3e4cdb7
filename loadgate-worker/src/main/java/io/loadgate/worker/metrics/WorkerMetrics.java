package io.loadgate.worker.metrics;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.DispatchType;
import io.loadgate.api.StepApi.PublishOutcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A worker process's meters, named in one place. Tags stay bounded: dispatch type, outcome, job key and ledger
 * method; never a run or partition id, which would make a new series per run.
 */
public final class WorkerMetrics {
    private final MeterRegistry registry;
    // Summed over every Worker of the process, so a second Worker on the same registry adds to the gauges instead of
    // being ignored by a registry that already holds a gauge of that name.
    private final AtomicInteger threads = new AtomicInteger();
    private final AtomicInteger busy = new AtomicInteger();
    private final Counter emptyLeases;

    public WorkerMetrics(MeterRegistry registry) {
        this.registry = requireNonNull(registry, "registry is null");
        Gauge.builder("loadgate_worker_threads", threads, AtomicInteger::get)
                .description("worker threads configured (each leases and runs one step at a time)").register(registry);
        Gauge.builder("loadgate_worker_threads_busy", busy, AtomicInteger::get)
                .description("worker threads running a step now").register(registry);
        this.emptyLeases = Counter.builder("loadgate_worker_empty_leases")
                .description("lease polls that came back without a dispatch").register(registry);
    }

    /** Meters that go nowhere, for a worker started without a metrics endpoint. */
    public static WorkerMetrics off() {
        return new WorkerMetrics(new SimpleMeterRegistry());
    }

    public void threadsStarted(int count) {
        threads.addAndGet(count);
    }

    public void threadsStopped(int count) {
        threads.addAndGet(-count);
    }

    public void stepStarted() {
        busy.incrementAndGet();
    }

    public void stepEnded(DispatchType type, StepOutcome outcome, Duration took) {
        busy.decrementAndGet();
        Timer.builder("loadgate_worker_step").description("leased steps run, by dispatch type and outcome")
                .tag("type", type.name()).tag("outcome", outcome.tag()).register(registry).record(took);
    }

    public void emptyLease() {
        emptyLeases.increment();
    }

    /** Source rows read, counted as they are read, before transforms (a rejected row was read too). */
    public Counter rowsExtracted(String job) {
        return counter("loadgate_worker_rows_extracted", "source rows read", job);
    }

    public Counter rowsRejected(String job) {
        return counter("loadgate_worker_rows_rejected", "rows the job's transforms rejected (kept in rejects files)",
                job);
    }

    /** A chunk file closed and about to be reported, data or rejects. */
    public void chunkWritten(String job, long bytes) {
        counter("loadgate_worker_chunk_files", "chunk files written", job).increment();
        Counter.builder("loadgate_worker_chunk_bytes").description("bytes of chunk files written").baseUnit("bytes")
                .tag("job", job).register(registry).increment(bytes);
    }

    public void published(String job, PublishOutcome outcome) {
        Counter.builder("loadgate_worker_publish_outcomes").description("publishes reported, by outcome")
                .tag("job", job).tag("outcome", outcome.name()).register(registry).increment();
    }

    Timer ledgerCall(String method, boolean failed) {
        return Timer.builder("loadgate_worker_ledger_calls").description("calls to the ledger's API, by method")
                .tag("method", method).tag("outcome", failed ? "error" : "ok").register(registry);
    }

    private Counter counter(String name, String description, String job) {
        return Counter.builder(name).description(description).tag("job", job).register(registry);
    }
}

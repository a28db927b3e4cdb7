package io.loadgate.server.metrics;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.DispatchStatus;
import io.loadgate.api.RunStatus;
import io.loadgate.ledger.run.RunViews;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ledger's state as Prometheus gauges, read on a timer rather than on each scrape, so that a busy scraper cannot
 * load the database. {@code loadgate_ledger_up} turns 0 when the last read failed; the other gauges then keep their
 * last values, which is what an alert on them should see.
 */
public final class LedgerGauges implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LedgerGauges.class);

    private final RunViews views;
    private final Map<RunStatus, AtomicLong> runs = new EnumMap<>(RunStatus.class);
    private final Map<DispatchStatus, AtomicLong> dispatches = new EnumMap<>(DispatchStatus.class);
    private final AtomicLong up = new AtomicLong();
    private final AtomicLong publishUnknown = new AtomicLong();
    private final AtomicLong deadDispatches = new AtomicLong();
    private final AtomicLong runningPartitions = new AtomicLong();
    private final AtomicLong oldestDueDispatchMillis = new AtomicLong();
    private final AtomicLong oldestHeartbeatMillis = new AtomicLong();
    private final AtomicLong rejectedRows24h = new AtomicLong();
    private final AtomicLong cleanupSkippedRuns = new AtomicLong();
    private final AtomicLong unsupersededFailedRuns = new AtomicLong();
    private final AtomicLong stuckRuns = new AtomicLong();
    private final Map<String, AtomicLong> lateDirectories = new java.util.concurrent.ConcurrentHashMap<>();
    private final MeterRegistry registry;
    private final MultiGauge lastSuccessAge;
    private final MultiGauge expectedFreshness;
    private final MultiGauge percentLoss;
    private final ScheduledExecutorService timer;

    private LedgerGauges(RunViews views, MeterRegistry registry) {
        this.views = requireNonNull(views, "views is null");
        this.registry = registry;
        for (RunStatus status : RunStatus.values()) {
            AtomicLong value = new AtomicLong();
            runs.put(status, value);
            Gauge.builder("loadgate_runs", value, AtomicLong::get).tag("status", status.name())
                    .description("active runs by status, and runs that ended in the last 24 hours").register(registry);
        }
        for (DispatchStatus status : DispatchStatus.values()) {
            AtomicLong value = new AtomicLong();
            dispatches.put(status, value);
            Gauge.builder("loadgate_dispatches", value, AtomicLong::get).tag("status", status.name())
                    .description("outbox dispatches by status").register(registry);
        }
        Gauge.builder("loadgate_ledger_up", up, AtomicLong::get)
                .description("1 when the last read of the ledger's state succeeded").register(registry);
        Gauge.builder("loadgate_publish_unknown_runs", publishUnknown, AtomicLong::get)
                .description("runs whose publish outcome is unknown: an operator must resolve them").register(registry);
        Gauge.builder("loadgate_dead_dispatches_of_active_runs", deadDispatches, AtomicLong::get)
                .description("DEAD dispatches of runs still active: a step nobody will run").register(registry);
        Gauge.builder("loadgate_running_partitions", runningPartitions, AtomicLong::get)
                .description("partitions being extracted now").register(registry);
        Gauge.builder("loadgate_oldest_due_dispatch_seconds", oldestDueDispatchMillis, v -> v.get() / 1000.0)
                .description("how long the oldest due PENDING dispatch has waited").register(registry);
        Gauge.builder("loadgate_oldest_heartbeat_seconds", oldestHeartbeatMillis, v -> v.get() / 1000.0)
                .description("age of the stalest RUNNING partition's last heartbeat").register(registry);
        Gauge.builder("loadgate_rejected_rows_24h", rejectedRows24h, AtomicLong::get)
                .description("rows the transforms of runs that succeeded in the last 24 hours rejected (kept, not loaded)")
                .register(registry);
        Gauge.builder("loadgate_cleanup_skipped_runs", cleanupSkippedRuns, AtomicLong::get)
                .description("due runs a cleaner had to skip and that are still not cleaned").register(registry);
        Gauge.builder("loadgate_unsuperseded_failed_runs", unsupersededFailedRuns, AtomicLong::get)
                .description("runs failed in the last 24 hours whose key no later run loaded with SUCCESS")
                .register(registry);
        Gauge.builder("loadgate_stuck_runs", stuckRuns, AtomicLong::get)
                .description("active runs in one state past the monitor's threshold for it").register(registry);
        // Labelled job_key, not job: Prometheus gives "job" to the scrape job itself.
        lastSuccessAge = MultiGauge.builder("loadgate_job_last_success_age_seconds")
                .description("age of each job's last successful load").register(registry);
        expectedFreshness = MultiGauge.builder("loadgate_job_expected_freshness_seconds")
                .description("how old each job's last successful load may be (monitor.freshness)").register(registry);
        percentLoss = MultiGauge.builder("loadgate_job_percent_loss_24h").description("percent of the rows read by"
                + " each job's SUCCESS runs of the last 24 hours that did not reach the target").register(registry);
        expectedFreshness.register(views.rules().freshness().entrySet().stream()
                .map(e -> MultiGauge.Row.of(Tags.of("job_key", e.getKey()), e.getValue().toMillis() / 1000.0))
                .toList());
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "loadgate-gauges");
            t.setDaemon(true);
            return t;
        });
    }

    public static LedgerGauges start(RunViews views, MeterRegistry registry, Duration interval) {
        LedgerGauges gauges = new LedgerGauges(views, registry);
        gauges.timer.scheduleWithFixedDelay(gauges::refresh, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
        return gauges;
    }

    void refresh() {
        try {
            RunViews.Vitals vitals = views.vitals();
            runs.forEach((status, value) -> value.set(vitals.runsByStatus().getOrDefault(status.name(), 0L)));
            dispatches.forEach((status, value) -> value.set(vitals.dispatchesByStatus().getOrDefault(status.name(), 0L)));
            publishUnknown.set(vitals.publishUnknown());
            deadDispatches.set(vitals.deadDispatchesOfActiveRuns());
            runningPartitions.set(vitals.runningPartitions());
            oldestDueDispatchMillis.set((long) (vitals.oldestDueDispatchSeconds() * 1000));
            oldestHeartbeatMillis.set((long) (vitals.oldestHeartbeatSeconds() * 1000));
            rejectedRows24h.set(vitals.rejectedRows24h());
            cleanupSkippedRuns.set(vitals.cleanupSkippedRuns());
            unsupersededFailedRuns.set(vitals.unsupersededFailedRuns());
            stuckRuns.set(vitals.stuckRuns());
            // overwrite: a job whose runs are all gone (cleaned out of the ledger) drops its row
            lastSuccessAge.register(vitals.jobs().stream().map(job -> MultiGauge.Row.of(
                    Tags.of("job_key", job.jobKey().value()), job.lastSuccessAge().toMillis() / 1000.0)).toList(), true);
            percentLoss.register(vitals.percentLoss24h().entrySet().stream().map(e -> MultiGauge.Row.of(
                    Tags.of("job_key", e.getKey()), e.getValue())).toList(), true);
            // A counter read from the ledger's own record, so it counts whoever ran the load and survives restarts;
            // one per job as its first late directory appears.
            vitals.lateDirectories().forEach((job, count) -> lateDirectories.computeIfAbsent(job, j -> {
                AtomicLong value = new AtomicLong();
                FunctionCounter.builder("loadgate_late_directories", value, AtomicLong::get).tag("job_key", j)
                        .description("directories of file jobs that appeared after their key was loaded, loaded"
                                + " with their key again").register(registry);
                return value;
            }).set(count));
            up.set(1);
        } catch (Throwable e) {
            // A failed read must not end the timer: the gauge says the ledger is down, the next pass tries again.
            up.set(0);
            LOG.warn("reading the ledger's state for metrics failed: {}", e.getMessage());
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}

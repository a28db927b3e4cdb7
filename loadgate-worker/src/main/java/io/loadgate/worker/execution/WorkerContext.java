package io.loadgate.worker.execution;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.metrics.WorkerMetrics;
import io.loadgate.worker.target.Targets;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.hadoop.conf.Configuration;

/** What the steps share in one worker process. Wired once by the process that runs workers. */
public record WorkerContext(LedgerClient ledger, String node, Configuration hadoop, Shared shared,
                            Duration heartbeatInterval, Duration leaseWait) {
    public WorkerContext {
        requireNonNull(ledger, "ledger is null");
        requireNonNull(node, "node is null");
        requireNonNull(hadoop, "hadoop is null");
        requireNonNull(shared, "shared is null");
        requireNonNull(heartbeatInterval, "heartbeatInterval is null");
        // How long an idle thread's lease poll waits at the ledger; also how long a stop may wait for idle threads.
        requireNonNull(leaseWait, "leaseWait is null");
    }

    /** The jobs' targets, over the shared catalogs and the sources' environment (for a warehouse's password). */
    public Targets targets() {
        return new Targets(shared.catalogs(), shared.sources().environment(), hadoop);
    }

    /**
     * How often to beat: this worker's own interval, or the ledger's when that is shorter (a ledger that expects beats
     * more often would otherwise declare a live step dead). {@code ledgerMillis} is null from a ledger that does not say.
     */
    public Duration heartbeatInterval(Long ledgerMillis) {
        if (ledgerMillis == null || ledgerMillis <= 0) {
            return heartbeatInterval;
        }
        Duration ledger = Duration.ofMillis(ledgerMillis);
        return ledger.compareTo(heartbeatInterval) < 0 ? ledger : heartbeatInterval;
    }

    /**
     * The caches and pools steps share: runs' jobs, sources, catalogs, the heartbeat timer, and the process's meters
     * ({@link WorkerMetrics#off()} when nothing scrapes them).
     */
    public record Shared(RunContexts runs, SourceCache sources, TargetCatalogs catalogs,
                         ScheduledExecutorService timer, WorkerMetrics metrics) {
        public Shared {
            requireNonNull(runs, "runs is null");
            requireNonNull(sources, "sources is null");
            requireNonNull(catalogs, "catalogs is null");
            requireNonNull(timer, "timer is null");
            requireNonNull(metrics, "metrics is null");
        }
    }
}

package io.loadgate.spark;

import io.loadgate.worker.execution.RunContexts;
import io.loadgate.worker.execution.SourceCache;
import io.loadgate.worker.execution.TargetCatalogs;
import io.loadgate.worker.execution.WorkerContext;
import io.loadgate.worker.ledger.HttpLedgerClient;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.ledger.LedgerClientConfig;
import io.loadgate.worker.ledger.LedgerToken;
import io.loadgate.worker.metrics.WorkerMetrics;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.hadoop.conf.Configuration;

/**
 * What the tasks of one executor process share, made on the first task that needs it: the ledger client, the
 * runs' jobs (read from the ledger, as a worker reads them), the sources and the heartbeat timer. One per ledger
 * settings, kept for the process's life, like a worker's {@link WorkerContext.Shared}.
 */
final class ExecutorRuntime {
    private static final Map<ExecutorSettings, ExecutorRuntime> RUNTIMES = new ConcurrentHashMap<>();

    private final LedgerClient ledger;
    private final WorkerContext.Shared shared;
    private final Configuration hadoop = new Configuration();
    private final String executor;
    private final ExecutorSettings settings;

    private ExecutorRuntime(ExecutorSettings settings) {
        this.settings = settings;
        this.ledger = HttpLedgerClient.create(LedgerClientConfig.builder(settings.ledgerUrl(),
                LedgerToken.of(settings.token())).build());
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "loadgate-spark-heartbeat");
            t.setDaemon(true);
            return t;
        });
        // A task never publishes, so its catalogs stay unopened; the warehouse is only their required default.
        TargetCatalogs unused = new TargetCatalogs(Optional.empty(), Path.of(System.getProperty("java.io.tmpdir")));
        this.shared = new WorkerContext.Shared(new RunContexts(ledger), new SourceCache(System.getenv()), unused,
                timer, WorkerMetrics.off());
        this.executor = host() + "-" + ProcessHandle.current().pid();
    }

    static ExecutorRuntime forSettings(ExecutorSettings settings) {
        return RUNTIMES.computeIfAbsent(settings, ExecutorRuntime::new);
    }

    LedgerClient ledger() {
        return ledger;
    }

    /** A worker context of one attempt: its own node, and the ledger as the hook lets it be seen. */
    WorkerContext context(String node, LedgerClient attemptLedger) {
        return new WorkerContext(attemptLedger, node, hadoop, shared, settings.heartbeatInterval(),
                Duration.ofSeconds(1));
    }

    String executor() {
        return executor;
    }

    private static String host() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "unknown-host";
        }
    }
}

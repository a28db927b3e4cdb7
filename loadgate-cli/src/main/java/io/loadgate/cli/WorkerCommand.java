package io.loadgate.cli;

import io.loadgate.server.config.Durations;
import io.loadgate.worker.cleanup.Cleaner;
import io.loadgate.worker.cleanup.CleanupSchedule;
import io.loadgate.worker.target.SnapshotExpiry;
import io.loadgate.worker.execution.RunContexts;
import io.loadgate.worker.execution.SourceCache;
import io.loadgate.worker.execution.TargetCatalogs;
import io.loadgate.worker.execution.Worker;
import io.loadgate.worker.execution.WorkerContext;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.metrics.MeteredLedgerClient;
import io.loadgate.worker.metrics.MetricsServer;
import io.loadgate.worker.metrics.WorkerMetrics;
import io.loadgate.worker.publish.CatalogConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "worker", mixinStandardHelpOptions = true,
        description = {"Leases steps from a ledger and runs them until stopped: extract partitions, validate staged",
                "files, publish, validate the target. SIGTERM finishes running steps (up to --grace) and abandons",
                "the rest: their claims are left to the sweeper."})
final class WorkerCommand implements Callable<Integer> {
    private static final Duration CLEANUP_STOP_WAIT = Duration.ofSeconds(5);

    @Mixin
    LedgerOptions ledgerOptions;

    @Mixin
    LedgerRetryOption ledgerRetry;

    @Option(names = "--threads", paramLabel = "N", defaultValue = "4", description = "steps at once (default: ${DEFAULT-VALUE})")
    int threads;

    @Option(names = "--node", paramLabel = "NAME", description = "this worker's name in the ledger (default: host name)")
    String node;

    @Option(names = "--catalog", paramLabel = "KEY=VALUE", description = "the default Iceberg catalog for jobs without"
            + " target.catalog, e.g. --catalog type=jdbc --catalog uri=jdbc:postgresql://db/lakehouse (default: the"
            + " lakehouse of the ledger on $LOADGATE_HOME, when one runs there)")
    Map<String, String> catalog = new HashMap<>();

    @Option(names = "--warehouse", paramLabel = "DIR", description = "default warehouse (default: $LOADGATE_HOME/warehouse)")
    Path warehouse;

    @Option(names = "--grace", paramLabel = "SECONDS", defaultValue = "60",
            description = "how long running steps may finish at shutdown (default: ${DEFAULT-VALUE})")
    int graceSeconds;

    @Option(names = "--cleanup-every", paramLabel = "DURATION", description = "also delete the staged files of"
            + " finished runs past retention, as loadgate cleanup does, every DURATION (e.g. 1h, 30m; at least 1s);"
            + " the first pass runs at start (default: off)")
    String cleanupEvery;

    @Mixin
    SnapshotRetentionOptions snapshotRetention;

    @Option(names = "--metrics-port", paramLabel = "PORT", description = "serve GET /metrics (Prometheus) and"
            + " /healthz on this port, without authentication; 0 picks a free port and prints it (default: off)")
    Integer metricsPort;

    @Option(names = "--metrics-host", paramLabel = "HOST", defaultValue = "127.0.0.1",
            description = "the address --metrics-port listens on (default: ${DEFAULT-VALUE}; 0.0.0.0 for all)")
    String metricsHost;

    @Override
    public Integer call() throws Exception {
        ThreadsOption.check(threads);
        Optional<Duration> cleanupInterval = cleanupInterval();
        SnapshotExpiry expiry = snapshotRetention.expiry(SnapshotExpiry.Retention.DEFAULT);
        Optional<InetSocketAddress> metricsAddress = metricsAddress();
        WorkerMetrics metrics = WorkerMetrics.off();
        Optional<MetricsServer> metricsServer = Optional.empty();
        AtomicReference<Worker> started = new AtomicReference<>();
        if (metricsAddress.isPresent()) {
            PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            metrics = new WorkerMetrics(registry);
            // Bound before anything else starts: a port in use stops the worker before it leases a step.
            metricsServer = Optional.of(startMetrics(registry, metricsAddress.get(),
                    () -> Optional.ofNullable(started.get()).flatMap(Worker::unhealthy)));
        }
        try {
            return work(new MeteredLedgerClient(ledgerOptions.workerClient(ledgerRetry), metrics), metrics, started,
                    cleanupInterval, expiry, metricsServer.map(server -> ", metrics on http://"
                            + hostAndPort(server.address()) + "/metrics").orElse(""));
        } finally {
            metricsServer.ifPresent(MetricsServer::close);
        }
    }

    private int work(LedgerClient client, WorkerMetrics metrics, AtomicReference<Worker> started,
                     Optional<Duration> cleanupInterval, SnapshotExpiry expiry, String metricsLine) throws Exception {
        Path home = io.loadgate.server.config.ConfigLoader.home(System.getenv());
        Path dir = warehouse == null ? home.resolve("warehouse") : warehouse;
        Optional<CatalogConfig> defaultCatalog;
        try {
            // Without --catalog, a worker beside a ledger publishes where that ledger's own runs do.
            defaultCatalog = catalog.isEmpty() ? HomeLakehouse.find(System.getenv(), dir)
                    : Optional.of(CatalogConfig.fromProperties(catalog, dir));
        } catch (IllegalArgumentException e) {
            throw new CliException("--catalog: " + e.getMessage(), LedgerOptions.EXIT_USAGE);
        }
        String name = node != null ? node : InetAddress.getLocalHost().getHostName();
        var timer = Executors.newSingleThreadScheduledExecutor();
        try (TargetCatalogs catalogs = new TargetCatalogs(defaultCatalog, dir);
             SourceCache sources = new SourceCache(System.getenv())) {
            WorkerContext context = new WorkerContext(client, name, new Configuration(), new WorkerContext.Shared(
                    new RunContexts(client), sources, catalogs, timer, metrics),
                    Duration.ofSeconds(30), Duration.ofSeconds(20));
            Worker worker = Worker.start(context, threads);
            started.set(worker);
            Optional<CleanupSchedule> cleanup = cleanupInterval.map(every -> CleanupSchedule.start(
                    new Cleaner(client, context.shared().runs(), catalogs, context.hadoop(), expiry), every));
            System.out.println("Loadgate worker " + name + " with " + threads + " thread(s) leasing from "
                    + ledgerOptions.ledgerUrl() + cleanupInterval.map(every -> ", cleaning up every "
                    + Durations.format(every)).orElse("") + metricsLine);
            // The URL without its query, which may hold a password.
            System.out.println(defaultCatalog.map(c -> "Jobs without target.catalog publish to "
                            + (c.uri() == null ? c.warehouse() : c.uri().replaceFirst("\\?.*$", "")))
                    .orElse("No default catalog (--catalog, or a ledger on $LOADGATE_HOME): a job without"
                            + " target.catalog fails its publish"));
            Optional<String> refused = UntilShutdown.awaitOr(worker.refused(), () -> {
                // No new cleanup pass from now on, but the steps stop first: they matter more. A pass that is still
                // running then gets a few seconds more; one that outlasts them dies with the process, which leaves
                // its run a candidate for the next pass (CleanupSchedule.stop says why that is safe).
                cleanup.ifPresent(schedule -> schedule.stop(Duration.ZERO));
                worker.stop(Duration.ofSeconds(graceSeconds));
                cleanup.ifPresent(schedule -> schedule.stop(CLEANUP_STOP_WAIT));
            });
            if (refused.isPresent()) {
                throw new CliException(refused.get(), LedgerOptions.EXIT_REFUSED);
            }
            return 0;
        } finally {
            timer.shutdownNow();
        }
    }

    private Optional<InetSocketAddress> metricsAddress() {
        if (metricsPort == null) {
            return Optional.empty();
        }
        if (metricsPort < 0 || metricsPort > 65535) {
            throw new CliException("--metrics-port must be between 0 and 65535, got " + metricsPort,
                    LedgerOptions.EXIT_USAGE);
        }
        InetSocketAddress address = new InetSocketAddress(metricsHost, metricsPort);
        if (address.isUnresolved()) {
            throw new CliException("--metrics-host: unknown host " + metricsHost, LedgerOptions.EXIT_USAGE);
        }
        return Optional.of(address);
    }

    private static MetricsServer startMetrics(PrometheusMeterRegistry registry, InetSocketAddress address,
                                              Supplier<Optional<String>> unhealthy) {
        try {
            return MetricsServer.start(registry, address, unhealthy);
        } catch (IOException e) {
            throw new CliException("--metrics-port: cannot listen on " + hostAndPort(address) + ": " + e.getMessage());
        }
    }

    private static String hostAndPort(InetSocketAddress address) {
        return address.getAddress().getHostAddress() + ":" + address.getPort();
    }

    private Optional<Duration> cleanupInterval() {
        if (cleanupEvery == null) {
            return Optional.empty();
        }
        Duration every;
        try {
            every = Durations.parse(cleanupEvery);
        } catch (IllegalArgumentException e) {
            throw new CliException("--cleanup-every: " + e.getMessage(), LedgerOptions.EXIT_USAGE);
        }
        // Each pass asks the ledger for candidates: a sub-second interval would only load it.
        if (every.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new CliException("--cleanup-every must be at least 1s, got " + cleanupEvery,
                    LedgerOptions.EXIT_USAGE);
        }
        return Optional.of(every);
    }
}

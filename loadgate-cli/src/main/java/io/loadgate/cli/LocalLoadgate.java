package io.loadgate.cli;

import io.loadgate.server.LoadgateHome;
import io.loadgate.server.LoadgateServer;
import io.loadgate.server.auth.Tokens;
import io.loadgate.server.config.AuthConfig;
import io.loadgate.server.config.LoadgateConfig;
import io.loadgate.server.config.ServerConfig;
import io.loadgate.worker.execution.RunContexts;
import io.loadgate.worker.execution.SourceCache;
import io.loadgate.worker.execution.TargetCatalogs;
import io.loadgate.worker.execution.Worker;
import io.loadgate.worker.execution.WorkerContext;
import io.loadgate.worker.ledger.HttpLedgerClient;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.ledger.LedgerClientConfig;
import io.loadgate.worker.ledger.LedgerToken;
import io.loadgate.worker.metrics.WorkerMetrics;
import io.loadgate.worker.publish.CatalogConfig;
import io.loadgate.worker.publish.LocalFileIO;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.hadoop.conf.Configuration;

/**
 * Loadgate in one process, for {@code loadgate run} without {@code --ledger} and for the demo: the ledger on its
 * configured (by default embedded) PostgreSQL, listening on loopback only, and worker threads talking to it over
 * HTTP exactly as remote workers would. The workers use a token made for this process alone, and so do the
 * operator's actions a local command takes (a rollback).
 *
 * <p>When a {@code loadgate server} runs on the same {@code $LOADGATE_HOME}, its embedded PostgreSQL is taken, and
 * a second ledger cannot start there: the workers (and the operator's actions) then use that server, with the
 * tokens in {@code $LOADGATE_HOME/tokens}, and its lakehouse catalog.
 */
final class LocalLoadgate implements AutoCloseable {
    /**
     * The FileIO of the ledger's lakehouse catalog: the workers' for a local warehouse, which forces every file a
     * commit names to the disk before the catalog points at it (docs/reliability.md), for an engine's commit through
     * the REST catalog as for a worker's publish.
     */
    static final Class<LocalFileIO> LAKEHOUSE_IO = LocalFileIO.class;

    private final LoadgateServer server;
    private final LedgerClient client;
    private final LedgerClient operatorClient;
    private final SourceCache sources;
    private final TargetCatalogs catalogs;
    private final ScheduledExecutorService timer;
    private final Worker worker;
    private final Path home;
    private final io.loadgate.server.config.CleanupConfig cleanup;
    private final String serverUrl;

    private LocalLoadgate(LoadgateServer server, Clients clients, SourceCache sources, TargetCatalogs catalogs,
                          ScheduledExecutorService timer, Worker worker, LoadgateConfig config, String serverUrl) {
        this.server = server;
        this.client = clients.worker();
        this.operatorClient = clients.operator();
        this.sources = sources;
        this.catalogs = catalogs;
        this.timer = timer;
        this.worker = worker;
        this.home = config.home();
        this.cleanup = config.cleanup();
        this.serverUrl = serverUrl;
    }

    /** The configured {@code cleanup.snapshot_retention} and {@code cleanup.snapshots_kept}. */
    io.loadgate.worker.target.SnapshotExpiry.Retention snapshotRetention() {
        return new io.loadgate.worker.target.SnapshotExpiry.Retention(cleanup.snapshotRetention(),
                cleanup.snapshotsKept());
    }

    /** Starts the ledger and, unless {@code workerThreads} is 0 (a command that only reads and records), workers. */
    static LocalLoadgate start(int workerThreads) {
        LoadgateConfig configured = Configs.load(Optional.empty());
        LoadgateHome home = new LoadgateHome(configured.home());
        Optional<LoadgateHome.RunningServer> running = home.runningServer();
        if (running.isPresent()) {
            return attach(configured, home, running.get(), workerThreads);
        }
        String token = Tokens.generate();
        String operatorToken = Tokens.generate();
        LoadgateConfig config = inProcess(configured, Map.of("worker", Tokens.digest(token),
                "operator", Tokens.digest(operatorToken)));
        LoadgateServer server = LoadgateServer.start(config, LAKEHOUSE_IO);
        try {
            Path warehouse = config.home().resolve("warehouse");
            return withWorkers(server, new Clients(client(server, token), client(server, operatorToken)),
                    lakehouse(server, config, warehouse), workerThreads, config,
                    (configured.server().tls() == null ? "http" : "https") + "://127.0.0.1:"
                            + configured.server().port());
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /** Workers of this process, on a ledger of this process ({@code server}) or of a running server (null). */
    private static LocalLoadgate withWorkers(LoadgateServer server, Clients clients, CatalogConfig lakehouse,
                                             int workerThreads, LoadgateConfig config, String serverUrl) {
        LedgerClient client = clients.worker();
        Path warehouse = config.home().resolve("warehouse");
        SourceCache sources = new SourceCache(System.getenv());
        TargetCatalogs catalogs = new TargetCatalogs(Optional.of(lakehouse), warehouse);
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "loadgate-heartbeat");
            t.setDaemon(true);
            return t;
        });
        WorkerContext context = new WorkerContext(client, "local-" + ProcessHandle.current().pid(),
                new Configuration(), new WorkerContext.Shared(new RunContexts(client), sources, catalogs, timer,
                    WorkerMetrics.off()),
                Duration.ofSeconds(10), Duration.ofSeconds(1));
        Worker worker = workerThreads == 0 ? null : Worker.start(context, workerThreads);
        return new LocalLoadgate(server, clients, sources, catalogs, timer, worker, config, serverUrl);
    }

    /** This process's workers on the server running on {@code home}, with the home's tokens. */
    private static LocalLoadgate attach(LoadgateConfig config, LoadgateHome home, LoadgateHome.RunningServer running,
                                        int workerThreads) {
        String missing = "loadgate server (pid " + running.pid() + ") runs on " + home.path() + ", but "
                + home.tokensFile() + " has no ";
        String token = home.token("worker").orElseThrow(() -> new CliException(missing + "worker token: pass"
                + " --ledger " + running.url() + " and --token-file", LedgerOptions.EXIT_USAGE));
        String operatorToken = home.token("operator").orElseThrow(() -> new CliException(missing
                + "operator token: pass --ledger " + running.url() + " and --token-file", LedgerOptions.EXIT_USAGE));
        Path warehouse = home.path().resolve("warehouse");
        CatalogConfig lakehouse = running.embeddedPort() > 0
                ? CatalogConfig.jdbc("jdbc:postgresql://127.0.0.1:" + running.embeddedPort() + "/lakehouse", "postgres",
                        "", warehouse)
                : CatalogConfig.jdbc(config.database().url().orElseThrow(), config.database().user(),
                        config.database().password(), warehouse);
        System.err.println("loadgate: using loadgate server (pid " + running.pid() + ") at " + running.url()
                + (workerThreads == 0 ? "" : ", with " + workerThreads + " worker thread(s) in this process"));
        return withWorkers(null, new Clients(client(running.url(), token), client(running.url(), operatorToken)),
                lakehouse, workerThreads, config, running.url());
    }

    private record Clients(LedgerClient worker, LedgerClient operator) {
        Clients {
            java.util.Objects.requireNonNull(worker, "worker is null");
            java.util.Objects.requireNonNull(operator, "operator is null");
        }
    }

    private static LedgerClient client(LoadgateServer server, String token) {
        return client("http://127.0.0.1:" + server.port(), token);
    }

    private static LedgerClient client(String url, String token) {
        return HttpLedgerClient.create(LedgerClientConfig.builder(url, LedgerToken.of(token)).build());
    }

    /** The configured ledger, on loopback and a free port, with this process's own tokens (by role) added. */
    private static LoadgateConfig inProcess(LoadgateConfig config, Map<String, String> ownDigests) {
        Map<String, List<String>> digests = new HashMap<>(config.auth().tokenDigests());
        ownDigests.forEach((role, digest) -> {
            List<String> roleDigests = new ArrayList<>(digests.getOrDefault(role, List.of()));
            roleDigests.add(digest);
            digests.put(role, roleDigests);
        });
        return new LoadgateConfig(new ServerConfig("127.0.0.1", 0, null), config.database(),
                new AuthConfig(digests, config.auth().allowedRoots()), config.recovery(), config.dispatch(),
                config.cleanup(), config.home());
    }

    /** The default Iceberg catalog: a {@code lakehouse} database beside the ledger's. */
    private static CatalogConfig lakehouse(LoadgateServer server, LoadgateConfig config, Path warehouse) {
        if (server.embedded().isPresent()) {
            var embedded = server.embedded().get();
            embedded.ensureDatabase("lakehouse");
            return CatalogConfig.jdbc(embedded.jdbcUrl("lakehouse"), embedded.user(), "", warehouse);
        }
        return CatalogConfig.jdbc(config.database().url().orElseThrow(), config.database().user(),
                config.database().password(), warehouse);
    }

    LedgerClient client() {
        return client;
    }

    /** A client with this process's operator token, for the operator's actions of a local command. */
    LedgerClient operatorClient() {
        return operatorClient;
    }

    SourceCache sources() {
        return sources;
    }

    TargetCatalogs catalogs() {
        return catalogs;
    }

    /** The embedded PostgreSQL of this process's ledger; empty with a configured database or a running server's. */
    Optional<io.loadgate.ledger.db.EmbeddedPostgres> embedded() {
        return server == null ? Optional.empty() : server.embedded();
    }

    Path home() {
        return home;
    }

    /**
     * The Iceberg REST catalog of the {@code loadgate server} on this home: the running one's, else where one
     * started there listens ({@code server.port}); this process's own ledger listens on a free port and ends with it.
     */
    String restCatalogUrl() {
        return serverUrl + "/iceberg";
    }

    @Override
    public void close() {
        if (worker != null) {
            worker.stop(Duration.ofSeconds(10));
        }
        timer.shutdownNow();
        sources.close();
        catalogs.close();
        if (server != null) {
            server.close();
        }
    }
}

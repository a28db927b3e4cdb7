package io.loadgate.bench;

import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunStatus;
import io.loadgate.ledger.Ledger;
import io.loadgate.ledger.db.EmbeddedPostgres;
import io.loadgate.server.LoadgateHome;
import io.loadgate.server.LoadgateServer;
import io.loadgate.server.auth.Tokens;
import io.loadgate.server.config.AuthConfig;
import io.loadgate.server.config.ConfigLoader;
import io.loadgate.server.config.LoadgateConfig;
import io.loadgate.server.config.ServerConfig;
import io.loadgate.worker.execution.RunContexts;
import io.loadgate.worker.execution.SourceCache;
import io.loadgate.worker.execution.TargetCatalogs;
import io.loadgate.worker.execution.Worker;
import io.loadgate.worker.execution.WorkerContext;
import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.job.JobSpecLoader;
import io.loadgate.worker.job.StagingSpec;
import io.loadgate.worker.ledger.HttpLedgerClient;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.ledger.LedgerClientConfig;
import io.loadgate.worker.ledger.LedgerToken;
import io.loadgate.worker.metrics.WorkerMetrics;
import io.loadgate.worker.publish.CatalogConfig;
import io.loadgate.worker.publish.LocalFileIO;
import io.loadgate.worker.submit.RunFollower;
import io.loadgate.worker.job.SourceMetricsTiming;
import io.loadgate.worker.submit.RunSubmitter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.hadoop.conf.Configuration;

/**
 * The ledger in this process on the embedded PostgreSQL of an isolated {@code LOADGATE_HOME}, wired as
 * {@code loadgate run} wires it (the CLI's {@code LocalLoadgate}), except that the workers' {@link LedgerClient} is a
 * {@link TimedLedgerClient}. Workers still talk to the ledger over loopback HTTP.
 *
 * <p>One worker pool serves every load of the benchmark, as a running fleet would. Not a pool per load: a stopped
 * worker's long poll can still be answered by the ledger with the next run's dispatch, which then waits out
 * {@code dispatch.ack_timeout} (10 minutes) before it is redelivered.
 */
final class BenchLoadgate implements AutoCloseable {
    private final LoadgateServer server;
    private final LedgerClient http;
    private final TimedLedgerClient timed;
    private final TargetCatalogs catalogs;
    private final SourceCache sources;
    private final ScheduledExecutorService timer;
    /** Empty when the workers run elsewhere (a process of their own, as {@code --scale} has them). */
    private final Optional<Worker> worker;
    private final Map<String, String> environment;
    private final Path home;
    private final String token;

    private BenchLoadgate(LoadgateServer server, LedgerClient http, String token, TargetCatalogs catalogs,
                          Map<String, String> environment, Path home, int threads) {
        this.server = server;
        this.http = http;
        this.token = token;
        this.catalogs = catalogs;
        this.environment = environment;
        this.home = home;
        this.timed = new TimedLedgerClient(http);
        this.sources = new SourceCache(environment);
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "loadgate-heartbeat");
            t.setDaemon(true);
            return t;
        });
        WorkerContext context = new WorkerContext(timed, "bench-" + ProcessHandle.current().pid(),
                new Configuration(), new WorkerContext.Shared(new RunContexts(timed), sources, catalogs, timer,
                    WorkerMetrics.off()),
                Duration.ofSeconds(10), Duration.ofSeconds(1));
        this.worker = threads > 0 ? Optional.of(Worker.start(context, threads)) : Optional.empty();
    }

    /** The ledger and a pool of {@code workerThreads} workers in this process. */
    static BenchLoadgate start(Path home, int workerThreads) {
        if (workerThreads < 1) {
            throw new IllegalArgumentException("workerThreads must be at least 1, got " + workerThreads);
        }
        return open(home, workerThreads);
    }

    /** The ledger alone: the workers are started apart ({@link WorkerProcess}) or not at all (the report rate). */
    static BenchLoadgate startLedger(Path home) {
        return open(home, 0);
    }

    private static BenchLoadgate open(Path home, int workerThreads) {
        // Only LOADGATE_HOME from us: a developer's LOADGATE_* overrides must not point the benchmark elsewhere.
        Map<String, String> env = new HashMap<>();
        System.getenv().forEach((k, v) -> {
            if (!k.startsWith("LOADGATE_")) {
                env.put(k, v);
            }
        });
        env.put("LOADGATE_HOME", home.toString());
        // Its own PostgreSQL on a free port, beside a user's home on the fixed default.
        env.put("LOADGATE_DATABASE__EMBEDDED_PORT", "0");
        LoadgateConfig defaults = ConfigLoader.load(Optional.empty(), env);
        Path configFile = new LoadgateHome(defaults.home()).ensureInitialised();
        LoadgateConfig configured = ConfigLoader.load(Optional.of(configFile), env);
        String token = Tokens.generate();
        Map<String, List<String>> digests = new HashMap<>(configured.auth().tokenDigests());
        List<String> workers = new ArrayList<>(digests.getOrDefault("worker", List.of()));
        workers.add(Tokens.digest(token));
        digests.put("worker", workers);
        LoadgateConfig config = new LoadgateConfig(new ServerConfig("127.0.0.1", 0, null), configured.database(),
                new AuthConfig(digests, configured.auth().allowedRoots()), configured.recovery(),
                configured.dispatch(), configured.cleanup(), configured.home());
        LoadgateServer server = LoadgateServer.start(config, LocalFileIO.class);
        try {
            var embedded = server.embedded().orElseThrow(() -> new IllegalStateException(
                    "the benchmark's home " + home + " names a database; it wants the embedded one"));
            embedded.ensureDatabase("lakehouse");
            Path warehouse = home.resolve("warehouse");
            LedgerClient http = HttpLedgerClient.create(LedgerClientConfig.builder("http://127.0.0.1:"
                    + server.port(), LedgerToken.of(token)).build());
            TargetCatalogs catalogs = new TargetCatalogs(Optional.of(CatalogConfig.jdbc(
                    embedded.jdbcUrl("lakehouse"), embedded.user(), "", warehouse)), warehouse);
            return new BenchLoadgate(server, http, token, catalogs, Map.copyOf(env), home, workerThreads);
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    Path home() {
        return home;
    }

    /**
     * Stops the worker pool (its leased dispatches are released), so that the loads that follow are executed only by
     * what runs them (Spark tasks): a pool that leases every dispatch type would take their extractions too.
     */
    void stopWorkers() {
        worker.ifPresent(w -> w.stop(Duration.ofSeconds(10)));
    }

    String ledgerUrl() {
        return "http://127.0.0.1:" + server.port();
    }

    /** A worker token of this ledger (Spark's tasks claim with it). */
    String workerToken() {
        return token;
    }

    LedgerClient ledger() {
        return http;
    }

    TargetCatalogs catalogs() {
        return catalogs;
    }

    Map<String, String> environment() {
        return environment;
    }

    /**
     * One load from submit to its end. The follower that watches the run (as the CLI's progress display does) has
     * its own timed client, so its polling is kept apart from the load's calls.
     */
    LoadResult load(String label, int partitions, String yaml, String businessKey) throws Exception {
        Submitted load = submit(label, yaml, businessKey);
        return LoadResult.of(label, partitions, load.end(), load.startNanos(), load.calls(), load.followerCalls());
    }

    /**
     * A submitted load that ended SUCCESS: its last view, when it was submitted (this process's nanoTime and the
     * wall clock, which the ledger's timestamps are on), and the timed calls made while it ran.
     */
    record Submitted(RunView end, long startNanos, Instant startedAt, List<TimedLedgerClient.Call> calls,
                     List<TimedLedgerClient.Call> followerCalls) {
        /** Submit to the ledger's completedAt: the same clock, to the millisecond, unlike the follower's polls. */
        Duration wall() {
            return Duration.between(startedAt, end.completedAt());
        }
    }

    private static volatile boolean metricsInManifest;

    /** Submits the job and follows the run to its end; anything but SUCCESS throws. */
    Submitted submit(String label, String yaml, String businessKey) throws Exception {
        Path jobFile = home.resolve("jobs").resolve("bench-" + label.replaceAll("[^A-Za-z0-9]+", "-") + ".yaml");
        Files.createDirectories(jobFile.getParent());
        Files.writeString(jobFile, yaml);
        JobSpec job = JobSpecLoader.parse(jobFile, yaml);
        TimedLedgerClient followerCalls = new TimedLedgerClient(http);
        int before = timed.calls().size();
        Instant startedAt = Instant.now();
        long start = System.nanoTime();
        RunView end;
        var submission = new RunSubmitter(timed, sources, environment).submit(job, yaml, businessKey);
        metricsInManifest = submission.plan().sourceMetrics().isPresent();
        try (submission) {
            end = new RunFollower(followerCalls, Duration.ofMillis(100), Duration.ofSeconds(30))
                    .follow(submission.runId(), submission, run -> { });
        }
        if (end.status() != RunStatus.SUCCESS) {
            throw new IllegalStateException("the load ended " + end.status() + ": " + end.errorMessage());
        }
        // Calls are appended as they end: those after `before` are this load's, plus lease polls begun earlier. The
        // follower may see SUCCESS before the worker's success call has returned (the ledger commits first). Workers
        // in a process of their own make that call on their own client: nothing to wait for here.
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (worker.isPresent() && timed.calls().stream().skip(before).noneMatch(c -> c.method().equals("success"))
                && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        var calls = timed.calls();
        return new Submitted(end, start, startedAt, calls.subList(before, calls.size()), followerCalls.calls());
    }

    /** The ledger in this process, behind its HTTP API: what a call costs without HTTP. */
    Ledger inProcessLedger() {
        return server.ledger();
    }

    /** The embedded PostgreSQL the ledger runs on (it can hold other databases: pgbench's). */
    EmbeddedPostgres embedded() {
        return server.embedded().orElseThrow();
    }

    /**
     * The table jobs' {@code source.metrics}: {@code BENCH_SOURCE_METRICS} (auto, while_planning, during_extraction),
     * so that one build can compare the orders; auto, the default, otherwise.
     */
    static SourceMetricsTiming metricsTiming() {
        String timing = System.getenv("BENCH_SOURCE_METRICS");
        return timing == null || timing.isBlank() ? SourceMetricsTiming.AUTO
                : SourceMetricsTiming.valueOf(timing.trim().toUpperCase(java.util.Locale.ROOT));
    }

    /**
     * The table jobs' {@code staging.compression_level}: {@code BENCH_COMPRESSION_LEVEL} (zstd's 1 to 22), or empty for
     * the codec's default (3), so that one build can compare the levels.
     */
    static Optional<Integer> compressionLevel() {
        return integerFromEnvironment("BENCH_COMPRESSION_LEVEL");
    }

    /**
     * The table jobs' {@code staging.rows_per_chunk}: {@code BENCH_ROWS_PER_CHUNK}, or empty for the default
     * (1,000,000). A chunk's pages are most of what a writer holds, so a scale run whose smallest partitions are
     * shorter than a chunk compares memory across sizes only with chunks all its sizes fill.
     */
    static Optional<Integer> rowsPerChunk() {
        return integerFromEnvironment("BENCH_ROWS_PER_CHUNK");
    }

    private static Optional<Integer> integerFromEnvironment(String name) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(Integer.valueOf(value.trim()));
    }

    /** "1,000,000 rows per chunk", or the chunk size {@link #rowsPerChunk} gives. */
    static String chunkName() {
        return "%,d rows per chunk".formatted(rowsPerChunk().orElse(StagingSpec.DEFAULT_ROWS_PER_CHUNK));
    }

    /** "zstd" or "zstd level N", as a report names the staged files' codec. */
    static String codecName() {
        return compressionLevel().map(level -> "zstd level " + level).orElse("zstd (its default level, 3)");
    }

    /** Whether the last table load's manifest carried the source metrics (how {@code auto} resolved). */
    static boolean lastManifestCarriedMetrics() {
        return metricsInManifest;
    }

    @Override
    public void close() {
        stopWorkers();
        timer.shutdownNow();
        sources.close();
        catalogs.close();
        server.close();
    }
}

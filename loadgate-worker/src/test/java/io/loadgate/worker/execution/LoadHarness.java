package io.loadgate.worker.execution;

import io.loadgate.api.DispatchType;
import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunId;
import io.loadgate.ledger.LedgerSettings;
import io.loadgate.ledger.run.StagePath;
import io.loadgate.ledger.testing.TestDatabases;
import io.loadgate.server.testing.TestLedger;
import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.job.JobSpecLoader;
import io.loadgate.worker.ledger.HttpLedgerClient;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.ledger.LedgerClientConfig;
import io.loadgate.worker.ledger.LedgerToken;
import io.loadgate.worker.metrics.MeteredLedgerClient;
import io.loadgate.worker.metrics.WorkerMetrics;
import io.loadgate.worker.publish.CatalogConfig;
import io.loadgate.worker.publish.FaultInjectingCatalog;
import io.loadgate.worker.publish.TargetCatalog;
import io.loadgate.worker.submit.RunFollower;
import io.loadgate.worker.submit.RunSubmitter;
import io.loadgate.worker.testing.ItemsTable;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.UnaryOperator;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Loadgate end to end in one test process, with nothing faked: a ledger on PostgreSQL behind its HTTP API, a
 * PostgreSQL source, real Parquet files in a temporary stage, an Iceberg table in a JDBC catalog, and workers
 * leasing their steps over HTTP.
 */
final class LoadHarness implements AutoCloseable {
    static final String TABLE = "lake.items";

    final TestLedger ledger;
    final TestDatabases.TestDatabase source;
    final Path stage;
    final LedgerClient client;
    final FaultInjectingCatalog faults;
    final TargetCatalog catalog;
    final SourceCache sources = new SourceCache(Map.of());
    final WorkerContext context;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final List<Worker> workers = new ArrayList<>();

    LoadHarness(Path dir, LedgerSettings.RecoveryMode mode) throws SQLException {
        this(dir, mode, WorkerMetrics.off());
    }

    /** A harness whose workers (and their ledger client) record into {@code metrics}. */
    LoadHarness(Path dir, LedgerSettings.RecoveryMode mode, WorkerMetrics metrics) throws SQLException {
        this(dir, mode, metrics, UnaryOperator.identity(), UnaryOperator.identity());
    }

    /** A harness whose ledger reaches its database at {@code ledgerPoolUrl} of the database's URL (a proxy). */
    LoadHarness(Path dir, LedgerSettings.RecoveryMode mode, WorkerMetrics metrics, UnaryOperator<String> ledgerPoolUrl)
            throws SQLException {
        this(dir, mode, metrics, ledgerPoolUrl, UnaryOperator.identity());
    }

    /** A harness whose workers reach the ledger through {@code seam} (a fault-injecting fake), the test's client not. */
    LoadHarness(Path dir, LedgerSettings.RecoveryMode mode, UnaryOperator<LedgerClient> seam) throws SQLException {
        this(dir, mode, WorkerMetrics.off(), UnaryOperator.identity(), seam);
    }

    private LoadHarness(Path dir, LedgerSettings.RecoveryMode mode, WorkerMetrics metrics,
                        UnaryOperator<String> ledgerPoolUrl, UnaryOperator<LedgerClient> seam) throws SQLException {
        stage = dir.resolve("stage");
        ledger = new TestLedger(new LedgerSettings(List.of(StagePath.parse(stage.toUri().toString())), mode, 3),
                ledgerPoolUrl);
        source = TestDatabases.create();
        TestDatabases.TestDatabase lake = TestDatabases.create();
        client = HttpLedgerClient.create(LedgerClientConfig.builder(ledger.baseUrl(),
                LedgerToken.of(ledger.workerToken)).build());
        TargetCatalog real = TargetCatalog.open(CatalogConfig.jdbc(lake.jdbcUrl(), lake.user(), lake.password(),
                dir.resolve("warehouse")));
        faults = new FaultInjectingCatalog(real.catalog());
        catalog = new TargetCatalog(faults);
        LedgerClient metered = new MeteredLedgerClient(seam.apply(client), metrics);
        context = new WorkerContext(metered, "test-node", new Configuration(), new WorkerContext.Shared(
                new RunContexts(metered), sources, TargetCatalogs.withDefault(catalog, dir.resolve("warehouse")), timer,
                metrics), Duration.ofMillis(500), Duration.ofSeconds(1));
        ItemsTable.create(source);
    }

    /** Adds {@code rows} rows dated {@code day}; every 50th has a NULL split value, every 7th a NULL note. */
    void addRows(LocalDate day, long firstId, long rows) throws SQLException {
        ItemsTable.addRows(source, day, firstId, rows);
    }

    String jobYaml(String jobKey, int partitions) {
        return """
                job_key: %s
                source:
                  jdbc_url: "%s"
                  user: postgres
                  table: public.items
                  split_column: id
                  partitions: %d
                  filter: "day = CAST(:business_key AS date)"
                  fetch_size: 1000
                target:
                  table: %s
                  business_key_column: day
                staging:
                  root: "%s"
                  rows_per_chunk: 3000
                validation:
                  sum: [amount, grp]
                  min: [id]
                  max: [id]
                  null_count: [note, id]
                """.formatted(jobKey, source.jdbcUrl(), partitions, TABLE, stage.toUri());
    }

    RunSubmitter.Submission submit(String yaml, LocalDate day) {
        return submit(yaml, day.toString());
    }

    RunSubmitter.Submission submit(String yaml, String businessKey) {
        JobSpec job = JobSpecLoader.parse(Path.of("test.yaml"), yaml);
        return new RunSubmitter(client, sources, Map.of()).submit(job, yaml, businessKey);
    }

    Worker startWorker(int threads, Set<DispatchType> types) {
        Worker worker = Worker.start(context, threads, types);
        workers.add(worker);
        return worker;
    }

    Worker startWorker(int threads) {
        return startWorker(threads, java.util.EnumSet.allOf(DispatchType.class));
    }

    /** A worker whose extractions beat every {@code heartbeatInterval} instead of the harness's 500 ms. */
    Worker startWorker(int threads, Duration heartbeatInterval) {
        WorkerContext beating = new WorkerContext(client, context.node(), context.hadoop(), context.shared(),
                heartbeatInterval, context.leaseWait());
        Worker worker = Worker.start(beating, threads, java.util.EnumSet.allOf(DispatchType.class));
        workers.add(worker);
        return worker;
    }

    /** A worker of its own node that calls the ledger through {@code ledger} (a fault at the seam, say). */
    Worker startWorker(LedgerClient ledger, String node, Set<DispatchType> types) {
        WorkerContext own = new WorkerContext(ledger, node, context.hadoop(), context.shared(),
                context.heartbeatInterval(), context.leaseWait());
        Worker worker = Worker.start(own, 1, types);
        workers.add(worker);
        return worker;
    }

    RunView follow(RunSubmitter.Submission submission) throws InterruptedException {
        return new RunFollower(client, Duration.ofMillis(100), Duration.ofSeconds(5))
                .follow(submission.runId(), submission, run -> { });
    }

    RunView waitFor(RunId runId, io.loadgate.api.RunStatus status) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            RunView run = client.getRun(runId);
            if (run.status() == status || run.status().isTerminal()) {
                return run;
            }
            Thread.sleep(100);
        }
        return client.getRun(runId);
    }

    /** The source's rows of a day, each as one canonical line, sorted. */
    List<String> sourceRows(LocalDate day) throws SQLException {
        return ItemsTable.rows(source, day);
    }

    /** The Iceberg table's rows of a day as it is now, in the same canonical form. */
    List<String> tableRows(LocalDate day) {
        return ItemsTable.rows(catalog.loadTable(TableIdentifier.parse(TABLE)), day);
    }


    @Override
    public void close() {
        workers.forEach(w -> w.stop(Duration.ofSeconds(5)));
        timer.shutdownNow();
        sources.close();
        catalog.close();
        ledger.close();
    }
}

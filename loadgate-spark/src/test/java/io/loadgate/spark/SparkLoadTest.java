package io.loadgate.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.loadgate.api.DispatchStatus;
import io.loadgate.api.DispatchType;
import io.loadgate.api.JobKey;
import io.loadgate.api.PartitionId;
import io.loadgate.api.PartitionStatus;
import io.loadgate.api.RunApi;
import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunId;
import io.loadgate.api.RunStatus;
import io.loadgate.api.StepApi.StagedFile;
import io.loadgate.ledger.LedgerSettings;
import io.loadgate.ledger.dispatch.DispatchPolicy;
import io.loadgate.ledger.run.StagePath;
import io.loadgate.ledger.sweeper.Sweep;
import io.loadgate.ledger.sweeper.SweepThresholds;
import io.loadgate.ledger.testing.TestDatabases;
import io.loadgate.server.lakehouse.Lakehouse;
import io.loadgate.server.testing.TestLedger;
import io.loadgate.spark.PartitionResult.Role;
import io.loadgate.worker.cleanup.Cleaner;
import io.loadgate.worker.cleanup.CleanupMode;
import io.loadgate.worker.cleanup.RunCleanup;
import io.loadgate.worker.execution.RunContexts;
import io.loadgate.worker.execution.SourceCache;
import io.loadgate.worker.execution.TargetCatalogs;
import io.loadgate.worker.execution.Worker;
import io.loadgate.worker.execution.WorkerContext;
import io.loadgate.worker.job.JobSpecException;
import io.loadgate.worker.job.JobSpecLoader;
import io.loadgate.worker.ledger.HttpLedgerClient;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.ledger.LedgerClientConfig;
import io.loadgate.worker.ledger.LedgerToken;
import io.loadgate.worker.metrics.WorkerMetrics;
import io.loadgate.worker.publish.CatalogConfig;
import io.loadgate.worker.publish.LocalFileIO;
import io.loadgate.worker.publish.TargetCatalog;
import io.loadgate.worker.source.files.SnapshotFile;
import io.loadgate.worker.testing.ItemsTable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Loadgate on real Spark in this process, against a real ledger, a PostgreSQL source (and a drop of files) and an
 * Iceberg table in a JDBC catalog. The master is {@code speculating-local[2]} ({@link SpeculatingLocalCluster}): two one-core executors on
 * two "hosts", because plain {@code local[2]} never launches a speculative copy. One Spark session, one ledger and
 * one sweeper (stale after 3 s) serve every test; each test loads its own day.
 */
@Timeout(300)
class SparkLoadTest {
    private static final String TABLE = "lake.items";
    private static final TableIdentifier EVENTS = TableIdentifier.parse("lake.events");
    private static final String POOL_NODE = "ordinary-worker";
    private static final Duration STALE = Duration.ofSeconds(3);
    private static final SweepThresholds THRESHOLDS = new SweepThresholds(STALE, Duration.ofHours(6),
            Duration.ofHours(1), Duration.ofHours(2), Duration.ofHours(2), new DispatchPolicy(20, Duration.ofSeconds(5),
            Duration.ofMinutes(5), Duration.ofMinutes(10), Duration.ofSeconds(60)), 500);

    @TempDir
    static Path dir;

    private static TestLedger ledger;
    private static LedgerClient client;
    private static TestDatabases.TestDatabase source;
    private static CatalogConfig lake;
    private static Lakehouse lakehouse;
    private static TargetCatalogs catalogs;
    private static SparkSession spark;
    private static ScheduledExecutorService sweeper;

    @BeforeAll
    static void start() throws Exception {
        Path stage = dir.resolve("stage");
        TestDatabases.TestDatabase lakeDatabase = TestDatabases.create();
        lake = CatalogConfig.jdbc(lakeDatabase.jdbcUrl(), lakeDatabase.user(), lakeDatabase.password(),
                dir.resolve("warehouse"));
        // The ledger serves the jobs' catalog over the Iceberg REST protocol too, as loadgate server serves its own.
        lakehouse = Lakehouse.jdbc(lakeDatabase.jdbcUrl(), lakeDatabase.user(), lakeDatabase.password(),
                dir.resolve("warehouse"), LocalFileIO.class);
        // Beats every 500 ms, well inside the sweeper's 3 s stale window (as a ledger's config must have it), so a
        // child JVM's driver and tasks, which beat as often as the ledger asks, are not taken for dead.
        ledger = new TestLedger(new LedgerSettings(List.of(StagePath.parse(stage.toUri().toString())),
                LedgerSettings.RecoveryMode.REISSUE, 3, Duration.ofHours(2),
                new LedgerSettings.Retention(Duration.ofDays(3), Duration.ofDays(14), 200), Duration.ofMillis(500)),
                lakehouse);
        client = HttpLedgerClient.create(LedgerClientConfig.builder(ledger.baseUrl(),
                LedgerToken.of(ledger.workerToken)).build());
        source = TestDatabases.create();
        catalogs = new TargetCatalogs(Optional.empty(), dir.resolve("warehouse"));
        ItemsTable.create(source);
        Sweep sweep = new Sweep(ledger.ledger.database(), ledger.ledger.settings());
        sweeper = Executors.newSingleThreadScheduledExecutor();
        sweeper.scheduleWithFixedDelay(() -> sweep.tick(THRESHOLDS), 500, 500, TimeUnit.MILLISECONDS);
        spark = SparkSession.builder().master("speculating-local[2]").appName("loadgate-spark-test")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "2")
                .config("spark.sql.datetime.java8API.enabled", "true")
                // Speculation as a cluster would run it, with thresholds a test can reach: once half the tasks are
                // done, a task running 1.5 times the median (and at least 100 ms) gets a copy.
                .config("spark.speculation", "true")
                .config("spark.speculation.interval", "200ms")
                .config("spark.speculation.quantile", "0.5")
                .config("spark.speculation.multiplier", "1.5")
                .config("spark.speculation.minTaskRuntime", "100ms")
                .config("spark.speculation.efficiency.enabled", "false")
                .config("spark.task.maxFailures", "4")
                .getOrCreate();
    }

    @AfterAll
    static void stop() throws IOException {
        if (spark != null) {
            spark.stop();
        }
        if (sweeper != null) {
            sweeper.shutdownNow();
        }
        if (catalogs != null) {
            catalogs.close();
        }
        if (ledger != null) {
            ledger.close();
        }
        if (lakehouse != null) {
            lakehouse.close();
        }
    }

    @Test
    void aSpeculativeCopyTakesOverAStalledAttemptAndOnlyOneAttemptsFilesArePublished() throws Exception {
        LocalDate day = LocalDate.of(2026, 12, 1);
        addRows(day, 1, 8_000);
        // Attempt 0 of partition 0001 writes its chunks, reports one, then hangs without beating.
        TaskHook stall = (ledger, partitionId, attempt) -> "0001".equals(partitionId) && attempt.attemptNumber() == 0
                ? new StallingLedger(ledger, StallingLedger.Fault.STALL) : ledger;

        SparkLoad.Result result = load("SPEC", day, stall, "");

        assertThat(result.run().status()).as("run %s", result.run()).isEqualTo(RunStatus.SUCCESS);
        assertThat(result.tasks()).as("one returned attempt per task").hasSameSizeAs(result.run().partitions());
        RunView run = result.run();
        List<String> published = client.files(run.runId()).stream().map(StagedFile::hdfsPath).toList();
        List<Path> staged = files(run.hdfsRunPath(), "part-0001-");
        assertThat(writers(staged)).as("both attempts of task 1 wrote files: %s", staged)
                .anyMatch(w -> w.endsWith("a0")).anyMatch(w -> w.endsWith("a1"));
        List<Path> part1Published = published.stream().filter(p -> p.contains("part-0001-")).map(SparkLoadTest::path)
                .toList();
        assertThat(writers(part1Published)).as("exactly one attempt's files are the partition's committed ones")
                .hasSize(1).allMatch(w -> w.endsWith("a1"));
        assertSameRows(day);
        IcebergReadBack.Read read = IcebergReadBack.read(IcebergReadBack.SparkCatalog.jdbc(lake.uri(),
                lake.properties().get("jdbc.user"), lake.properties().get("jdbc.password"), dir.resolve("warehouse")),
                TABLE, day);
        assertThat(read.rows()).as("Spark reads the published table through iceberg-spark-runtime and the same catalog")
                .isEqualTo(ItemsTable.rows(source, day));
        assertThat(read.dataFiles().stream().map(SparkLoadTest::path).toList())
                .as("the table holds exactly the ledger's files")
                .containsExactlyInAnyOrderElementsOf(published.stream().map(SparkLoadTest::path).toList());

        List<Path> zombies = staged.stream().filter(p -> !part1Published.contains(p)).toList();
        assertThat(zombies).as("the stalled attempt's files").isNotEmpty();
        ledger.execute("UPDATE loadgate.load_run SET completed_at = now() - interval '30 days' WHERE run_id = '"
                + run.runId() + "'");
        List<RunCleanup> cleaned = new Cleaner(client, new RunContexts(client), catalogs, new Configuration())
                .clean(CleanupMode.DELETE);
        RunCleanup report = cleaned.stream().filter(r -> r.runId().equals(run.runId())).findFirst().orElseThrow();
        assertThat(report.deleted().stream().map(SparkLoadTest::path).toList())
                .as("cleanup lists the loser's files as zombies and removes them")
                .containsExactlyInAnyOrderElementsOf(zombies);
        assertThat(zombies).noneMatch(Files::exists);
        assertSameRows(day);
    }

    @Test
    void anOrdinaryWorkerPoolOfTheSameLedgerTakesNoPartitionOfASparkRun() throws Exception {
        LocalDate day = LocalDate.of(2026, 12, 8);
        addRows(day, 600_001, 6_000);
        // Workers of the same ledger, leasing every kind of step and woken at once by each new dispatch.
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        Worker pool = Worker.start(new WorkerContext(client, POOL_NODE, new Configuration(), new WorkerContext.Shared(
                new RunContexts(client), new SourceCache(Map.of()), catalogs, timer, WorkerMetrics.off()),
                Duration.ofMillis(500), Duration.ofSeconds(1)), 2);
        SparkLoad.Result result;
        try {
            result = load("POOL", day, TaskHook.NONE, "");
        } finally {
            pool.stop(Duration.ofSeconds(30));
            timer.shutdownNow();
        }

        RunView run = result.run();
        assertThat(run.status()).as("run %s", run).isEqualTo(RunStatus.SUCCESS);
        assertThat(run.partitions()).as("every partition was claimed by a Spark task attempt")
                .isNotEmpty().allSatisfy(p -> assertThat(p.workerNode()).contains("/spark-stage"));
        assertThat(claimers(run.runId())).as("the nodes whose claims won").isNotEmpty()
                .noneMatch(node -> node.startsWith(POOL_NODE)).allMatch(node -> node.contains("/spark-stage"));
        assertThat(run.dispatches()).as("no dispatch is left waiting or unacknowledged")
                .noneMatch(d -> d.status() == DispatchStatus.PENDING || d.status() == DispatchStatus.SENT);
        assertThat(run.dispatches()).as("a Spark run's partitions are its driver's, never a dispatch")
                .noneMatch(d -> d.dispatchType() == DispatchType.EXTRACT_PARTITION
                        || d.dispatchType() == DispatchType.REISSUE_PARTITION);
        assertSameRows(day);
    }

    /** The worker nodes of every claim that won a partition of the run, from its events. */
    private static List<String> claimers(RunId runId) throws Exception {
        List<String> nodes = new ArrayList<>();
        try (var c = ledger.db.connect(); var s = c.prepareStatement("SELECT actor FROM loadgate.load_event"
                + " WHERE run_id = ? AND event_type = 'PARTITION_CLAIMED'")) {
            s.setObject(1, runId.value());
            try (var rs = s.executeQuery()) {
                while (rs.next()) {
                    nodes.add(rs.getString(1));
                }
            }
        }
        return nodes;
    }

    @Test
    void aFileSourcesPartitionsAreSparkTasksReadingTheirListedFilesAndASpeculativeCopyKeepsEachLineOnce()
            throws Exception {
        Map<String, long[]> fileIds = dropHour(14, 6, 300);
        List<Long> lineIds = fileIds.values().stream()
                .flatMap(r -> LongStream.rangeClosed(r[0], r[1]).boxed()).sorted().toList();
        String yaml = filesJobYaml("FILES_SPEC");
        TaskHook stall = (ledger, partitionId, attempt) -> "0001".equals(partitionId) && attempt.attemptNumber() == 0
                ? new StallingLedger(ledger, StallingLedger.Fault.STALL) : ledger;
        ExecutorSettings executors = new ExecutorSettings(ledger.baseUrl(), ledger.workerToken,
                Duration.ofMillis(500), Duration.ofMillis(200));

        SparkLoad.Result result = runAndClose(new SparkLoad(JavaSparkContext.fromSparkContext(spark.sparkContext()),
                client, executors, catalogs, Map.of(), stall), "files.yaml", yaml, "2026/11/30/14");

        RunView run = result.run();
        assertThat(run.status()).as("run %s", run).isEqualTo(RunStatus.SUCCESS);
        assertThat(run.partitions()).hasSize(3);
        List<Path> staged = files(run.hdfsRunPath(), "part-0001-");
        assertThat(writers(staged)).as("both attempts of task 1 wrote files: %s", staged)
                .anyMatch(w -> w.endsWith("a0")).anyMatch(w -> w.endsWith("a1"));
        List<String> published = client.files(run.runId()).stream().map(StagedFile::hdfsPath).toList();
        assertThat(writers(published.stream().filter(p -> p.contains("part-0001-")).map(SparkLoadTest::path)
                .toList())).as("exactly one attempt's files are the partition's committed ones")
                .hasSize(1).allMatch(w -> w.endsWith("a1"));

        // Each task read exactly the files the driver listed for its partition: its published chunks hold the ids
        // of those files' lines, each once, and no other.
        Map<String, List<String>> listed = listedFiles(run.runId());
        assertThat(listed.values().stream().flatMap(List::stream).sorted().toList()).as("every file listed once")
                .isEqualTo(List.copyOf(fileIds.keySet()));
        TargetCatalog catalog = TargetCatalog.open(lake);
        try {
            Table events = catalog.loadTable(EVENTS);
            assertThat(eventIds("2026-11-30T14")).as("each line's row once").isEqualTo(lineIds);
            Schema ids = events.schema().select("id");
            for (var p : run.partitions()) {
                List<Long> expected = listed.get(p.partitionId().value()).stream().map(fileIds::get)
                        .flatMap(r -> LongStream.rangeClosed(r[0], r[1]).boxed()).sorted().toList();
                List<Long> read = new ArrayList<>();
                for (String file : published.stream().filter(f -> f.contains("part-" + p.partitionId() + "-"))
                        .toList()) {
                    try (CloseableIterable<Record> rows = Parquet.read(events.io().newInputFile(file)).project(ids)
                            .createReaderFunc(type -> GenericParquetReaders.buildReader(ids, type)).build()) {
                        rows.forEach(r -> read.add((Long) r.getField("id")));
                    }
                }
                Collections.sort(read);
                assertThat(read).as("partition %s's published rows: the lines of its listed files %s",
                        p.partitionId(), listed.get(p.partitionId().value())).isEqualTo(expected);
            }
        } finally {
            catalog.close();
        }
    }

    /**
     * Drop files of one hour of 2026-11-30 under the drops root, each a run of ids of its own: file f (at most 6, one
     * Camus directory per ten minutes) holds f*1000 .. f*1000+lines-1+f*50. By file name, its first and last id.
     */
    private static Map<String, long[]> dropHour(int hour, int files, long lines) throws IOException {
        Map<String, long[]> fileIds = new TreeMap<>();
        for (int f = 0; f < files; f++) {
            String name = "d_20261130-" + hour + f + "0/part-0.json";
            long first = f * 1_000L;
            long count = lines + f * 50L;
            Path file = dir.resolve("drops").resolve(name);
            Files.createDirectories(file.getParent());
            StringBuilder text = new StringBuilder();
            for (long id = first; id < first + count; id++) {
                text.append("{\"id\": ").append(id).append(", \"note\": ")
                        .append(id % 7 == 0 ? "null" : "\"n" + id + "\"").append(", \"amount\": ")
                        .append(id % 100).append('.').append(id % 9).append("}\n");
            }
            Files.writeString(file, text);
            fileIds.put(name, new long[] {first, first + count - 1});
        }
        return fileIds;
    }

    /** A job of the drops root's hours, three partitions each, into lake.events. */
    private static String filesJobYaml(String jobKey) {
        return """
                job_key: %s
                source:
                  files:
                    root: "%s"
                    format: ndjson
                    group_by: hour
                    partitions: 3
                    columns:
                      - {name: id, type: bigint}
                      - {name: note, type: string}
                      - {name: amount, type: "decimal(10,2)"}
                target:
                  table: %s
                  business_key_column: load_key
                  catalog:
                    type: jdbc
                    uri: "%s"
                    warehouse: "%s"
                    jdbc.user: "%s"
                    jdbc.password: "%s"
                staging:
                  root: "%s"
                  rows_per_chunk: 100
                validation:
                  sum: [amount]
                """.formatted(jobKey, dir.resolve("drops").toUri(), EVENTS, lake.uri(), lake.warehouse(),
                lake.properties().get("jdbc.user"), lake.properties().get("jdbc.password"),
                dir.resolve("stage").toUri());
    }

    /** The ids of lake.events's rows of the key, sorted; none before the table exists. */
    private static List<Long> eventIds(String loadKey) throws IOException {
        TargetCatalog catalog = TargetCatalog.open(lake);
        try {
            if (!catalog.catalog().tableExists(EVENTS)) {
                return List.of();
            }
            List<Long> ids = new ArrayList<>();
            try (var records = IcebergGenerics.read(catalog.loadTable(EVENTS))
                    .where(Expressions.equal("load_key", loadKey)).build()) {
                records.forEach(r -> ids.add((Long) r.getField("id")));
            }
            Collections.sort(ids);
            return ids;
        } finally {
            catalog.close();
        }
    }

    /** The files the driver's listing gave each partition (its manifest sourceRef), by partition id. */
    private static Map<String, List<String>> listedFiles(RunId runId) throws Exception {
        Map<String, List<String>> listed = new TreeMap<>();
        try (var c = ledger.db.connect(); var s = c.createStatement();
             var rs = s.executeQuery("SELECT partition_id, source_ref FROM loadgate.load_partition WHERE run_id = '"
                     + runId + "'")) {
            while (rs.next()) {
                listed.put(rs.getString(1), SnapshotFile.decode(rs.getString(2))
                        .stream().map(SnapshotFile::path).toList());
            }
        }
        return listed;
    }

    @Test
    void aTaskThatDiesAfterReportingAChunkIsRetriedBySparkAndClaimsAgain() throws Exception {
        LocalDate day = LocalDate.of(2026, 12, 2);
        addRows(day, 100_001, 6_000);
        SparkLoad.Result result = load("DIE_REISSUE", day, firstAttemptDies("0002"), "");

        assertThat(result.run().status()).as("run %s", result.run()).isEqualTo(RunStatus.SUCCESS);
        assertThat(result.run().partitions()).filteredOn(p -> p.partitionId().equals(PartitionId.of("0002")))
                .singleElement().satisfies(p -> assertThat(p.attemptCount()).as("claimed again").isEqualTo(2));
        // With speculation on, Spark numbers speculative copies too: the retry that claims may be attempt 1 or 2,
        // and a copy that waited on it may be the one Spark reports (PartitionResult says why that is harmless).
        assertThat(result.tasks()).filteredOn(t -> t.partitionId().equals("0002")).singleElement()
                .satisfies(t -> {
                    assertThat(t.attempt().attemptNumber()).as("a later attempt than the one that died")
                            .isPositive();
                    assertThat(t.role()).isIn(Role.OWNER, Role.STANDBY);
                });
        List<Path> part2Published = client.files(result.run().runId()).stream().map(StagedFile::hdfsPath)
                .filter(p -> p.contains("part-0002-")).map(SparkLoadTest::path).toList();
        assertThat(writers(part2Published)).as("one retry's files are the partition's committed ones")
                .hasSize(1).noneMatch(w -> w.endsWith("a0"));
        assertSameRows(day);
    }

    @Test
    void aTaskThatDiesInFailModeFailsTheRunAndPublishesNothing() throws Exception {
        LocalDate day = LocalDate.of(2026, 12, 3);
        addRows(day, 200_001, 6_000);
        SparkLoad.Result result = load("DIE_FAIL", day, firstAttemptDies("0002"), "recovery: {mode: FAIL}\n");

        assertThat(result.run().status()).as("run %s", result.run()).matches(RunStatus::isTerminal)
                .isNotEqualTo(RunStatus.SUCCESS);
        assertThat(icebergRows(day)).as("nothing of the day was published").isEmpty();
    }

    @Test
    void aWarehouseTargetsTableIsReadBackThroughSparksJdbcSource() throws Exception {
        LocalDate day = LocalDate.of(2026, 12, 5);
        addRows(day, 300_001, 3_000);
        TestDatabases.TestDatabase warehouse = TestDatabases.create();
        String yaml = jobYaml("DW", "").replaceAll("(?s)  table: lake\\.items\n.*?staging:", """
                  table: dw.items
                  business_key_column: day
                  database:
                    jdbc_url: "%s"
                    user: %s
                staging:""".formatted(warehouse.jdbcUrl(), warehouse.user()));

        SparkLoad.Result result = runAndClose(new SparkLoad(JavaSparkContext.fromSparkContext(spark.sparkContext()),
                client, ExecutorSettings.of(ledger.baseUrl(), ledger.workerToken), catalogs, Map.of()), "dw.yaml", yaml,
                day.toString());

        assertThat(result.run().status()).as("run %s", result.run()).isEqualTo(RunStatus.SUCCESS);
        java.util.Properties properties = new java.util.Properties();
        properties.setProperty("user", warehouse.user());
        properties.setProperty("password", warehouse.password());
        properties.setProperty("driver", "org.postgresql.Driver");
        List<String> read = new ArrayList<>();
        for (Row r : spark.read().jdbc(warehouse.jdbcUrl(), "dw.items", properties)
                .where("day = DATE '" + day + "'").select("id", "grp", "amount", "note", "day").collectAsList()) {
            read.add(ItemsTable.line(r.get(0), r.get(1), r.getDecimal(2), r.getString(3), (LocalDate) r.get(4)));
        }
        Collections.sort(read);
        List<String> expected = ItemsTable.rows(source, day);
        assertThat(checksum(read)).as("checksum of all values").isEqualTo(checksum(expected));
        assertThat(read).as("each source row once, read by Spark's JDBC source").isEqualTo(expected);
    }

    @Test
    void sparkReadsTheLoadedTableThroughTheLedgersRestCatalogWithTheViewerToken() throws Exception {
        LocalDate day = LocalDate.of(2026, 12, 6);
        addRows(day, 400_001, 3_000);
        SparkLoad.Result result = load("REST", day, TaskHook.NONE, "");
        assertThat(result.run().status()).as("run %s", result.run()).isEqualTo(RunStatus.SUCCESS);

        // The README's spark-sql line: catalog lake, type rest, uri http://ledger/iceberg, token the viewer's.
        IcebergReadBack.Read read = IcebergReadBack.read(IcebergReadBack.SparkCatalog.rest(
                ledger.baseUrl() + "/iceberg", ledger.viewerToken), TABLE, day);

        List<String> expected = ItemsTable.rows(source, day);
        assertThat(checksum(read.rows())).as("checksum of all values").isEqualTo(checksum(expected));
        assertThat(read.rows()).as("each source row once, read by Spark through the REST catalog")
                .isEqualTo(expected);
        assertThat(read.dataFiles().stream().map(SparkLoadTest::path).toList()).as("the run's files are the table's")
                .containsAll(client.files(result.run().runId()).stream().map(f -> path(f.hdfsPath())).toList());
    }

    @Test
    void sparkSubmitRunsSparkLoadMainWithTheReadmesArguments() throws Exception {
        LocalDate day = LocalDate.of(2026, 12, 7);
        addRows(day, 500_001, 2_000);
        Path job = dir.resolve("submit.yaml");
        Files.writeString(job, jobYaml("SUBMIT", ""));
        Path tokens = dir.resolve("submit-tokens");
        Files.writeString(tokens, "worker=" + ledger.workerToken + "\n");

        // spark-submit's own entry point, as the README's line runs it; the class path is the tests' own, so the
        // primary resource is spark-internal (none) rather than the module's jar, which a test run has not built.
        // The UI stays off: the tests' class path has servlet 6, Spark's UI wants its own 5.
        ChildJvm.Ended submit = ChildJvm.run(entry -> true, "org.apache.spark.deploy.SparkSubmit", List.of(
                "--master", "local[2]", "--class", SparkLoadMain.class.getName(), "--conf", "spark.speculation=true",
                "--conf", "spark.ui.enabled=false", "spark-internal",
                job.toString(), "--business-key", day.toString(), "--ledger", ledger.baseUrl(),
                "--token-file", tokens.toString()));

        assertThat(submit.exit()).as("exit of SparkLoadMain under SparkSubmit: %s", submit.output()).isZero();
        assertThat(submit.output()).anyMatch(line -> line.matches("run [0-9a-f-]{36} SUCCESS"));
        assertSameRows(day);
    }

    @Test
    @Timeout(600)
    void aSparkRunWhoseDriverIsKilledMidExtractionEndsTimedOutAndNoWorkerTakesItsPartitions() throws Exception {
        LocalDate day = LocalDate.of(2026, 12, 9);
        addRows(day, 700_001, 3_000);

        killDriverMidExtraction("DRIVER_DIES", jobYaml("DRIVER_DIES", ""), day.toString());

        assertThat(icebergRows(day)).as("nothing of the day was published").isEmpty();
    }

    @Test
    @Timeout(600)
    void aFileSourcesSparkRunWhoseDriverIsKilledMidExtractionEndsTimedOutAndNoWorkerTakesItsPartitions()
            throws Exception {
        // Three files of one hour (450 lines), one partition each: two tasks hold one, the third waits for a core.
        dropHour(15, 3, 100);

        killDriverMidExtraction("DRIVER_DIES_FILES", filesJobYaml("DRIVER_DIES_FILES"), "2026/11/30/15");

        assertThat(eventIds("2026-11-30T15")).as("nothing of the hour was published").isEmpty();
    }

    /**
     * Runs the job under SparkSubmit in a child JVM beside a pool of ordinary workers, kills that JVM (driver and
     * local executors, as a cluster's executors end with their driver) once a task holds a partition, and asserts
     * that the ledger alone ends the run: TIMED_OUT (DRIVER_STALE) with its unfinished partitions, none of them ever
     * claimed by a worker, nothing left dispatched.
     */
    private static void killDriverMidExtraction(String jobKey, String yaml, String businessKey) throws Exception {
        Path job = dir.resolve(jobKey + ".yaml");
        Files.writeString(job, yaml);
        Path tokens = dir.resolve(jobKey + "-tokens");
        Files.writeString(tokens, "worker=" + ledger.workerToken + "\n");
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        Worker pool = Worker.start(new WorkerContext(client, POOL_NODE, new Configuration(), new WorkerContext.Shared(
                new RunContexts(client), new SourceCache(Map.of()), catalogs, timer, WorkerMetrics.off()),
                Duration.ofMillis(500), Duration.ofSeconds(1)), 2);
        RunView atKill;
        RunView end;
        try {
            // A task reports its chunks only once it has written them all, and its last report completes the
            // partition: with the reports held, every claimed partition stays RUNNING until the driver is dead, so
            // the kill lands mid-extraction however fast the tasks read. The held reports go through once the
            // driver is dead, as reports in flight when a driver dies do; a first report is not a last one.
            try (AutoCloseable held = holdChunkReports()) {
                Process driver = ChildJvm.start(entry -> true, "org.apache.spark.deploy.SparkSubmit", List.of(
                        "--master", "local[2]", "--class", SparkLoadMain.class.getName(), "--conf",
                        "spark.ui.enabled=false", "spark-internal", job.toString(), "--business-key", businessKey,
                        "--ledger", ledger.baseUrl(), "--token-file", tokens.toString()));
                try {
                    // A child JVM starts Spark slowly on a busy host: the whole SparkSubmit test can take minutes.
                    atKill = await().atMost(Duration.ofSeconds(420)).pollInterval(Duration.ofMillis(20))
                            .until(() -> runOf(jobKey), r -> r.filter(v -> v.partitions().stream()
                                    .anyMatch(p -> p.status() == PartitionStatus.RUNNING)).isPresent()
                                    || !driver.isAlive()).orElseThrow();
                } finally {
                    driver.destroyForcibly().waitFor();
                }
            }
            end = await().atMost(Duration.ofSeconds(120)).until(() -> client.getRun(atKill.runId()),
                    r -> r.status().isTerminal());
        } finally {
            pool.stop(Duration.ofSeconds(30));
            timer.shutdownNow();
        }

        assertThat(atKill.status()).as("killed mid-extraction: %s", atKill).isEqualTo(RunStatus.EXTRACTING);
        assertThat(atKill.executor()).as("the run is its driver's").isEqualTo("spark");
        assertThat(end.status()).as("run %s", end).isEqualTo(RunStatus.TIMED_OUT);
        assertThat(end.errorCode()).isEqualTo("DRIVER_STALE");
        assertThat(end.partitions()).as("every unfinished partition ended with the run")
                .allMatch(p -> p.status() == PartitionStatus.SUCCESS || p.status() == PartitionStatus.TIMED_OUT)
                .anyMatch(p -> p.status() == PartitionStatus.TIMED_OUT);
        assertThat(claimers(end.runId())).as("only the killed driver's tasks ever claimed a partition")
                .isNotEmpty().allMatch(node -> node.contains("/spark-stage"));
        assertThat(end.dispatches()).as("nothing is left for a worker or an operator")
                .noneMatch(d -> d.status() == DispatchStatus.PENDING || d.status() == DispatchStatus.SENT);
    }

    /**
     * Holds every chunk report the ledger is sent until closed: a report inserts into load_file, which this
     * transaction's SHARE lock lets no one write. Claims and reads go on; a held report keeps its run's row locked,
     * so the run's beats wait behind it (for the moment the driver is being killed in). A reissue writes load_file
     * too, and would wait as well: the hold ends as soon as the driver is dead, before any partition of it is stale.
     */
    private static AutoCloseable holdChunkReports() throws SQLException {
        Connection c = ledger.db.connect();
        try (var s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("LOCK TABLE loadgate.load_file IN SHARE MODE");
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
        return () -> {
            try {
                c.rollback();
            } finally {
                c.close();
            }
        };
    }

    /** The run of the job, once it exists. */
    private static Optional<RunView> runOf(String jobKey) {
        return client.listRuns(new RunApi.RunFilter(JobKey.of(jobKey), null, null, null)).stream().findFirst()
                .map(r -> client.getRun(r.runId()));
    }

    @Test
    void aMariaDbSourceIsRefusedBeforeAnyRun() throws Exception {
        String yaml = jobYaml("MARIA", "").replace(source.jdbcUrl(), "jdbc:mariadb://127.0.0.1:3306/test");
        try (SparkLoad load = new SparkLoad(JavaSparkContext.fromSparkContext(spark.sparkContext()), client,
                ExecutorSettings.of(ledger.baseUrl(), ledger.workerToken), catalogs, Map.of())) {
            assertThatThrownBy(() -> load.run(JobSpecLoader.parse(Path.of("maria.yaml"), yaml), yaml, "2026-12-04"))
                    .isInstanceOf(JobSpecException.class).hasMessageContaining("loadgate run");
        }
    }

    /** Spark's first attempt of the partition's task dies after its first chunk report. */
    private static TaskHook firstAttemptDies(String partition) {
        return (ledger, partitionId, attempt) -> partition.equals(partitionId) && attempt.attemptNumber() == 0
                ? new StallingLedger(ledger, StallingLedger.Fault.DIE) : ledger;
    }

    private SparkLoad.Result load(String jobKey, LocalDate day, TaskHook hook, String extraYaml) throws Exception {
        String yaml = jobYaml(jobKey, extraYaml);
        ExecutorSettings executors = new ExecutorSettings(ledger.baseUrl(), ledger.workerToken,
                Duration.ofMillis(500), Duration.ofMillis(200));
        return runAndClose(new SparkLoad(JavaSparkContext.fromSparkContext(spark.sparkContext()), client, executors,
                catalogs, Map.of(), hook), jobKey + ".yaml", yaml, day.toString());
    }

    /**
     * Runs {@code load}'s one job and closes it. {@code run} returns with the run's end, before its driver's step
     * worker has waited out its last lease poll; {@code close} waits for that stop.
     */
    private static SparkLoad.Result runAndClose(SparkLoad load, String file, String yaml, String businessKey)
            throws Exception {
        SparkLoad.Result result;
        try (load) {
            result = load.run(JobSpecLoader.parse(Path.of(file), yaml), yaml, businessKey);
        }
        assertThat(Thread.getAllStackTraces().keySet()).as("the driver's step worker has stopped")
                .noneMatch(t -> t.getName().equals("loadgate-driver-steps-stop"));
        return result;
    }

    private String jobYaml(String jobKey, String extraYaml) {
        return """
                job_key: %s
                source:
                  jdbc_url: "%s"
                  user: postgres
                  table: public.items
                  split_column: id
                  partitions: 4
                  filter: "day = CAST(:business_key AS date)"
                  fetch_size: 500
                target:
                  table: %s
                  business_key_column: day
                  catalog:
                    type: jdbc
                    uri: "%s"
                    warehouse: "%s"
                    jdbc.user: "%s"
                    jdbc.password: "%s"
                staging:
                  root: "%s"
                  rows_per_chunk: 400
                validation:
                  sum: [amount, grp]
                %s""".formatted(jobKey, source.jdbcUrl(), TABLE, lake.uri(), lake.warehouse(),
                lake.properties().get("jdbc.user"), lake.properties().get("jdbc.password"),
                dir.resolve("stage").toUri(), extraYaml);
    }

    private static void addRows(LocalDate day, long firstId, long rows) throws Exception {
        ItemsTable.addRows(source, day, firstId, rows);
    }

    /** The source's rows and Loadgate's reading of the table's are the same: count, checksum and each row once. */
    private static void assertSameRows(LocalDate day) throws Exception {
        List<String> expected = ItemsTable.rows(source, day);
        List<String> iceberg = icebergRows(day);
        assertThat(iceberg).as("count").hasSameSizeAs(expected);
        assertThat(checksum(iceberg)).as("checksum of all values").isEqualTo(checksum(expected));
        assertThat(iceberg).as("each source row once").isEqualTo(expected);
    }

    private static long checksum(List<String> rows) {
        return rows.stream().mapToLong(r -> r.hashCode() & 0xffffffffL).sum();
    }

    private static List<String> icebergRows(LocalDate day) throws IOException {
        TargetCatalog catalog = TargetCatalog.open(lake);
        try {
            if (!catalog.catalog().tableExists(TableIdentifier.parse(TABLE))) {
                return List.of();
            }
            return ItemsTable.rows(catalog.loadTable(TableIdentifier.parse(TABLE)), day);
        } finally {
            catalog.close();
        }
    }

    private static List<Path> files(String runPath, String prefix) throws IOException {
        try (Stream<Path> all = Files.walk(path(runPath))) {
            return all.filter(p -> p.getFileName().toString().startsWith(prefix)
                    && p.getFileName().toString().endsWith(".parquet")).toList();
        }
    }

    /** The Spark attempt each chunk name carries: part-0001-chunk-000000-a2-5f2c9e1a-s0t7a1.parquet gives s0t7a1. */
    private static List<String> writers(List<Path> files) {
        return files.stream().map(p -> p.getFileName().toString().replaceAll(".*-([a-z0-9]+)\\.parquet$", "$1"))
                .distinct().toList();
    }

    private static Path path(String uri) {
        return uri.startsWith("file:") ? Path.of(java.net.URI.create(uri.replaceFirst("^file:/+", "file:///")))
                : Path.of(uri);
    }
}

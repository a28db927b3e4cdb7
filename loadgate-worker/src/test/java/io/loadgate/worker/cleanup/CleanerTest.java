package io.loadgate.worker.cleanup;

import static io.loadgate.worker.testing.StagedRuns.orders;
import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.api.BusinessKey;
import io.loadgate.api.JobKey;
import io.loadgate.api.OperatorApi.CleanupCandidate;
import io.loadgate.api.RunApi.CreateRun;
import io.loadgate.api.RunApi.Event;
import io.loadgate.api.RunApi.FailRun;
import io.loadgate.api.RunStatus;
import io.loadgate.server.testing.TestLedger;
import io.loadgate.worker.cleanup.RunCleanup.Outcome;
import io.loadgate.worker.execution.RunContexts;
import io.loadgate.worker.execution.TargetCatalogs;
import io.loadgate.worker.ledger.HttpLedgerClient;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.publish.CatalogConfig;
import io.loadgate.worker.staging.StagingFileSystems;
import io.loadgate.worker.target.SnapshotExpiry;
import io.loadgate.worker.testing.Lakehouses;
import io.loadgate.worker.testing.StagedRuns;
import io.loadgate.worker.testing.StagedRuns.Chunk;
import io.loadgate.worker.testing.StagedRuns.Run;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cleaner against a real ledger over HTTP, real chunk files and a real Iceberg table on a JDBC catalog. */
class CleanerTest {
    private static final LocalDate DAY_1 = LocalDate.of(2026, 11, 28);
    private static final LocalDate DAY_2 = LocalDate.of(2026, 11, 29);
    private static final String TABLE = "lake.orders";

    @TempDir
    Path stage;
    @TempDir
    Path warehouse;

    private TestLedger ledger;
    private LedgerClient client;
    private StagedRuns runs;
    private TargetCatalogs catalogs;
    private CatalogConfig lake;

    @BeforeEach
    void start() {
        ledger = StagedRuns.ledger(stage);
        client = HttpLedgerClient.create(StagedRuns.workerClient(ledger).build());
        lake = Lakehouses.jdbcCatalog(warehouse);
        runs = new StagedRuns(ledger, client, stage, lake);
        catalogs = new TargetCatalogs(Optional.empty(), warehouse);
    }

    @AfterEach
    void stop() {
        catalogs.close();
        runs.close();
        ledger.close();
    }

    private Cleaner cleaner() {
        return new Cleaner(client, new RunContexts(client), catalogs, new Configuration());
    }

    @Test
    void aSucceededRunKeepsExactlyItsPublishedFilesAndLosesZombiesAndDuplicates() throws IOException {
        List<Record> first = orders(DAY_1, 1, 100);
        List<Record> second = orders(DAY_1, 101, 50);
        Run run = runs.succeeded("ORDERS", DAY_1, TABLE, List.of(first, second));
        List<Path> published = files(run);
        Chunk zombie = runs.write(run, "part-0000-chunk-000000-a1-deadbeef.parquet", first);
        Chunk duplicate = runs.write(run, "part-0000-chunk-000001-a2-0dd0dd0d.parquet", second);
        Chunk crashed = runs.write(run, "_attempt-3/part-0000-chunk-000000-a3-c4a54ed0.parquet", first);
        long unreferencedBytes = Files.size(zombie.file()) + Files.size(duplicate.file()) + Files.size(crashed.file());
        runs.makeDue(run);

        List<RunCleanup> reports = cleaner().clean(CleanupMode.DELETE);

        assertThat(reports).hasSize(1);
        RunCleanup report = reports.get(0);
        assertThat(report.outcome()).as("report %s", report).isEqualTo(Outcome.CLEANED);
        assertThat(report.status()).isEqualTo(RunStatus.SUCCESS);
        assertThat(paths(report.kept())).as("kept: the files the table references")
                .containsExactlyInAnyOrderElementsOf(published);
        assertThat(paths(report.deleted())).as("deleted: the files no ledger row names")
                .containsExactlyInAnyOrder(zombie.file(), duplicate.file(), crashed.file());
        assertThat(report.deletedBytes()).isEqualTo(unreferencedBytes);
        assertThat(report.directoryRemoved()).as("the run directory still holds the published files").isFalse();
        assertThat(files(run)).as("what is left in the run path").containsExactlyInAnyOrderElementsOf(published);
        assertThat(runs.rows(TABLE)).as("the table still reads every row it published")
                .extracting(r -> r.getField("id")).hasSize(150)
                .containsExactlyInAnyOrderElementsOf(Stream.concat(first.stream(), second.stream())
                        .map(r -> r.getField("id")).toList());
        assertThat(cleaned(run)).as("the CLEANED event").containsEntry("deletedPath", run.hdfsRunPath())
                .containsEntry("droppedTable", null);
        assertThat(client.cleanupCandidates()).as("no longer a candidate").isEmpty();
        assertThat(cleaner().clean(CleanupMode.DELETE)).as("a second pass").isEmpty();
    }

    @Test
    void replayedRunsLoseTheirFilesOnceTheirSnapshotsExpireWhileRetainedSnapshotsKeepTheirs() throws IOException {
        Run first = runs.succeeded("ORDERS", DAY_1, TABLE, List.of(orders(DAY_1, 1, 100)));
        Run second = runs.succeeded("ORDERS", DAY_1, TABLE, List.of(orders(DAY_1, 1, 120)));
        List<Record> latest = orders(DAY_1, 1, 130);
        Run third = runs.succeeded("ORDERS", DAY_1, TABLE, List.of(latest));
        List<Path> secondFiles = files(second);
        List<Path> thirdFiles = files(third);
        assertThat(files(first)).isNotEmpty();
        var table = runs.tables().loadTable(org.apache.iceberg.catalog.TableIdentifier.parse(TABLE));
        List<Long> snapshots = snapshotIds(table);
        assertThat(snapshots).as("each run replaced day 1 in a snapshot of its own").hasSize(3);
        Path expiredManifestList = paths(List.of(table.snapshot(snapshots.get(0)).manifestListLocation())).get(0);
        Path retainedManifestList = paths(List.of(table.snapshot(snapshots.get(1)).manifestListLocation())).get(0);
        assertThat(expiredManifestList).exists();
        for (Run run : List.of(first, second, third)) {
            runs.makeDue(run);
        }
        // Every snapshot is past an age of zero; the newest two stay anyway.
        var expiry = new SnapshotExpiry(new SnapshotExpiry.Retention(java.time.Duration.ZERO, 2),
                java.time.Clock.systemUTC());

        List<RunCleanup> reports = new Cleaner(client, new RunContexts(client), catalogs, new Configuration(), expiry)
                .clean(CleanupMode.DELETE);

        assertThat(reports).extracting(RunCleanup::outcome).containsOnly(Outcome.CLEANED);
        assertThat(files(first)).as("referenced only by the expired snapshot: freed").isEmpty();
        assertThat(files(second)).as("referenced by a retained snapshot: kept")
                .containsExactlyInAnyOrderElementsOf(secondFiles);
        assertThat(files(third)).as("the current snapshot's").containsExactlyInAnyOrderElementsOf(thirdFiles);
        table.refresh();
        assertThat(snapshotIds(table)).containsExactlyElementsOf(snapshots.subList(1, 3));
        assertThat(expiredManifestList).as("Iceberg deleted the expired snapshot's metadata").doesNotExist();
        assertThat(retainedManifestList).exists();
        assertThat(runs.rows(TABLE)).as("the table reads the last replay").extracting(r -> r.getField("id"))
                .containsExactlyInAnyOrderElementsOf(latest.stream().map(r -> r.getField("id")).toList());
        try (var older = org.apache.iceberg.data.IcebergGenerics.read(table).useSnapshot(snapshots.get(1)).build()) {
            assertThat(older).as("the retained older snapshot still reads").hasSize(120);
        }
    }

    @Test
    void theDefaultRetentionExpiresNoRecentSnapshotSoAReplayedRunKeepsItsFiles() throws IOException {
        Run first = runs.succeeded("ORDERS", DAY_1, TABLE, List.of(orders(DAY_1, 1, 100)));
        runs.succeeded("ORDERS", DAY_1, TABLE, List.of(orders(DAY_1, 1, 120)));
        List<Path> firstFiles = files(first);
        runs.makeDue(first);

        assertThat(cleaner().clean(CleanupMode.DELETE)).extracting(RunCleanup::outcome).containsOnly(Outcome.CLEANED);

        assertThat(files(first)).as("its snapshot is younger than 2 days").containsExactlyInAnyOrderElementsOf(firstFiles);
    }

    private static List<Long> snapshotIds(org.apache.iceberg.Table table) {
        List<Long> ids = new ArrayList<>();
        table.snapshots().forEach(s -> ids.add(s.snapshotId()));
        return ids;
    }

    @Test
    void aFailedRunLosesAllItsFilesAndRunsNotDueAreUntouched() throws IOException {
        Run published = runs.succeeded("ORDERS", DAY_2, TABLE, List.of(orders(DAY_2, 1, 30)));
        Chunk publishedZombie = runs.write(published, "part-0000-chunk-000000-a1-deadbeef.parquet", orders(DAY_2, 1, 30));
        Run failed = runs.failedExtract("ORDERS", DAY_1, TABLE, orders(DAY_1, 1, 40), orders(DAY_1, 41, 40));
        Run notDue = runs.failedExtract("ORDERS_OTHER", DAY_1, TABLE, orders(DAY_1, 1, 10), orders(DAY_1, 11, 10));
        List<Path> untouched = Stream.concat(files(published).stream(), files(notDue).stream()).toList();
        runs.makeDue(failed);

        List<RunCleanup> reports = cleaner().clean(CleanupMode.DELETE);

        assertThat(reports).extracting(RunCleanup::runId).as("only the due run").containsExactly(failed.runId());
        RunCleanup report = reports.get(0);
        assertThat(report.outcome()).as("report %s", report).isEqualTo(Outcome.CLEANED);
        assertThat(report.status()).isEqualTo(RunStatus.FAILED_EXTRACT);
        assertThat(report.kept()).isEmpty();
        assertThat(report.deleted()).as("the reported and the unreported chunk").hasSize(2);
        assertThat(report.directoryRemoved()).isTrue();
        assertThat(failed.directory()).doesNotExist();
        assertThat(failed.directory().getParent()).as("the job directory is outside the run path").isDirectory();
        assertThat(untouched).allSatisfy(file -> assertThat(file).exists());
        assertThat(publishedZombie.file()).as("a zombie of a run not yet due").exists();
        assertThat(runs.rows(TABLE)).hasSize(30);
    }

    @Test
    void aRunThatFailedTargetValidationKeepsTheFilesTheTableReferences() throws IOException {
        Run run = runs.create("ORDERS", DAY_1, TABLE);
        List<Chunk> chunks = List.of(runs.write(run, "part-0000-chunk-000000-a1-aaaaaaaa.parquet", orders(DAY_1, 1, 60)),
                runs.write(run, "part-0000-chunk-000001-a1-aaaaaaaa.parquet", orders(DAY_1, 61, 40)));
        runs.stageValidated(run, chunks);
        runs.publish(run);
        assertThat(runs.validateTarget(run, 100, 99)).isEqualTo(RunStatus.FAILED_TARGET_VALIDATION);
        Chunk zombie = runs.write(run, "part-0000-chunk-000000-a2-deadbeef.parquet", orders(DAY_1, 1, 60));
        runs.makeDue(run);

        RunCleanup report = cleaner().clean(CleanupMode.DELETE).get(0);

        assertThat(report.outcome()).as("report %s", report).isEqualTo(Outcome.CLEANED);
        assertThat(report.status()).isEqualTo(RunStatus.FAILED_TARGET_VALIDATION);
        assertThat(paths(report.kept())).as("a failed run's files that are in the table stay")
                .containsExactlyInAnyOrder(chunks.get(0).file(), chunks.get(1).file());
        assertThat(paths(report.deleted())).containsExactly(zombie.file());
        assertThat(runs.rows(TABLE)).hasSize(100);
    }

    @Test
    void aPublishedRunWhoseTableTheCatalogLacksIsSkippedNotEmptied() throws IOException {
        Run run = runs.succeeded("ORDERS", DAY_1, TABLE, List.of(orders(DAY_1, 1, 20)));
        List<Path> published = files(run);
        try (var other = io.loadgate.worker.publish.TargetCatalog.open(lake)) {
            // As a cleaner pointed at another catalog would see it: no such table.
            other.catalog().dropTable(org.apache.iceberg.catalog.TableIdentifier.parse(TABLE), false);
        }
        runs.makeDue(run);

        RunCleanup report = cleaner().clean(CleanupMode.DELETE).get(0);

        assertThat(report.outcome()).isEqualTo(Outcome.SKIPPED);
        assertThat(report.message()).contains("which this catalog does not have");
        assertThat(published).allMatch(Files::exists);
    }

    @Test
    void aDryRunListsWhatWouldGoAndDeletesNothing() throws IOException {
        Run succeeded = runs.succeeded("ORDERS", DAY_1, TABLE, List.of(orders(DAY_1, 1, 20)));
        Chunk zombie = runs.write(succeeded, "part-0000-chunk-000000-a1-deadbeef.parquet", orders(DAY_1, 1, 20));
        Run failed = runs.failedExtract("ORDERS", DAY_2, TABLE, orders(DAY_2, 1, 5), orders(DAY_2, 6, 5));
        List<Path> before = Stream.concat(files(succeeded).stream(), files(failed).stream()).toList();
        runs.makeDue(succeeded);
        runs.makeDue(failed);

        List<RunCleanup> reports = cleaner().clean(CleanupMode.DRY_RUN);

        assertThat(reports).extracting(RunCleanup::outcome).containsOnly(Outcome.DRY_RUN).hasSize(2);
        Map<Object, RunCleanup> byRun = new HashMap<>();
        reports.forEach(r -> byRun.put(r.runId(), r));
        assertThat(paths(byRun.get(succeeded.runId()).deleted())).containsExactly(zombie.file());
        assertThat(byRun.get(failed.runId()).deleted()).hasSize(2);
        assertThat(byRun.get(failed.runId()).deletedBytes()).isPositive();
        assertThat(before).as("every file is still there").allSatisfy(file -> assertThat(file).exists());
        assertThat(client.cleanupCandidates()).as("nothing recorded").hasSize(2);

        assertThat(cleaner().clean(CleanupMode.DELETE)).extracting(RunCleanup::outcome)
                .containsOnly(Outcome.CLEANED).hasSize(2);
        assertThat(zombie.file()).doesNotExist();
    }

    @Test
    void pathsOutsideTheRunPathAreNeverTouched() throws IOException {
        Run failed = runs.failedExtract("ORDERS", DAY_1, TABLE, orders(DAY_1, 1, 5), orders(DAY_1, 6, 5));
        Path inRoot = Files.writeString(stage.resolve("keep-me.txt"), "root");
        Path inJob = Files.writeString(failed.directory().getParent().resolve("keep-me.txt"), "job");
        Path sibling = Files.createDirectories(Path.of(failed.directory() + "0")); // run_id=...0: a prefix, not below
        Path inSibling = Files.writeString(sibling.resolve("part-0000-chunk-000000-a1-aaaaaaaa.parquet"), "x");
        Path outside = Files.createDirectories(stage.resolve("elsewhere"));
        Path linkedFile = Files.writeString(outside.resolve("linked.parquet"), "linked");
        Files.createSymbolicLink(failed.directory().resolve("link-to-file.parquet"), linkedFile);
        Files.createSymbolicLink(failed.directory().resolve("link-to-dir"), outside);
        runs.makeDue(failed);

        RunCleanup report = cleaner().clean(CleanupMode.DELETE).get(0);

        assertThat(report.outcome()).as("report %s", report).isEqualTo(Outcome.CLEANED);
        assertThat(report.deleted()).as("the run's two chunks").hasSize(2);
        assertThat(report.kept()).as("links are never followed nor deleted").hasSize(2);
        assertThat(List.of(inRoot, inJob, inSibling, linkedFile)).allSatisfy(file -> assertThat(file).exists());
        assertThat(failed.directory()).as("it still holds the links").isDirectory();
    }

    @Test
    void aRunWhoseCatalogCannotBeOpenedOrWhoseJobIsUnknownIsSkippedWithNothingDeleted() throws IOException {
        Map<String, String> unreachable = new HashMap<>(runs.catalogProperties());
        unreachable.put("uri", "jdbc:postgresql://127.0.0.1:" + closedPort() + "/lakehouse");
        Run noCatalog = runs.create("ORDERS", DAY_1, TABLE, unreachable);
        runs.write(noCatalog, "part-0000-chunk-000000-a1-aaaaaaaa.parquet", orders(DAY_1, 1, 5));
        runs.failManifest(noCatalog);
        runs.makeDue(noCatalog);
        var created = client.createRun(CreateRun.forWorkers(JobKey.of("NIFI_JOB"), BusinessKey.of("2026-11-28"), stage.toUri().toString(), "stg_"));
        Path nifiFile = Files.createDirectories(stage.resolve("NIFI_JOB").resolve("run_id=" + created.runId()))
                .resolve("chunk.parquet");
        Files.writeString(nifiFile, "x");
        client.failRun(created.runId(), new FailRun(RunStatus.CREATED, RunStatus.FAILED_MANIFEST, "PLAN", "T", "t"));
        ledger.execute("UPDATE loadgate.load_run SET completed_at = now() - interval '30 days' WHERE run_id = '"
                + created.runId() + "'");

        List<RunCleanup> reports = cleaner().clean(CleanupMode.DELETE);

        assertThat(reports).extracting(RunCleanup::outcome).containsOnly(Outcome.SKIPPED).hasSize(2);
        assertThat(reports).filteredOn(r -> r.runId().equals(noCatalog.runId())).singleElement()
                .satisfies(r -> assertThat(r.message()).startsWith("cannot open the catalog of lake.orders"));
        assertThat(reports).filteredOn(r -> r.runId().equals(created.runId())).singleElement()
                .satisfies(r -> assertThat(r.message()).startsWith("cannot read the run's job")
                        .contains("carries no job spec"));
        assertThat(files(noCatalog)).hasSize(1);
        assertThat(nifiFile).exists();
        assertThat(client.cleanupCandidates()).as("both stay candidates").extracting(CleanupCandidate::runId)
                .containsExactlyInAnyOrder(noCatalog.runId(), created.runId());
        assertThat(client.allEvents(noCatalog.runId())).as("the operator sees why")
                .filteredOn(e -> e.eventType().equals("CLEANUP_SKIPPED")).singleElement()
                .satisfies(e -> assertThat(e.details().get("reason").toString())
                        .startsWith("cannot open the catalog of lake.orders"));
    }

    @Test
    void twoCleanersAtOnceCleanEachRunOnce() throws Exception {
        List<Run> all = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            LocalDate day = DAY_1.plusDays(i);
            Run succeeded = runs.succeeded("ORDERS", day, TABLE, List.of(orders(day, 1, 10), orders(day, 11, 10)));
            runs.write(succeeded, "part-0000-chunk-000000-a9-deadbeef.parquet", orders(day, 1, 10));
            Run failed = runs.failedExtract("FAILING", day, TABLE, orders(day, 1, 3), orders(day, 4, 3));
            all.add(succeeded);
            all.add(failed);
        }
        all.forEach(runs::makeDue);
        CyclicBarrier barrier = new CyclicBarrier(2);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Callable<List<RunCleanup>> pass = () -> {
                barrier.await();
                return cleaner().clean(CleanupMode.DELETE);
            };
            Future<List<RunCleanup>> a = pool.submit(pass);
            Future<List<RunCleanup>> b = pool.submit(pass);
            List<RunCleanup> reports = new ArrayList<>(a.get());
            reports.addAll(b.get());

            assertThat(reports).as("reports %s", reports).extracting(RunCleanup::outcome).containsOnly(Outcome.CLEANED);
            long deletedFiles = reports.stream().mapToLong(r -> r.deleted().size()).sum();
            assertThat(deletedFiles).as("every unreferenced file deleted by exactly one of them").isEqualTo(4 + 4 * 2);
        } finally {
            pool.shutdownNow();
        }
        for (Run run : all) {
            assertThat(client.allEvents(run.runId())).filteredOn(e -> e.eventType().equals("CLEANED"))
                    .as("one CLEANED event for %s", run.runId()).hasSize(1);
        }
        assertThat(runs.rows(TABLE)).hasSize(4 * 20);
        assertThat(client.cleanupCandidates()).isEmpty();
    }

    /**
     * The race behind a report counting a file twice: Hadoop's local delete answers true when the file went
     * between its check and its delete. Two threads delete the same files at once; exactly one may say it did.
     */
    @Test
    void whenTwoDeleteOneFileAtOnceOnlyOneSaysItDeletedIt() throws Exception {
        Path dir = Files.createDirectories(warehouse.resolve("race"));
        int files = 2_000;
        for (int i = 0; i < files; i++) {
            Files.write(dir.resolve("f" + i), new byte[] {1});
        }
        FileSystem fs = StagingFileSystems.forUri(dir.toUri(), new Configuration());
        CyclicBarrier barrier = new CyclicBarrier(2);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Callable<Integer> deleter = () -> {
                int deleted = 0;
                for (int i = 0; i < files; i++) {
                    barrier.await();
                    if (Cleaner.deleteFile(fs, new org.apache.hadoop.fs.Path(dir.resolve("f" + i).toUri()))) {
                        deleted++;
                    }
                }
                return deleted;
            };
            Future<Integer> a = pool.submit(deleter);
            Future<Integer> b = pool.submit(deleter);
            assertThat(a.get() + b.get()).as("files reported deleted").isEqualTo(files);
        } finally {
            pool.shutdownNow();
        }
        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left).isEmpty();
        }
    }

    // ---- helpers

    /** The regular files in a run's directory, recursively. */
    private static List<Path> files(Run run) throws IOException {
        if (!Files.exists(run.directory())) {
            return List.of();
        }
        try (Stream<Path> walk = Files.walk(run.directory())) {
            return walk.filter(Files::isRegularFile).toList();
        }
    }

    /** Locations as the cleaner reports them (Hadoop's {@code file:/x}) as local paths. */
    private static List<Path> paths(List<String> locations) {
        return locations.stream().map(l -> Path.of(new org.apache.hadoop.fs.Path(l).toUri().getPath())).toList();
    }

    private Map<String, Object> cleaned(Run run) {
        Event event = client.allEvents(run.runId()).stream().filter(e -> e.eventType().equals("CLEANED"))
                .reduce((x, y) -> y).orElseThrow(() -> new AssertionError("no CLEANED event for " + run.runId()));
        return event.details();
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}

package io.loadgate.worker.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.loadgate.api.DispatchApi.Lease;
import io.loadgate.api.DispatchApi.LeasedDispatch;
import io.loadgate.api.DispatchType;
import io.loadgate.api.PartitionApi.ChunkReport;
import io.loadgate.api.PartitionApi.Claim;
import io.loadgate.api.PartitionApi.PartitionFailure;
import io.loadgate.api.PartitionId;
import io.loadgate.api.RunApi;
import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunId;
import io.loadgate.api.RunStatus;
import io.loadgate.ledger.LedgerSettings.RecoveryMode;
import io.loadgate.worker.ledger.ForwardingLedgerClient;
import io.loadgate.worker.ledger.LedgerCallException;
import io.loadgate.worker.metrics.StepOutcome;
import io.loadgate.worker.publish.FaultInjectingCatalog.Fault;
import io.loadgate.worker.staging.ForcedFiles;
import io.loadgate.worker.submit.RunSubmitter;
import io.loadgate.worker.validation.StagedFilesReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Issues 4 and 5 end to end: source at a snapshot, committed Parquet chunks, Iceberg publish, validation. */
@Timeout(180)
class LoadEndToEndTest {
    private static final LocalDate DAY = LocalDate.of(2026, 11, 29);
    private static final LocalDate OTHER_DAY = LocalDate.of(2026, 11, 28);

    @TempDir
    Path dir;
    private LoadHarness harness;

    @AfterEach
    void stop() {
        if (harness != null) {
            harness.close();
        }
    }

    @Test
    void everySourceRowLandsInTheTableExactlyOnce() throws Exception {
        Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
        harness = new LoadHarness(dir, RecoveryMode.FAIL, client -> new ForwardingLedgerClient(client) {
            @Override
            protected <T> T around(String method, Supplier<T> call) {
                calls.computeIfAbsent(method, unused -> new AtomicInteger()).incrementAndGet();
                return call.get();
            }
        });
        harness.addRows(DAY, 1, 20_000);
        harness.addRows(OTHER_DAY, 100_001, 500);
        harness.startWorker(3);
        RunView run = harness.follow(harness.submit(harness.jobYaml("ITEMS", 4), DAY));

        assertThat(run.status()).as(run.errorMessage()).isEqualTo(RunStatus.SUCCESS);
        assertThat(run.partitionCounts()).containsEntry("SUCCESS", 5L);
        assertThat(run.extractedCount()).isEqualTo(20_000);
        assertThat(run.targetCount()).isEqualTo(20_000);
        assertThat(harness.tableRows(DAY)).isEqualTo(harness.sourceRows(DAY));
        assertThat(harness.tableRows(OTHER_DAY)).isEmpty();
        assertThat(harness.client.validations(run.runId())).allSatisfy(v ->
                assertThat(v.judgedResult().name()).as(v.metricName()).isEqualTo("PASS"));
        // Each step after the extraction was handed to the thread that ended the one before it, none leased by a poll.
        Set<String> handedOff = harness.client.allEvents(run.runId()).stream()
                .filter(event -> Boolean.TRUE.equals(event.details().get("handedOff")))
                .map(event -> event.details().get("dispatchId").toString()).collect(Collectors.toSet());
        assertThat(run.dispatches().stream().filter(d -> handedOff.contains(d.dispatchId().toString()))
                .map(RunApi.DispatchView::dispatchType))
                .containsExactlyInAnyOrder(DispatchType.VALIDATE_RUN, DispatchType.PUBLISH_RUN,
                        DispatchType.VALIDATE_TARGET);
        // The metrics went with the verdicts and the files with the publish claim: no call of their own.
        assertThat(calls).doesNotContainKey("recordValidations");
        assertThat(calls.get("files")).as("the target check's list of files").hasValue(1);
        assertThat(calls.get("stageValidated")).hasValue(1);
        assertThat(calls.get("success")).hasValue(1);
    }

    @Test
    void aKeyWithThePartitionColumnIsCountedAtTheTargetAsItsScanReadsIt() throws Exception {
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        harness.addRows(DAY, 1, 6_000);
        harness.startWorker(2);
        // The target reads day, a partition column, from the partition as Iceberg's readers do, not from the files;
        // grp (summed) and id, alone or beside it, come from the files column by column.
        String yaml = harness.jobYaml("ITEMS", 2).replace("null_count: [note, id]",
                "null_count: [note, id]\n  primary_key: [id, day]");
        RunView run = harness.follow(harness.submit(yaml, DAY));

        assertThat(run.status()).as(run.errorMessage()).isEqualTo(RunStatus.SUCCESS);
        // Every 50th id is NULL: null keys of one day count as one, as the source's GROUP BY counts them.
        long nullIds = 6_000 / 50;
        assertThat(harness.client.validations(run.runId())).filteredOn(v -> v.metricName().equals("DUPLICATE_KEYS"))
                .hasSize(2).allSatisfy(v -> {
                    assertThat(v.actualValue()).as(v.stage().name()).isEqualTo(Long.toString(nullIds - 1));
                    assertThat(v.judgedResult().name()).isEqualTo("PASS");
                });
    }

    @Test
    void aSecondRunReplacesItsBusinessKeyAndLeavesOthersAlone() throws Exception {
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        harness.addRows(DAY, 1, 5_000);
        harness.addRows(OTHER_DAY, 100_001, 3_000);
        harness.startWorker(2);
        String yaml = harness.jobYaml("ITEMS", 2);
        assertThat(harness.follow(harness.submit(yaml, DAY)).status()).isEqualTo(RunStatus.SUCCESS);
        assertThat(harness.follow(harness.submit(yaml, OTHER_DAY)).status()).isEqualTo(RunStatus.SUCCESS);
        List<String> otherBefore = harness.tableRows(OTHER_DAY);

        harness.addRows(DAY, 200_001, 1_000);
        RunView again = harness.follow(harness.submit(yaml, DAY));

        assertThat(again.status()).isEqualTo(RunStatus.SUCCESS);
        assertThat(harness.tableRows(DAY)).hasSize(6_000).isEqualTo(harness.sourceRows(DAY));
        assertThat(harness.tableRows(OTHER_DAY)).isEqualTo(otherBefore);
    }

    @Test
    void writesAfterTheSnapshotDoNotLeakIntoTheRun() throws Exception {
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        harness.addRows(DAY, 1, 10_000);
        List<String> atSnapshot = harness.sourceRows(DAY);
        RunSubmitter.Submission submission = harness.submit(harness.jobYaml("ITEMS", 4), DAY);
        try (var c = harness.source.connect(); var s = c.createStatement()) {
            s.execute("UPDATE items SET amount = amount + 1 WHERE id % 3 = 0");
            s.execute("DELETE FROM items WHERE id % 5 = 0");
        }
        harness.addRows(DAY, 50_001, 2_000);
        harness.startWorker(2);
        RunView run = harness.follow(submission);

        assertThat(run.status()).as(run.errorMessage()).isEqualTo(RunStatus.SUCCESS);
        assertThat(harness.tableRows(DAY)).isEqualTo(atSnapshot);
    }

    @Test
    void aLostSnapshotFailsTheRunInsteadOfReadingAnotherPointInTime() throws Exception {
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        harness.addRows(DAY, 1, 5_000);
        RunSubmitter.Submission submission = harness.submit(harness.jobYaml("ITEMS", 2), DAY);
        submission.snapshot().close();
        harness.startWorker(2);
        RunView run = harness.follow(submission);

        assertThat(run.status()).isEqualTo(RunStatus.FAILED_SNAPSHOT_EXPIRED);
        assertThat(harness.catalog.catalog().tableExists(TableIdentifier.parse(LoadHarness.TABLE))).isFalse();
    }

    @Test
    void aZombiesReportsAreRefusedAndItsFilesAreNeverPublished() throws Exception {
        harness = new LoadHarness(dir, RecoveryMode.REISSUE);
        harness.addRows(DAY, 1, 4_000);
        RunSubmitter.Submission submission = harness.submit(harness.jobYaml("ITEMS", 1), DAY);
        RunId runId = submission.runId();
        UUID zombie = UUID.randomUUID();
        assertThat(harness.client.claim(runId, PartitionId.of("0000"), new Claim(zombie, "zombie")).claimed()).isTrue();
        // The zombie loses its partition (a transient failure in REISSUE mode reissues it at the same snapshot).
        harness.client.failPartition(runId, PartitionId.of("0000"),
                new PartitionFailure(zombie, "EXTRACT", "TRANSIENT", "NET",
                "connection reset", 1));
        // It keeps writing and reporting, as a zombie does.
        String runPath = harness.client.getRun(runId).hdfsRunPath();
        Path zombieFile = Path.of(java.net.URI.create(runPath + "/part-0000-zombie.parquet"));
        Files.createDirectories(zombieFile.getParent());
        Files.writeString(zombieFile, "not parquet");
        ChunkReport late = new ChunkReport(zombie, 0, 1, "0000", zombieFile.toUri().toString(), 4_000, 11, "x");
        assertThatThrownBy(() -> harness.client.reportChunk(runId, PartitionId.of("0000"), late))
                .isInstanceOfSatisfying(LedgerCallException.class, e -> assertThat(e.code()).isEqualTo("CLAIM_MISMATCH"));

        harness.startWorker(2);
        RunView run = harness.follow(submission);
        assertThat(run.status()).as(run.errorMessage()).isEqualTo(RunStatus.SUCCESS);
        assertThat(harness.client.reportChunk(runId, PartitionId.of("0000"), late).recorded()).isFalse();
        List<String> published = publishedFiles();
        assertThat(published).noneMatch(p -> p.contains("zombie"));
        assertThat(harness.client.files(runId)).extracting(f -> f.hdfsPath())
                .noneMatch(p -> p.contains(zombie.toString().substring(0, 8)));
        assertThat(harness.tableRows(DAY)).isEqualTo(harness.sourceRows(DAY));
    }

    /**
     * The step opens the partition's rows while it claims. When another attempt holds the claim the step is skipped,
     * reports nothing, and leaves no source session behind: one left open would hold a server connection and the
     * run's snapshot (PartitionOpeningTest shows the step closes the rows itself, not PgJDBC's cleaner of lost
     * connections, which ends such a session only after a garbage collection).
     */
    @Test
    void aPartitionClaimedByAnotherAttemptIsSkippedAndItsSourceSessionEnds() throws Exception {
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        harness.addRows(DAY, 1, 4_000);
        RunSubmitter.Submission submission = harness.submit(harness.jobYaml("ITEMS", 1), DAY);
        RunId runId = submission.runId();
        Set<Long> before = Set.copyOf(sourceSessions());
        List<LeasedDispatch> leased = harness.client.leaseDispatches(new Lease(harness.context.node(),
                List.of(DispatchType.EXTRACT_PARTITION), 1, 0));
        assertThat(leased).hasSize(1);
        assertThat(harness.client.claim(runId, leased.get(0).partitionId(), new Claim(UUID.randomUUID(), "other"))
                .claimed()).isTrue();

        assertThat(new ExtractStep(harness.context).run(leased.get(0))).isEqualTo(StepOutcome.SKIPPED);

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(sourceSessions()).as("source sessions opened since the claim").isSubsetOf(before));
        assertThat(harness.client.files(runId)).isEmpty();
        submission.close();
    }

    /**
     * Each partition's chunks go to be measured for the validation before its thread reports them, the last
     * partition's too: the validation takes them measured, and no step's thread does the measuring.
     */
    @Test
    void aPartitionsChunksAreMeasuredBesideItsReports() throws Exception {
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        harness.addRows(DAY, 1, 3_000);
        RunSubmitter.Submission submission = harness.submit(harness.jobYaml("EARLY", 1), DAY);
        List<Runnable> measuring = new ArrayList<>();
        List<Integer> filesWhenGiven = new ArrayList<>();
        EarlyMeasurements early = new EarlyMeasurements(new StagedFilesReader(harness.context.hadoop()),
                Clock.systemUTC(), task -> {
                    filesWhenGiven.add(harness.client.files(submission.runId()).size());
                    measuring.add(task);
                });
        ExtractStep step = new ExtractStep(harness.context, Optional.of(early), Optional.empty());
        List<LeasedDispatch> leased = extractions();
        assertThat(leased).as("the range partition and the null one").hasSize(2);
        for (LeasedDispatch dispatch : leased) {
            assertThat(step.run(dispatch)).isEqualTo(StepOutcome.OK);
        }
        assertThat(harness.client.getRun(submission.runId()).status()).isEqualTo(RunStatus.EXTRACTED_VALIDATED);
        assertThat(filesWhenGiven).as("files in the ledger as each partition's chunks went to be measured")
                .containsExactly(0, 1);
        measuring.forEach(Runnable::run);
        Map<String, String> checksums = new HashMap<>();
        harness.client.files(submission.runId()).forEach(f -> checksums.put(f.hdfsPath(), f.checksum()));

        var measured = early.close(submission.runId(), checksums);

        assertThat(measured).as("both partitions' chunks, the last one's too").containsOnlyKeys(checksums.keySet());
        assertThat(measured.values()).allSatisfy(m -> assertThat(m.join()).isNotNull());
        submission.close();
    }

    /**
     * The partition whose report completes the extraction is handed the run's validation by the ledger and runs it
     * on its thread; no poll is given it. The partition before it is handed nothing.
     */
    @Test
    void theReportThatCompletesTheExtractionHandsTheValidationToItsThread() throws Exception {
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        harness.addRows(DAY, 1, 3_000);
        RunSubmitter.Submission submission = harness.submit(harness.jobYaml("HANDED", 1), DAY);
        List<LeasedDispatch> handed = new ArrayList<>();
        ExtractStep step = new ExtractStep(harness.context, Optional.empty(), Optional.of(handed::add));
        List<LeasedDispatch> leased = extractions();
        assertThat(leased).as("the range partition and the null one").hasSize(2);

        assertThat(step.run(leased.get(0))).isEqualTo(StepOutcome.OK);
        assertThat(handed).as("the extraction is not complete yet").isEmpty();
        assertThat(step.run(leased.get(1))).isEqualTo(StepOutcome.OK);

        assertThat(handed).singleElement().satisfies(dispatch -> {
            assertThat(dispatch.dispatchType()).isEqualTo(DispatchType.VALIDATE_RUN);
            assertThat(dispatch.runId()).isEqualTo(submission.runId());
        });
        assertThat(harness.client.leaseDispatches(new Lease("another-node", List.of(DispatchType.VALIDATE_RUN), 10, 0)))
                .as("nothing left for a poll").isEmpty();
        assertThat(new StagingValidationStep(harness.context, Optional.empty(), Optional.empty()).run(handed.get(0)))
                .as("the handed dispatch runs as a leased one").isEqualTo(StepOutcome.OK);
        assertThat(harness.client.getRun(submission.runId()).status()).isEqualTo(RunStatus.STAGING_VALIDATED);
        submission.close();
    }

    /** A worker that is stopping gives a validation handed to it back, for another worker to take now. */
    @Test
    void aStoppingWorkerGivesAHandedValidationBack() throws Exception {
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        harness.addRows(DAY, 1, 1_000);
        RunSubmitter.Submission submission = harness.submit(harness.jobYaml("HANDED_BACK", 1), DAY);
        List<LeasedDispatch> handed = new ArrayList<>();
        ExtractStep step = new ExtractStep(harness.context, Optional.empty(), Optional.of(handed::add));
        for (LeasedDispatch dispatch : extractions()) {
            assertThat(step.run(dispatch)).isEqualTo(StepOutcome.OK);
        }
        assertThat(handed).hasSize(1);
        Worker worker = harness.startWorker(1, EnumSet.of(DispatchType.PUBLISH_RUN));
        worker.stop(Duration.ofSeconds(10));

        worker.runHandedOff(handed.get(0));

        assertThat(harness.client.getRun(submission.runId()).status()).as("not validated by the stopping worker")
                .isEqualTo(RunStatus.EXTRACTED_VALIDATED);
        assertThat(harness.client.leaseDispatches(new Lease("another-node", List.of(DispatchType.VALIDATE_RUN), 10, 0)))
                .as("given back: due for another worker now").singleElement()
                .satisfies(d -> assertThat(d.dispatchId()).isEqualTo(handed.get(0).dispatchId()));
        submission.close();
    }

    /** Leases every EXTRACT_PARTITION dispatch due, as this test's worker node. */
    private List<LeasedDispatch> extractions() {
        return harness.client.leaseDispatches(new Lease(harness.context.node(), List.of(DispatchType.EXTRACT_PARTITION),
                10, 0));
    }

    /** The source database's client sessions but the asking one, by process id. */
    private List<Long> sourceSessions() throws SQLException {
        List<Long> pids = new ArrayList<>();
        try (var c = harness.source.connect(); var s = c.createStatement(); var rs = s.executeQuery(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
                        + " AND backend_type = 'client backend'")) {
            while (rs.next()) {
                pids.add(rs.getLong(1));
            }
        }
        return pids;
    }

    @Test
    void aJobsOwnRecoveryModeDecidesOverTheLedgers() throws Exception {
        harness = new LoadHarness(dir, RecoveryMode.REISSUE);
        harness.addRows(DAY, 1, 1_000);
        RunSubmitter.Submission submission = harness.submit(harness.jobYaml("ITEMS", 1) + "recovery:\n  mode: FAIL\n",
                DAY);
        UUID token = UUID.randomUUID();
        harness.client.claim(submission.runId(), PartitionId.of("0000"), new Claim(token, "n"));
        var failed = harness.client.failPartition(submission.runId(), PartitionId.of("0000"),
                new PartitionFailure(token, "EXTRACT",
                "TRANSIENT", "NET", "connection reset", 1));
        assertThat(failed.runStatus()).isEqualTo(RunStatus.FAILED_EXTRACT);
        submission.close();
    }

    @Test
    void twoWorkersGivenOnePartitionCommitOneSetOfFiles() throws Exception {
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        harness.addRows(DAY, 1, 6_000);
        RunSubmitter.Submission submission = harness.submit(harness.jobYaml("ITEMS", 1), DAY);
        LeasedDispatch dispatch = new LeasedDispatch(UUID.randomUUID(), submission.runId(),
                DispatchType.EXTRACT_PARTITION, PartitionId.of("0000"),
                        Map.of("partition", Map.of("partitionId", "0000",
                "lowerBound", submission.plan().partitions().get(0).lowerBound(),
                "upperBound", submission.plan().partitions().get(0).upperBound(), "upperInclusive", true,
                "isNullPartition", false, "expectedRowCount", submission.plan().partitions().get(0).expectedRowCount()),
                "snapshotRef", submission.plan().snapshotRef()));
        ExecutorService two = Executors.newFixedThreadPool(2);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> runs = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            runs.add(two.submit(() -> {
                go.await();
                new ExtractStep(harness.context).run(dispatch);
                return null;
            }));
        }
        go.countDown();
        for (Future<?> f : runs) {
            f.get();
        }
        two.shutdown();
        var files = harness.client.files(submission.runId());
        assertThat(files).extracting(f -> f.hdfsPath().replaceAll(".*-a[0-9]+-([0-9a-f]{8}).*", "$1"))
                .containsOnly(files.get(0).hdfsPath().replaceAll(".*-a[0-9]+-([0-9a-f]{8}).*", "$1"));
        assertThat(files.stream().mapToLong(f -> f.recordCount()).sum()).isEqualTo(6_000 - 120);
        try (Stream<Path> onDisk = Files.walk(Path.of(java.net.URI.create(
                harness.client.getRun(submission.runId()).hdfsRunPath())))) {
            assertThat(onDisk.filter(Files::isRegularFile).count()).isEqualTo(files.size());
        }
        submission.close();
    }

    @Test
    void aCommitThatLandsThenThrowsIsResolvedPublishedByTheProbe() throws Exception {
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        harness.addRows(DAY, 1, 3_000);
        harness.startWorker(2);
        // Creating the table is a commit too: let that one through, then make every publish land and throw.
        harness.catalog.createIfAbsent(new io.loadgate.worker.publish.TargetTable(
                TableIdentifier.parse(LoadHarness.TABLE), schema(), "day"));
        harness.faults.failCommits(Fault.LAND_THEN_STATE_UNKNOWN);
        RunView run = harness.follow(harness.submit(harness.jobYaml("ITEMS", 2), DAY));

        assertThat(run.status()).as(run.errorMessage()).isEqualTo(RunStatus.SUCCESS);
        assertThat(harness.faults.landedCommits()).isEqualTo(1);
        assertThat(harness.tableRows(DAY)).isEqualTo(harness.sourceRows(DAY));
        assertThat(harness.client.allEvents(run.runId())).anySatisfy(e ->
                assertThat(e.eventType()).isEqualTo("PUBLISH_UNKNOWN_RESOLVED"));
    }

    @Test
    void aCommitThatNeverLandsFailsThePublishAndLeavesTheTableAlone() throws Exception {
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        harness.addRows(DAY, 1, 3_000);
        harness.startWorker(2);
        harness.catalog.createIfAbsent(new io.loadgate.worker.publish.TargetTable(
                TableIdentifier.parse(LoadHarness.TABLE), schema(), "day"));
        harness.faults.failCommits(Fault.CONNECTION_LOST_BEFORE_LANDING);
        RunView run = harness.follow(harness.submit(harness.jobYaml("ITEMS", 2), DAY));

        assertThat(run.status()).isEqualTo(RunStatus.FAILED_PUBLISH);
        assertThat(harness.faults.landedCommits()).isZero();
        assertThat(harness.tableRows(DAY)).isEmpty();
    }

    @Test
    void aTableChangedBehindTheLedgersBackFailsTargetValidation() throws Exception {
        RunSubmitter.Submission submission = publishedAwaitingTargetValidation();

        Table table = harness.catalog.loadTable(TableIdentifier.parse(LoadHarness.TABLE));
        DataFile victim = table.currentSnapshot().addedDataFiles(table.io()).iterator().next();
        table.newDelete().deleteFile(victim).commit();
        RunView run = validateTarget(submission);

        assertThat(run.status()).isEqualTo(RunStatus.FAILED_TARGET_VALIDATION);
        assertThat(run.errorMessage()).contains("FAIL TARGET_COUNT");
    }

    /**
     * The target check takes null counts from the manifests only because it first finds the table's files to be the
     * ledger's: a file swapped for a byte-for-byte copy under another name (every data metric still equal) fails it.
     */
    @Test
    void aTableWhoseFilesAreNotTheLedgersFailsTargetValidationEvenWithEqualData() throws Exception {
        RunSubmitter.Submission submission = publishedAwaitingTargetValidation();

        Table table = harness.catalog.loadTable(TableIdentifier.parse(LoadHarness.TABLE));
        DataFile victim = table.currentSnapshot().addedDataFiles(table.io()).iterator().next();
        Path copy = Path.of(java.net.URI.create(victim.location()).getPath()).resolveSibling("copy-of-victim.parquet");
        Files.copy(Path.of(java.net.URI.create(victim.location()).getPath()), copy);
        DataFile swapped = DataFiles.builder(table.spec()).copy(victim).withPath(copy.toUri().toString()).build();
        table.newRewrite().rewriteFiles(Set.of(victim), Set.of(swapped)).commit();
        RunView run = validateTarget(submission);

        assertThat(run.status()).isEqualTo(RunStatus.FAILED_TARGET_VALIDATION);
        assertThat(run.errorMessage()).contains("FAIL TARGET_FILES").doesNotContain("TARGET_COUNT");
    }

    /**
     * MAX comes from the manifests' upper bounds once the files are the ledger's: what the table serves an engine that
     * answers from metadata. An entry whose bound is wrong (the data, and so every data metric, still right) fails.
     */
    @Test
    void aManifestWhoseBoundsDifferFromItsFilesFailsTargetValidation() throws Exception {
        RunSubmitter.Submission submission = publishedAwaitingTargetValidation();

        Table table = harness.catalog.loadTable(TableIdentifier.parse(LoadHarness.TABLE));
        DataFile victim = table.currentSnapshot().addedDataFiles(table.io()).iterator().next();
        int id = table.schema().findField("id").fieldId();
        Map<Integer, java.nio.ByteBuffer> upper = new java.util.HashMap<>(victim.upperBounds());
        upper.put(id, org.apache.iceberg.types.Conversions.toByteBuffer(
                org.apache.iceberg.types.Types.LongType.get(), 6_001L));
        DataFile lying = DataFiles.builder(table.spec()).copy(victim).withMetrics(new org.apache.iceberg.Metrics(
                victim.recordCount(), victim.columnSizes(), victim.valueCounts(), victim.nullValueCounts(),
                victim.nanValueCounts(), victim.lowerBounds(), upper)).build();
        table.newRewrite().rewriteFiles(Set.of(victim), Set.of(lying)).commit();
        RunView run = validateTarget(submission);

        assertThat(run.status()).isEqualTo(RunStatus.FAILED_TARGET_VALIDATION);
        assertThat(run.errorMessage()).contains("FAIL MAX:id").doesNotContain("TARGET_FILES")
                .doesNotContain("TARGET_COUNT");
    }

    /**
     * The manifests stand for the data only while the files hold the bytes staging validated: a file changed in place
     * after its publish (same name, size and row count, so its manifest entry still matches the ledger's) fails
     * TARGET_FILES, which compares every file's SHA-256 with its chunk report's.
     */
    @Test
    void aFileChangedInPlaceAfterItsPublishFailsTargetValidation() throws Exception {
        RunSubmitter.Submission submission = publishedAwaitingTargetValidation();

        Path victim = Path.of(java.net.URI.create(publishedFiles().get(0)).getPath());
        byte[] bytes = Files.readAllBytes(victim);
        // One byte of the footer's created_by text: the file still reads, with the same rows and statistics.
        int at = new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1).lastIndexOf("parquet-");
        assertThat(at).isPositive();
        bytes[at] = (byte) 'P';
        Files.write(victim, bytes);
        RunView run = validateTarget(submission);

        assertThat(run.status()).isEqualTo(RunStatus.FAILED_TARGET_VALIDATION);
        assertThat(run.errorMessage()).contains("FAIL TARGET_FILES").doesNotContain("TARGET_COUNT")
                .doesNotContain("TARGET_READABLE");
    }

    /**
     * Staging validation hashes every committed file (one file per core at a time) against the SHA-256 its chunk report
     * carried: a staged file changed in place after its report (same name, size and rows) fails the run and is
     * never published.
     */
    @Test
    void aStagedFileChangedInPlaceAfterItsReportFailsStagingValidation() throws Exception {
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        harness.addRows(DAY, 1, 6_000);
        harness.startWorker(2, EnumSet.of(DispatchType.EXTRACT_PARTITION));
        RunSubmitter.Submission submission = harness.submit(harness.jobYaml("ITEMS", 3), DAY);
        assertThat(harness.waitFor(submission.runId(), RunStatus.EXTRACTED_VALIDATED).status())
                .isEqualTo(RunStatus.EXTRACTED_VALIDATED);

        var staged = harness.client.files(submission.runId());
        // Three ranges of ids and the partition of null ids, a chunk each.
        assertThat(staged).hasSize(4);
        var changed = staged.get(1);
        Path victim = Path.of(java.net.URI.create(changed.hdfsPath()).getPath());
        byte[] bytes = Files.readAllBytes(victim);
        int at = new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1).lastIndexOf("parquet-");
        assertThat(at).isPositive();
        bytes[at] = (byte) 'P';
        Files.write(victim, bytes);
        harness.startWorker(2, EnumSet.complementOf(EnumSet.of(DispatchType.EXTRACT_PARTITION)));
        RunView run = harness.follow(submission);

        assertThat(run.status()).isEqualTo(RunStatus.FAILED_STAGE_VALIDATION);
        assertThat(run.errorMessage()).contains("CHECKSUM:" + changed.partitionId() + ":" + changed.chunkIndex())
                .doesNotContain("CHECKSUM:" + staged.get(0).partitionId() + ":" + staged.get(0).chunkIndex())
                .doesNotContain("STAGE_COUNT");
        Catalog catalog = harness.catalog.catalog();
        TableIdentifier table = TableIdentifier.parse(LoadHarness.TABLE);
        assertThat(catalog.tableExists(table) && catalog.loadTable(table).currentSnapshot() != null)
                .as("nothing published").isFalse();
    }

    /**
     * The ledger's record of a chunk is its commit, and the catalog's pointer to a metadata file the table's: every
     * file either names is forced to the disk (with its directory) before the record, so a crash of the machine cannot
     * take back what a SUCCESS stands on.
     */
    @Test
    void everyFileTheLedgerOrTheCatalogNamesIsForcedToTheDisk() throws Exception {
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        harness.addRows(DAY, 1, 6_000);
        harness.startWorker(2);
        List<RunView> runs = new ArrayList<>();

        List<String> forced = ForcedFiles.during(() ->
                runs.add(harness.follow(harness.submit(harness.jobYaml("ITEMS", 3), DAY))));

        assertThat(runs.get(0).status()).isEqualTo(RunStatus.SUCCESS);
        List<Path> chunks = harness.client.files(runs.get(0).runId()).stream()
                .map(f -> Path.of(java.net.URI.create(f.hdfsPath()).getPath())).toList();
        assertThat(chunks).isNotEmpty();
        Table table = harness.catalog.loadTable(TableIdentifier.parse(LoadHarness.TABLE));
        List<Path> metadata = new ArrayList<>();
        metadata.add(local(((HasTableOperations) table).operations().current().metadataFileLocation()));
        metadata.add(local(table.currentSnapshot().manifestListLocation()));
        table.currentSnapshot().allManifests(table.io()).forEach(m -> metadata.add(local(m.path())));
        for (Path file : Stream.concat(chunks.stream(), metadata.stream()).toList()) {
            assertThat(forced).as("forced").contains(file.toString(), file.getParent().toString());
        }
    }

    /** A run of 6,000 rows that workers which do not validate targets take as far as PUBLISHED. */
    private RunSubmitter.Submission publishedAwaitingTargetValidation() throws SQLException, InterruptedException {
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        harness.addRows(DAY, 1, 6_000);
        harness.startWorker(2, EnumSet.complementOf(EnumSet.of(DispatchType.VALIDATE_TARGET)));
        RunSubmitter.Submission submission = harness.submit(harness.jobYaml("ITEMS", 2), DAY);
        assertThat(harness.waitFor(submission.runId(), RunStatus.PUBLISHED).status()).isEqualTo(RunStatus.PUBLISHED);
        return submission;
    }

    /** Starts a worker that only validates targets, and follows the run to its end. */
    private RunView validateTarget(RunSubmitter.Submission submission) throws InterruptedException {
        harness.startWorker(1, EnumSet.of(DispatchType.VALIDATE_TARGET));
        return harness.follow(submission);
    }

    private static Path local(String location) {
        return Path.of(location.startsWith("file:") ? java.net.URI.create(location).getPath() : location);
    }

    private List<String> publishedFiles() {
        Table table = harness.catalog.loadTable(TableIdentifier.parse(LoadHarness.TABLE));
        List<String> paths = new ArrayList<>();
        table.currentSnapshot().addedDataFiles(table.io()).forEach(f -> paths.add(f.location()));
        return paths;
    }

    private static org.apache.iceberg.Schema schema() {
        return new org.apache.iceberg.Schema(
                org.apache.iceberg.types.Types.NestedField.optional(1, "id", org.apache.iceberg.types.Types.LongType.get()),
                org.apache.iceberg.types.Types.NestedField.optional(2, "grp", org.apache.iceberg.types.Types.IntegerType.get()),
                org.apache.iceberg.types.Types.NestedField.optional(3, "amount",
                        org.apache.iceberg.types.Types.DecimalType.of(10, 2)),
                org.apache.iceberg.types.Types.NestedField.optional(4, "note", org.apache.iceberg.types.Types.StringType.get()),
                org.apache.iceberg.types.Types.NestedField.optional(5, "day", org.apache.iceberg.types.Types.DateType.get()));
    }
}

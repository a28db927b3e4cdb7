package io.loadgate.worker.publish;

import static io.loadgate.worker.publish.StagedFiles.ORDERS;
import static io.loadgate.worker.publish.StagedFiles.ORDERS_TABLE;
import static io.loadgate.worker.publish.StagedFiles.orders;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loadgate.worker.publish.FaultInjectingCatalog.Fault;
import io.loadgate.worker.publish.PublishOutcome.ErrorCode;
import io.loadgate.worker.publish.PublishOutcome.Status;
import io.loadgate.worker.testing.Fences;
import io.loadgate.worker.testing.Lakehouses;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.StreamSupport;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class IcebergPublisherTest {
    private static final LocalDate DAY_1 = LocalDate.of(2026, 11, 28);
    private static final LocalDate DAY_2 = LocalDate.of(2026, 11, 29);

    @TempDir
    Path warehouse;
    @TempDir
    Path staging;

    private CatalogConfig config;
    private TargetCatalog realCatalog;
    private FaultInjectingCatalog faulty;
    private TargetCatalog tables;
    private IcebergPublisher publisher;
    private int runs;

    @BeforeEach
    void openCatalog() {
        config = Lakehouses.jdbcCatalog(warehouse);
        realCatalog = TargetCatalog.open(config);
        faulty = new FaultInjectingCatalog(realCatalog.catalog());
        tables = new TargetCatalog(faulty);
        publisher = new IcebergPublisher(tables);
    }

    @AfterEach
    void closeCatalog() {
        realCatalog.close();
    }

    @Test
    void publishesTheStagedFilesAsTheyAreWithTheRunInTheSummary() {
        List<Record> first = orders(DAY_1, 1, 1000);
        List<Record> second = orders(DAY_1, 1001, 500);
        PublishRequest request = request(DAY_1, StagedFiles.write(staging, first), StagedFiles.write(staging, second));

        PublishOutcome outcome = publisher.publish(request);

        assertThat(outcome.status()).as("outcome %s", outcome).isEqualTo(Status.PUBLISHED);
        Table table = realCatalog.loadTable(ORDERS_TABLE.identifier());
        Snapshot snapshot = table.currentSnapshot();
        assertThat(outcome.targetRef()).isEqualTo(Long.toString(snapshot.snapshotId()));
        assertThat(snapshot.summary())
                .containsEntry("loadgate.run-id", request.runId())
                .containsEntry("loadgate.publish-token", request.publishToken().toString())
                .containsEntry("loadgate.job-key", "orders-daily")
                .containsEntry("loadgate.business-key", DAY_1.toString());
        assertThat(rows(table)).as("rows read back").containsExactlyInAnyOrderElementsOf(concat(first, second));
        assertThat(dataFiles(table)).as("the table references the staged files themselves, not copies")
                .containsExactlyInAnyOrder(request.files().get(0).location(), request.files().get(1).location());
        assertThat(faulty.commitCalls()).as("catalog commits").isEqualTo(1);
        assertThat(table.io()).isInstanceOf(LocalFileIO.class);
        try (var files = java.nio.file.Files.walk(warehouse)) {
            assertThat(files.map(Path::toString).toList())
                    .as("the commit's metadata, manifest list and manifest, written without Hadoop's checksum files")
                    .anyMatch(name -> name.endsWith(".metadata.json")).anyMatch(name -> name.endsWith(".avro"))
                    .noneMatch(name -> name.endsWith(".crc"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void theCommitWritesItsManifestsInThePublishingThread() {
        List<StagedFile> files = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            files.add(StagedFiles.write(staging, orders(DAY_1, 1 + i * 10, 10)));
        }
        assertPublished(publisher.publish(request(DAY_1, files.toArray(StagedFile[]::new))));
        // The second commit also filters the first one's manifest and merges the manifests.
        assertPublished(publisher.publish(request(DAY_2, StagedFiles.write(staging, orders(DAY_2, 500, 10)))));

        // Iceberg waits for work it hands to its pool by polling every 10 ms; done in the caller, it never waits.
        assertThat(faulty.writingThreads()).as("threads that wrote the commits' files")
                .containsExactly(Thread.currentThread().getName());
        assertThat(rows(realCatalog.loadTable(ORDERS_TABLE.identifier()))).hasSize(130);
    }

    @Test
    void aSecondPublishReplacesItsBusinessKeyAndLeavesOthersUntouched() {
        List<Record> day1 = orders(DAY_1, 1, 300);
        List<Record> day2 = orders(DAY_2, 301, 200);
        List<Record> day1Again = orders(DAY_1, 10_001, 250);
        assertPublished(publisher.publish(request(DAY_1, StagedFiles.write(staging, day1))));
        PublishRequest day2Request = request(DAY_2, StagedFiles.write(staging, day2));
        assertPublished(publisher.publish(day2Request));

        assertPublished(publisher.publish(request(DAY_1, StagedFiles.write(staging, day1Again))));

        Table table = realCatalog.loadTable(ORDERS_TABLE.identifier());
        assertThat(rows(table)).as("day 1 replaced, day 2 as it was")
                .containsExactlyInAnyOrderElementsOf(concat(day1Again, day2));
        assertThat(dataFiles(table)).as("day 2's file is still the one its run published")
                .contains(day2Request.files().get(0).location());
    }

    @Test
    void anEmptyFileListEmptiesTheBusinessKey() {
        List<Record> day2 = orders(DAY_2, 301, 20);
        assertPublished(publisher.publish(request(DAY_1, StagedFiles.write(staging, orders(DAY_1, 1, 30)))));
        assertPublished(publisher.publish(request(DAY_2, StagedFiles.write(staging, day2))));

        assertPublished(publisher.publish(request(DAY_1)));

        assertThat(rows(realCatalog.loadTable(ORDERS_TABLE.identifier()))).containsExactlyInAnyOrderElementsOf(day2);
    }

    @ParameterizedTest(name = "{0} is {1}")
    @CsvSource({"LAND_THEN_STATE_UNKNOWN, COMMIT_STATE_UNKNOWN", "LAND_THEN_CONNECTION_LOST, COMMIT_INTERRUPTED"})
    void aCommitThatLandsThenFailsWithoutAnAnswerIsUnknownAndTheProbeFindsIt(Fault fault, ErrorCode errorCode) {
        List<Record> day1 = orders(DAY_1, 1, 400);
        PublishRequest request = request(DAY_1, StagedFiles.write(staging, day1));
        faulty.failCommits(fault);

        PublishOutcome outcome = publisher.publish(request);

        assertThat(outcome.status()).as("outcome %s", outcome).isEqualTo(Status.PUBLISH_UNKNOWN);
        assertThat(outcome.errorCode()).isEqualTo(errorCode);
        assertProbeFindsTheOneLandedCommit(request, day1);
    }

    @Test
    void aCommitThatLandsThenIsReportedAsConflictIsRecognisedAsPublishedAndKeepsItsManifests() {
        List<Record> day1 = orders(DAY_1, 1, 400);
        PublishRequest request = request(DAY_1, StagedFiles.write(staging, day1));
        faulty.failCommits(Fault.LAND_THEN_CONFLICT);

        PublishOutcome outcome = publisher.publish(request);

        assertThat(outcome.status()).as("outcome %s", outcome).isEqualTo(Status.PUBLISHED);
        assertThat(faulty.commitCalls()).as("no retry on top of the landed commit").isEqualTo(1);
        faulty.failCommits(null);
        Table table = realCatalog.loadTable(ORDERS_TABLE.identifier());
        assertThat(outcome.targetRef()).isEqualTo(Long.toString(table.currentSnapshot().snapshotId()));
        // Iceberg deletes an attempt's manifests after a "cleanable" failure; reading proves they survived.
        assertThat(rows(table)).as("one readable copy").containsExactlyInAnyOrderElementsOf(day1);
    }

    @Test
    void aCommitTheCatalogRefusesIsFailedAndLeavesTheTableAsItWas() {
        List<Record> before = orders(DAY_1, 1, 100);
        assertPublished(publisher.publish(request(DAY_1, StagedFiles.write(staging, before))));
        PublishRequest request = request(DAY_1, StagedFiles.write(staging, orders(DAY_1, 500, 100)));
        faulty.failCommits(Fault.REFUSE);

        PublishOutcome outcome = publisher.publish(request);

        assertThat(outcome.status()).as("outcome %s", outcome).isEqualTo(Status.FAILED_PUBLISH);
        assertThat(outcome.errorCode()).isEqualTo(ErrorCode.COMMIT_CONFLICT);
        assertThat(faulty.landedCommits()).as("commits that landed (the first publish only)").isEqualTo(1);
        faulty.failCommits(null);
        assertThat(publisher.probe(ORDERS_TABLE.identifier(), request.runId(), request.publishToken()).status())
                .isEqualTo(ProbeResult.Status.NOT_FOUND);
        assertThat(rows(realCatalog.loadTable(ORDERS_TABLE.identifier()))).containsExactlyInAnyOrderElementsOf(before);
    }

    @Test
    void aConnectionLostBeforeTheCommitLandsIsUnknownAndTheProbeFindsNothing() {
        List<Record> before = orders(DAY_1, 1, 100);
        assertPublished(publisher.publish(request(DAY_1, StagedFiles.write(staging, before))));
        PublishRequest request = request(DAY_1, StagedFiles.write(staging, orders(DAY_1, 500, 100)));
        faulty.failCommits(Fault.CONNECTION_LOST_BEFORE_LANDING);

        PublishOutcome outcome = publisher.publish(request);

        // The publisher cannot tell where the connection broke: only the probe, once the attempt is over, can.
        assertThat(outcome.status()).as("outcome %s", outcome).isEqualTo(Status.PUBLISH_UNKNOWN);
        assertThat(faulty.commitCalls()).as("no second attempt after an unknown outcome").isEqualTo(2);
        faulty.failCommits(null);
        ProbeResult probe = publisher.probe(ORDERS_TABLE.identifier(), request.runId(), request.publishToken());
        assertThat(probe.status()).as("probe %s", probe).isEqualTo(ProbeResult.Status.NOT_FOUND);
        assertThat(probe.evidence()).contains("none of the 1 retained snapshots");
        assertThat(rows(realCatalog.loadTable(ORDERS_TABLE.identifier()))).containsExactlyInAnyOrderElementsOf(before);
    }

    /**
     * Issue 8's zombie: run A's publisher claimed (generation n) and was paused before it read the table; its run was
     * settled and run B of the same key claimed (n + 1) and published. A resuming must not land: without the fence
     * nothing else stops it (A starts from B's snapshot, so Iceberg's conflict checks see nothing to object to).
     */
    @Test
    void aPausedPublisherResumingAfterANewerPublishOfItsKeyIsRefusedAndTheNewerRowsStay() {
        List<Record> older = orders(DAY_1, 1, 120);
        List<Record> newer = orders(DAY_1, 1, 110);
        PublishRequest paused = request(DAY_1, StagedFiles.write(staging, older));
        PublishRequest later = request(DAY_1, StagedFiles.write(staging, newer));
        assertPublished(publisher.publish(later));

        PublishOutcome resumed = publisher.publish(paused);

        assertThat(resumed.status()).as("outcome %s", resumed).isEqualTo(Status.FAILED_PUBLISH);
        assertThat(resumed.errorCode()).isEqualTo(ErrorCode.PUBLISH_FENCED);
        assertThat(resumed.message()).contains("holds publish generation " + later.fence().generation());
        Table table = realCatalog.loadTable(ORDERS_TABLE.identifier());
        assertThat(rows(table)).as("the newer run's rows").containsExactlyInAnyOrderElementsOf(newer);
        assertThat(table.properties()).as("the key's generation is the newer publish's")
                .containsEntry(IcebergPublisher.generationProperty("orders-daily", DAY_1.toString()),
                        Long.toString(later.fence().generation()));
        assertThat(publisher.probe(ORDERS_TABLE.identifier(), paused.runId(), paused.publishToken()).status())
                .as("the refused commit left no trace").isEqualTo(ProbeResult.Status.NOT_FOUND);
    }

    /** The fence is checked inside the commit: a newer publish landing during the paused attempt is seen on retry. */
    @Test
    void aPublisherPausedInsideItsCommitWhileANewerPublishLandsIsRefused() throws Exception {
        List<Record> newer = orders(DAY_1, 500, 60);
        PublishRequest paused = request(DAY_1, StagedFiles.write(staging, orders(DAY_1, 1, 100)));
        PublishRequest later = request(DAY_1, StagedFiles.write(staging, newer));
        java.util.concurrent.CountDownLatch inCommit = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch resume = new java.util.concurrent.CountDownLatch(1);
        faulty.beforeNextCommit(() -> {
            inCommit.countDown();
            try {
                assertThat(resume.await(60, TimeUnit.SECONDS)).isTrue();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try {
            Future<PublishOutcome> resumed = thread.submit(() -> publisher.publish(paused));
            assertThat(inCommit.await(60, TimeUnit.SECONDS)).as("the paused publisher reached its commit").isTrue();
            assertPublished(new IcebergPublisher(realCatalog).publish(later));
            resume.countDown();

            PublishOutcome outcome = resumed.get(60, TimeUnit.SECONDS);
            assertThat(outcome.status()).as("outcome %s", outcome).isEqualTo(Status.FAILED_PUBLISH);
            assertThat(outcome.errorCode()).isIn(ErrorCode.PUBLISH_FENCED, ErrorCode.COMMIT_VALIDATION_FAILED);
        } finally {
            thread.shutdownNow();
        }
        assertThat(rows(realCatalog.loadTable(ORDERS_TABLE.identifier()))).as("the newer run's rows")
                .containsExactlyInAnyOrderElementsOf(newer);
    }

    /** Past its deadline a publisher sends no commit: the ledger may already have settled its run on a probe. */
    @Test
    void aPublishPastItsDeadlineSendsNoCommit() {
        List<Record> before = orders(DAY_1, 1, 50);
        assertPublished(publisher.publish(request(DAY_1, StagedFiles.write(staging, before))));
        int commits = faulty.commitCalls();
        PublishRequest late = new PublishRequest("run-late", "orders-daily", DAY_1.toString(), UUID.randomUUID(),
                new PublishFence(Fences.next().generation(), java.time.Instant.now().minusSeconds(1)), ORDERS_TABLE,
                List.of(StagedFiles.write(staging, orders(DAY_1, 100, 70))));

        PublishOutcome outcome = publisher.publish(late);

        assertThat(outcome.status()).as("outcome %s", outcome).isEqualTo(Status.FAILED_PUBLISH);
        assertThat(outcome.errorCode()).isEqualTo(ErrorCode.PUBLISH_FENCED);
        assertThat(outcome.message()).contains("the publish deadline");
        assertThat(faulty.commitCalls()).as("nothing reached the catalog").isEqualTo(commits);
        assertThat(rows(realCatalog.loadTable(ORDERS_TABLE.identifier()))).containsExactlyInAnyOrderElementsOf(before);
    }

    @Test
    void aCommitOvertakenByAnotherBusinessKeyIsRetriedOnTopOfIt() {
        List<Record> day1 = orders(DAY_1, 1, 100);
        List<Record> day2 = orders(DAY_2, 500, 60);
        assertPublished(publisher.publish(request(DAY_2, StagedFiles.write(staging, orders(DAY_2, 900, 5)))));
        // Claimed after the publish it replaces, as the ledger orders them (an earlier claim would be fenced).
        PublishRequest overtaking = request(DAY_2, StagedFiles.write(staging, day2));
        faulty.beforeNextCommit(() -> assertPublished(new IcebergPublisher(realCatalog).publish(overtaking)));

        assertPublished(publisher.publish(request(DAY_1, StagedFiles.write(staging, day1))));

        assertThat(faulty.commitCalls()).as("first publish, refused attempt, retry").isEqualTo(3);
        assertThat(rows(realCatalog.loadTable(ORDERS_TABLE.identifier())))
                .containsExactlyInAnyOrderElementsOf(concat(day1, day2));
    }

    @Test
    void aCommitOvertakenByDataForTheSameBusinessKeyFailsInsteadOfOverwritingIt() {
        List<Record> theirs = orders(DAY_1, 500, 60);
        PublishRequest overtaking = request(DAY_1, StagedFiles.write(staging, theirs));
        faulty.beforeNextCommit(() -> assertPublished(new IcebergPublisher(realCatalog).publish(overtaking)));
        PublishRequest request = request(DAY_1, StagedFiles.write(staging, orders(DAY_1, 1, 100)));

        PublishOutcome outcome = publisher.publish(request);

        assertThat(outcome.status()).as("outcome %s", outcome).isEqualTo(Status.FAILED_PUBLISH);
        assertThat(outcome.errorCode()).isEqualTo(ErrorCode.COMMIT_VALIDATION_FAILED);
        assertThat(publisher.probe(ORDERS_TABLE.identifier(), request.runId(), request.publishToken()).status())
                .isEqualTo(ProbeResult.Status.NOT_FOUND);
        assertThat(rows(realCatalog.loadTable(ORDERS_TABLE.identifier()))).containsExactlyInAnyOrderElementsOf(theirs);
    }

    @Test
    void ledgerCountsThatDisagreeWithTheFileFailBeforeCommitting() {
        StagedFile real = StagedFiles.write(staging, orders(DAY_1, 1, 10));
        StagedFile wrongCount = new StagedFile(real.location(), 11, real.byteCount());

        PublishOutcome outcome = publisher.publish(request(DAY_1, wrongCount));

        assertThat(outcome.status()).as("outcome %s", outcome).isEqualTo(Status.FAILED_PUBLISH);
        assertThat(outcome.errorCode()).isEqualTo(ErrorCode.NOT_COMMITTED);
        assertThat(outcome.message()).contains("holds 10 records but the ledger recorded 11");
        assertThat(faulty.commitCalls()).isZero();
    }

    @Test
    void aMissingStagedFileFailsBeforeCommitting() {
        StagedFile missing = new StagedFile(staging.resolve("gone.parquet").toString(), 10, 1234);

        PublishOutcome outcome = publisher.publish(request(DAY_1, missing));

        assertThat(outcome.status()).as("outcome %s", outcome).isEqualTo(Status.FAILED_PUBLISH);
        assertThat(outcome.errorCode()).isEqualTo(ErrorCode.NOT_COMMITTED);
        assertThat(faulty.commitCalls()).isZero();
    }

    @Test
    void aTableWithAnotherSchemaIsATargetMismatch() {
        assertPublished(publisher.publish(request(DAY_1, StagedFiles.write(staging, orders(DAY_1, 1, 10)))));
        Schema widerSchema = new Schema(List.of(ORDERS.columns().get(0), ORDERS.columns().get(1),
                Types.NestedField.optional(3, "amount", Types.DecimalType.of(18, 2)), ORDERS.columns().get(3)));
        TargetTable changed = new TargetTable(ORDERS_TABLE.identifier(), widerSchema, "order_date");
        PublishRequest request = new PublishRequest("run-x", "orders-daily", DAY_2.toString(), UUID.randomUUID(),
                Fences.next(), changed, List.of());

        PublishOutcome outcome = publisher.publish(request);

        assertThat(outcome.status()).as("outcome %s", outcome).isEqualTo(Status.FAILED_PUBLISH);
        assertThat(outcome.errorCode()).isEqualTo(ErrorCode.TARGET_MISMATCH);
        assertThat(outcome.message()).contains("decimal(12, 2)").contains("decimal(18, 2)");
    }

    @Test
    void workersPublishingDifferentBusinessKeysAtOnceAllLand() throws Exception {
        int workers = 4;
        List<List<Record>> perDay = new ArrayList<>();
        List<PublishRequest> requests = new ArrayList<>();
        for (int i = 0; i < workers; i++) {
            LocalDate day = DAY_1.plusDays(i);
            List<Record> records = orders(day, i * 1000L, 100 + i);
            perDay.add(records);
            requests.add(request(day, StagedFiles.write(staging, records)));
        }
        CyclicBarrier start = new CyclicBarrier(workers);
        ExecutorService pool = Executors.newFixedThreadPool(workers);
        try {
            List<Future<PublishOutcome>> outcomes = new ArrayList<>();
            for (PublishRequest request : requests) {
                outcomes.add(pool.submit(() -> {
                    // Each worker has its own catalog connection, as separate processes would.
                    try (TargetCatalog own = TargetCatalog.open(config)) {
                        IcebergPublisher ownPublisher = new IcebergPublisher(own);
                        start.await(30, TimeUnit.SECONDS);
                        return ownPublisher.publish(request);
                    }
                }));
            }
            for (Future<PublishOutcome> outcome : outcomes) {
                assertPublished(outcome.get(120, TimeUnit.SECONDS));
            }
        } finally {
            pool.shutdownNow();
        }

        Table table = realCatalog.loadTable(ORDERS_TABLE.identifier());
        assertThat(rows(table)).as("every business key once")
                .containsExactlyInAnyOrderElementsOf(perDay.stream().flatMap(List::stream).toList());
        for (PublishRequest request : requests) {
            assertThat(publisher.probe(ORDERS_TABLE.identifier(), request.runId(), request.publishToken()).status())
                    .as("probe for run %s", request.runId()).isEqualTo(ProbeResult.Status.PUBLISHED);
        }
    }

    @Test
    void probingATableThatDoesNotExistFindsNothing() {
        ProbeResult probe = publisher.probe(TableIdentifier.of("lake", "absent"), "run-1", UUID.randomUUID());

        assertThat(probe.status()).isEqualTo(ProbeResult.Status.NOT_FOUND);
        assertThat(probe.evidence()).contains("does not exist");
    }

    @Test
    void aTokenFoundUnderAnotherRunIsNotResolved() {
        PublishRequest request = request(DAY_1, StagedFiles.write(staging, orders(DAY_1, 1, 10)));
        assertPublished(publisher.publish(request));

        assertThatThrownBy(() -> publisher.probe(ORDERS_TABLE.identifier(), "another-run", request.publishToken()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("but run id " + request.runId() + ", not another-run");
    }

    private void assertProbeFindsTheOneLandedCommit(PublishRequest request, List<Record> expectedRows) {
        faulty.failCommits(null);
        assertThat(faulty.landedCommits()).as("commits that landed").isEqualTo(1);
        assertThat(faulty.commitCalls()).as("commit attempts").isEqualTo(1);

        ProbeResult probe = publisher.probe(ORDERS_TABLE.identifier(), request.runId(), request.publishToken());

        Table table = realCatalog.loadTable(ORDERS_TABLE.identifier());
        assertThat(probe.status()).as("probe %s", probe).isEqualTo(ProbeResult.Status.PUBLISHED);
        assertThat(probe.snapshotId()).isEqualTo(table.currentSnapshot().snapshotId());
        assertThat(probe.evidence()).contains(request.publishToken().toString());
        assertThat(rows(table)).as("exactly one copy").containsExactlyInAnyOrderElementsOf(expectedRows);
    }

    private PublishRequest request(LocalDate day, StagedFile... files) {
        runs++;
        return new PublishRequest("run-" + runs, "orders-daily", day.toString(), UUID.randomUUID(), Fences.next(),
                ORDERS_TABLE, List.of(files));
    }

    private static void assertPublished(PublishOutcome outcome) {
        assertThat(outcome.status()).as("outcome %s", outcome).isEqualTo(Status.PUBLISHED);
    }

    static List<Record> rows(Table table) {
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            return StreamSupport.stream(records.spliterator(), false).map(Record::copy).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<String> dataFiles(Table table) {
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            return StreamSupport.stream(tasks.spliterator(), false).map(task -> task.file().location()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<Record> concat(List<Record> a, List<Record> b) {
        List<Record> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}

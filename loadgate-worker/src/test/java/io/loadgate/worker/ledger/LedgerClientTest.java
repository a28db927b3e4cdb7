package io.loadgate.worker.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.loadgate.api.BusinessKey;
import io.loadgate.api.DispatchType;
import io.loadgate.api.Executor;
import io.loadgate.api.JobKey;
import io.loadgate.api.MonitorHistory;
import io.loadgate.api.PartitionApi.ChunkReport;
import io.loadgate.api.PartitionApi.Claim;
import io.loadgate.api.PartitionApi.PartitionFailure;
import io.loadgate.api.PartitionApi.PartitionHeartbeat;
import io.loadgate.api.PartitionId;
import io.loadgate.api.PartitionStatus;
import io.loadgate.api.RunApi;
import io.loadgate.api.RunApi.CreateRun;
import io.loadgate.api.RunApi.FailRun;
import io.loadgate.api.RunApi.Manifest;
import io.loadgate.api.RunApi.ManifestPartition;
import io.loadgate.api.RunApi.RunFilter;
import io.loadgate.api.RunId;
import io.loadgate.api.RunStatus;
import io.loadgate.server.testing.TestLedger;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Every endpoint the ledger has today, called through {@link HttpLedgerClient} over real HTTP on a real database. */
class LedgerClientTest {
    private static TestLedger ledger;
    private static LedgerClient worker;
    private static LedgerClient viewer;

    @BeforeAll
    static void start() {
        ledger = new TestLedger();
        worker = client(ledger.workerToken);
        viewer = client(ledger.viewerToken);
    }

    @AfterAll
    static void stop() {
        ledger.close();
    }

    static LedgerClient client(String token) {
        return HttpLedgerClient.create(LedgerClientConfig.builder(ledger.baseUrl(), LedgerToken.of(token)).build());
    }

    static JobKey job() {
        return JobKey.of("JOB_" + UUID.randomUUID().toString().substring(0, 8).toUpperCase());
    }

    static CreateRun create(JobKey job) {
        return CreateRun.forWorkers(job, BusinessKey.of("2026-11-30"), TestLedger.STAGE_ROOT, "stg_");
    }

    /** {@code counts.length} ranges of width 100 from 0, the last inclusive. */
    static Manifest manifest(long... counts) {
        List<ManifestPartition> partitions = new ArrayList<>();
        long total = 0;
        for (int i = 0; i < counts.length; i++) {
            partitions.add(ManifestPartition.range(PartitionId.of(String.format("%04d", i)),
                    BigInteger.valueOf(i * 100L),
                    BigInteger.valueOf((i + 1) * 100L), i == counts.length - 1, counts[i]));
            total += counts[i];
        }
        return new Manifest(new BigInteger("98765432109876543210"), null, total, 0, BigInteger.ZERO,
                BigInteger.valueOf(counts.length * 100L), counts.length, Map.of("COUNT", String.valueOf(total)), "v1",
                partitions);
    }

    static ChunkReport chunk(RunApi.CreatedRun run, UUID token, String partitionId, int index, int count, long rows) {
        return new ChunkReport(token, index, count, partitionId, run.hdfsRunPath() + "/part-" + partitionId + "-" + index
                + ".parquet", rows, rows * 10, "c" + index);
    }

    @Test
    void createThenReadTheRunBackAndFindItInTheList() {
        JobKey job = job();
        var created = worker.createRun(create(job).withParameters(Map.of("region", "EU")));

        assertThat(created.status()).isEqualTo(RunStatus.CREATED);
        assertThat(created.adopted()).isFalse();
        assertThat(created.hdfsRunPath()).isEqualTo(TestLedger.STAGE_ROOT + "/" + job + "/run_id=" + created.runId());
        assertThat(created.stageTable()).isEqualTo("stg_" + created.runId().toString().replace("-", ""));
        var run = viewer.getRun(created.runId());
        assertThat(run.jobKey()).isEqualTo(job);
        assertThat(run.businessKey()).isEqualTo(BusinessKey.of("2026-11-30"));
        assertThat(run.executor()).isEqualTo("worker");
        assertThat(run.startedAt()).isNotNull();
        assertThat(viewer.listRuns(new RunFilter(job, null, null, null))).extracting(RunApi.RunView::runId)
                .containsExactly(created.runId());
        assertThat(viewer.listRuns(new RunFilter(job, BusinessKey.of("2026-11-30"), RunStatus.CREATED, 5))).hasSize(1);
        assertThat(viewer.listRuns(new RunFilter(job, null, RunStatus.SUCCESS, null))).isEmpty();
    }

    @Test
    void aRunGoesFromManifestThroughClaimsAndChunksToExtractedValidated() {
        var run = worker.createRun(create(job()));
        var accepted = worker.registerManifest(run.runId(), manifest(30, 0, 20));

        assertThat(accepted.status()).isEqualTo(RunStatus.EXTRACTING);
        assertThat(accepted.emptyPartitionCount()).isEqualTo(1);
        assertThat(accepted.dispatchPartitions()).extracting(ManifestPartition::partitionId)
                .containsExactly(PartitionId.of("0000"), PartitionId.of("0002"));
        assertThat(accepted.dispatchPartitions().get(1).upperInclusive()).isTrue();
        assertThat(accepted.dispatchPartitions().get(1).upperBound()).isEqualTo(BigInteger.valueOf(300));
        assertThat(worker.registerManifest(run.runId(), manifest(30, 0, 20))).as("the identical manifest again")
                .isEqualTo(accepted);

        UUID a = UUID.randomUUID();
        UUID b = UUID.randomUUID();
        var claim = worker.claim(run.runId(), PartitionId.of("0000"), new Claim(a, "node-a"));
        assertThat(claim.claimed()).isTrue();
        assertThat(claim.partitionStatus()).isEqualTo(PartitionStatus.RUNNING);
        assertThat(worker.claim(run.runId(), PartitionId.of("0000"),
                new Claim(a, "node-a")).claimed()).as("same token again").isTrue();
        assertThat(worker.claim(run.runId(), PartitionId.of("0000"),
                new Claim(b, "node-b")).claimed()).as("another token").isFalse();
        assertThat(worker.heartbeat(run.runId(), PartitionId.of("0000"),
                a).partitionStatus()).isEqualTo(PartitionStatus.RUNNING);
        assertThat(worker.heartbeat(run.runId(), PartitionId.of("0000"),
                new PartitionHeartbeat(a, 12L)).partitionStatus())
                .isEqualTo(PartitionStatus.RUNNING);
        var reading = worker.getRun(run.runId());
        assertThat(reading.partitions().get(0).rowsRead()).isEqualTo(12);
        assertThat(reading.partitions().get(2).rowsRead()).as("not claimed").isNull();
        assertThat(reading.progressRows()).isEqualTo(12);
        assertThat(reading.extractedCount()).isZero();

        var first = worker.reportChunk(run.runId(), PartitionId.of("0000"), chunk(run, a, "0000", 0, 2, 10));
        assertThat(first.recorded()).isTrue();
        assertThat(first.receivedChunks()).isEqualTo(1);
        assertThat(worker.reportChunk(run.runId(), PartitionId.of("0000"),
                chunk(run, a, "0000", 0, 2, 10)).receivedChunks())
                .as("the identical report again is counted once").isEqualTo(1);
        assertThat(worker.reportChunk(run.runId(), PartitionId.of("0000"),
                chunk(run, a, "0000", 1, 2, 20)).partitionStatus())
                .isEqualTo(PartitionStatus.SUCCESS);

        UUID c = UUID.randomUUID();
        assertThat(worker.claim(run.runId(), PartitionId.of("0002"), new Claim(c, "node-c")).claimed()).isTrue();
        var last = worker.reportChunk(run.runId(), PartitionId.of("0002"), chunk(run, c, "0002", 0, 1, 20));
        assertThat(last.runStatus()).isEqualTo(RunStatus.EXTRACTED_VALIDATED);
        assertThat(last.validationScheduled()).isTrue();

        var view = viewer.getRun(run.runId());
        assertThat(view.status()).isEqualTo(RunStatus.EXTRACTED_VALIDATED);
        assertThat(view.snapshotScn()).isEqualTo("98765432109876543210");
        assertThat(view.extractedCount()).isEqualTo(50);
        assertThat(view.partitionCounts()).containsEntry("SUCCESS", 3L);
        assertThat(view.partitions()).extracting(RunApi.PartitionView::fileCount).containsExactly(2L, 0L, 1L);
        assertThat(view.dispatches()).extracting(RunApi.DispatchView::dispatchType)
                .contains(DispatchType.EXTRACT_PARTITION, DispatchType.VALIDATE_RUN);
        var events = viewer.allEvents(run.runId());
        assertThat(events).isNotEmpty();
        assertThat(events).extracting(RunApi.Event::eventId).isSorted();
        assertThat(viewer.events(run.runId(), events.get(0).eventId(), 1)).containsExactly(events.get(1));
    }

    @Test
    void partitionFailureFailsTheRunAndIsRepeatable() {
        var run = worker.createRun(create(job()));
        worker.registerManifest(run.runId(), manifest(10));
        UUID token = UUID.randomUUID();
        worker.claim(run.runId(), PartitionId.of("0000"), new Claim(token, "node"));
        var failure = new PartitionFailure(token, "EXTRACT", "SOURCE", "ORA-00942", "table or view does not exist", 1);

        var failed = worker.failPartition(run.runId(), PartitionId.of("0000"), failure);
        assertThat(failed.changed()).isTrue();
        assertThat(failed.partitionStatus()).isEqualTo(PartitionStatus.FAILED);
        assertThat(failed.runStatus()).isEqualTo(RunStatus.FAILED_EXTRACT);
        assertThat(worker.failPartition(run.runId(), PartitionId.of("0000"),
                failure).changed()).as("the same failure again").isFalse();
    }

    @Test
    void failRunIsACompareAndSetAndRepeatable() {
        var run = worker.createRun(create(job()));
        var fail = new FailRun(RunStatus.CREATED, RunStatus.FAILED_MANIFEST, "PLAN", "SOURCE_GONE", "no table");

        var first = worker.failRun(run.runId(), fail);
        assertThat(first.changed()).isTrue();
        assertThat(first.runStatus()).isEqualTo(RunStatus.FAILED_MANIFEST);
        assertThat(first.runId()).isEqualTo(run.runId());
        assertThat(worker.failRun(run.runId(), fail).changed()).isFalse();
        assertThat(viewer.getRun(run.runId()).errorCode()).isEqualTo("SOURCE_GONE");
    }

    @Test
    void unknownRunIs404RunNotFound() {
        var e = catchThrowableOfType(LedgerCallException.class, () -> viewer.getRun(new RunId(UUID.randomUUID())));

        assertThat(e.status()).isEqualTo(404);
        assertThat(e.code()).isEqualTo("RUN_NOT_FOUND");
        assertThat(e.isNotFound()).isTrue();
        assertThat(e.isClientError()).isTrue();
        assertThat(e.requestId()).isNotBlank();
        assertThat(e.attempts()).as("a 4xx is never retried").isEqualTo(1);
        assertThat(e.getMessage()).startsWith("GET /v1/runs/").contains("404 RUN_NOT_FOUND");
    }

    @Test
    void unknownPartitionIs404PartitionNotFound() {
        var run = worker.createRun(create(job()));
        worker.registerManifest(run.runId(), manifest(10));

        assertThatThrownBy(() -> worker.claim(run.runId(), PartitionId.of("0042"), new Claim(UUID.randomUUID(), "n")))
                .isInstanceOfSatisfying(LedgerCallException.class,
                        e -> assertThat(e.code()).isEqualTo("PARTITION_NOT_FOUND"));
    }

    @Test
    void secondActiveRunIs409WithTheActiveRunId() {
        JobKey job = job();
        var first = worker.createRun(create(job));

        var e = catchThrowableOfType(LedgerCallException.class, () -> worker.createRun(create(job),
                RunApi.OnLostResponse.ADOPT_ACTIVE_RUN));
        assertThat(e.isConflict()).isTrue();
        assertThat(e.code()).isEqualTo("DUPLICATE_ACTIVE_RUN");
        assertThat(e.details()).as("a 409 on the first attempt is never adopted")
                .containsEntry("activeRunId", first.runId().toString());
    }

    @Test
    void aChunkFromAnotherTokenIs409ClaimMismatch() {
        var run = worker.createRun(create(job()));
        worker.registerManifest(run.runId(), manifest(10));
        worker.claim(run.runId(), PartitionId.of("0000"), new Claim(UUID.randomUUID(), "owner"));
        UUID zombie = UUID.randomUUID();

        var e = catchThrowableOfType(LedgerCallException.class,
                () -> worker.reportChunk(run.runId(), PartitionId.of("0000"), chunk(run, zombie, "0000", 0, 1, 10)));
        assertThat(e.code()).isEqualTo("CLAIM_MISMATCH");
        assertThat(e.isConflict()).isTrue();
    }

    @Test
    void invalidRequestIs422WithTheFieldErrors() {
        // A job key such as "lower case" can no longer be sent (JobKey refuses it); the prefix is the ledger's to check.
        var e = catchThrowableOfType(LedgerCallException.class, () -> worker.createRun(
                new CreateRun(job(), BusinessKey.of("K"), TestLedger.STAGE_ROOT, "lower case", false, Map.of(), Executor.HTTP, null)));

        assertThat(e.status()).isEqualTo(422);
        assertThat(e.code()).isEqualTo("REQUEST_INVALID");
        assertThat(e.isInvalid()).isTrue();
        assertThat(e.details().get("errors").toString()).contains("stageTablePrefix");
    }

    @Test
    void hdfsRootOutsideTheAllowedRootsIs422() {
        var e = catchThrowableOfType(LedgerCallException.class, () -> worker.createRun(
                CreateRun.forWorkers(job(), BusinessKey.of("K"), "/etc", "stg_")));
        assertThat(e.code()).isEqualTo("INVALID_HDFS_ROOT");
    }

    @Test
    void brokenManifestIs422WithEveryViolation() {
        var run = worker.createRun(create(job()));
        var good = manifest(10, 20);
        var bad = new Manifest(good.snapshotScn(), null, 999, 0, good.sourceMinSplit(), good.sourceMaxSplit(), 5,
                good.sourceMetrics(), "v1", good.partitions());

        var e = catchThrowableOfType(LedgerCallException.class, () -> worker.registerManifest(run.runId(), bad));
        assertThat(e.code()).isEqualTo("MANIFEST_INVALID");
        assertThat(e.details().get("violations").toString())
                .contains("PARTITION_COUNT_MISMATCH", "EXPECTED_SUM_MISMATCH");
        assertThat(viewer.getRun(run.runId()).status()).isEqualTo(RunStatus.FAILED_MANIFEST);
    }

    @Test
    void disallowedFailPairIs422() {
        var run = worker.createRun(create(job()));
        var e = catchThrowableOfType(LedgerCallException.class, () -> worker.failRun(run.runId(),
                new FailRun(RunStatus.CREATED, RunStatus.FAILED_EXTRACT, null, null, null)));
        assertThat(e.code()).isEqualTo("FAIL_TRANSITION_NOT_ALLOWED");
    }

    @Test
    void wrongTokenIs401AndWrongRoleIs403() {
        var stranger = client("lg_not-a-token");
        assertThatThrownBy(() -> stranger.listRuns(RunFilter.all())).isInstanceOfSatisfying(LedgerCallException.class,
                e -> assertThat(e.isUnauthenticated()).as(e.getMessage()).isTrue());
        assertThatThrownBy(() -> viewer.createRun(create(job()))).isInstanceOfSatisfying(LedgerCallException.class,
                e -> assertThat(e.isForbidden()).as(e.getMessage()).isTrue());
    }

    @Test
    void historyCountsAJobsFinishedRunsByBucketAndRefusesAFromOutOfReach() {
        JobKey job = job();
        var run = worker.createRun(create(job));
        worker.failRun(run.runId(), new FailRun(RunStatus.CREATED, RunStatus.FAILED_MANIFEST, "MANIFEST",
                "SOURCE_UNREADABLE", "no source"));

        MonitorHistory hours = viewer.monitorHistory(job, null, MonitorHistory.Bucket.HOUR);
        assertThat(hours.bucket()).isEqualTo(MonitorHistory.Bucket.HOUR);
        assertThat(Duration.between(hours.from(), hours.to())).as("the default reach").isEqualTo(Duration.ofHours(24));
        assertThat(hours.rows()).singleElement().satisfies(row -> {
            assertThat(row.jobKey()).isEqualTo(job);
            assertThat(row.runsByOutcome()).containsExactly(Map.entry(RunStatus.FAILED_MANIFEST, 1L));
        });
        Instant from = Instant.now().minus(Duration.ofDays(3));
        MonitorHistory days = viewer.monitorHistory(job, from, MonitorHistory.Bucket.DAY);
        assertThat(days.from()).as("sent as an ISO instant").isEqualTo(from);
        assertThat(days.rows()).hasSize(1);
        assertThat(viewer.monitorHistory(JobKey.of("NO_SUCH_" + job), null, MonitorHistory.Bucket.DAY).rows()).isEmpty();

        var e = catchThrowableOfType(LedgerCallException.class, () -> viewer.monitorHistory(job,
                Instant.now().minus(Duration.ofDays(40)), MonitorHistory.Bucket.HOUR));
        assertThat(e.status()).isEqualTo(422);
        assertThat(e.code()).isEqualTo("REQUEST_INVALID");
        assertThat(e.details().get("errors").toString()).contains("from");
    }
}

package io.loadgate.worker.target;

import static io.loadgate.worker.testing.StagedRuns.orders;
import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.api.OperatorApi.PublishProbe;
import io.loadgate.api.RunStatus;
import io.loadgate.api.StepApi.PublishClaim;
import io.loadgate.server.testing.TestLedger;
import io.loadgate.worker.execution.TargetCatalogs;
import io.loadgate.worker.job.JobSpecLoader;
import io.loadgate.worker.ledger.HttpLedgerClient;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.publish.ProbeResult;
import io.loadgate.worker.publish.PublishFence;
import io.loadgate.worker.publish.PublishOutcome;
import io.loadgate.worker.publish.StagedFile;
import io.loadgate.worker.testing.Lakehouses;
import io.loadgate.worker.testing.StagedRuns;
import io.loadgate.worker.testing.StagedRuns.Run;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 8's incident replayed against a real ledger and Iceberg table: run A's publisher claims and is paused
 * before it commits; publish_stale passes, the probe finds no token and the ledger settles A as FAILED_PUBLISH; run B
 * of the same key loads and succeeds; then A's publisher resumes. The table must keep B's rows.
 */
class PublishFenceEndToEndTest {
    private static final LocalDate DAY = LocalDate.of(2026, 11, 29);
    private static final String TABLE = "lake.orders";

    @TempDir
    Path stage;
    @TempDir
    Path warehouse;

    private TestLedger ledger;
    private LedgerClient client;
    private StagedRuns runs;
    private TargetCatalogs catalogs;

    @BeforeEach
    void start() {
        ledger = StagedRuns.ledger(stage);
        client = HttpLedgerClient.create(StagedRuns.workerClient(ledger).build());
        runs = new StagedRuns(ledger, client, stage, Lakehouses.jdbcCatalog(warehouse));
        catalogs = new TargetCatalogs(Optional.empty(), warehouse);
    }

    @AfterEach
    void stop() {
        catalogs.close();
        runs.close();
        ledger.close();
    }

    @Test
    void aZombiePublisherOfASettledRunCannotOverwriteTheNewerRunsRows() throws Exception {
        Target target = new Targets(catalogs, Map.of(), new org.apache.hadoop.conf.Configuration()).forJob(
                JobSpecLoader.parse(Path.of("orders.yaml"), runs.jobYaml("ORDERS", TABLE, runs.catalogProperties())));
        List<Record> stale = orders(DAY, 1, 150);
        List<Record> fresh = orders(DAY, 1, 140);

        Run a = runs.create("ORDERS", DAY, TABLE);
        runs.stageValidated(a, List.of(runs.write(a, "part-0000-chunk-000000-a1-aaaaaaaa.parquet", stale)));
        CountDownLatch resume = new CountDownLatch(1);
        CountDownLatch claimed = new CountDownLatch(1);
        UUID tokenA = UUID.randomUUID();
        CompletableFuture<PublishOutcome> zombie = CompletableFuture.supplyAsync(() -> {
            Instant sentAt = Instant.now();
            PublishClaim claim = client.publishClaim(a.runId(), tokenA);
            PublishFence fence = new PublishFence(claim.publishGeneration(),
                    sentAt.plusMillis(claim.publishWithinMs()));
            List<StagedFile> files = client.files(a.runId()).stream()
                    .map(f -> new StagedFile(f.hdfsPath(), f.recordCount(), f.byteCount())).toList();
            claimed.countDown();
            // The SIGSTOP: the publisher holds its claim and its files, and does nothing until resumed.
            await(resume);
            return target.publish(new Publication(a.runId().toString(), DAY.toString(), tokenA, fence, files,
                    () -> StagedRuns.ORDERS));
        });
        await(claimed);

        // publish_stale passes: the sweeper's rule 5 turns A PUBLISH_UNKNOWN, and the probe settles it.
        ledger.execute("UPDATE load_run SET status = 'PUBLISH_UNKNOWN', publish_started_at = now() - interval '3 hours'"
                + " WHERE run_id = '" + a.runId() + "'");
        ProbeResult probe = target.probe(a.runId().toString(), tokenA);
        assertThat(probe.status()).isEqualTo(ProbeResult.Status.NOT_FOUND);
        assertThat(client.probePublishUnknown(a.runId(), new PublishProbe(tokenA, false, null, false, Map.of()))
                .runStatus()).as("the attempt is over").isEqualTo(RunStatus.FAILED_PUBLISH);

        Run b = runs.create("ORDERS", DAY, TABLE);
        runs.stageValidated(b, List.of(runs.write(b, "part-0000-chunk-000000-a1-bbbbbbbb.parquet", fresh)));
        runs.publish(b);
        assertThat(runs.validateTarget(b, fresh.size(), fresh.size())).isEqualTo(RunStatus.SUCCESS);

        resume.countDown();
        PublishOutcome resumed = zombie.get(60, TimeUnit.SECONDS);

        assertThat(resumed.status()).as("outcome %s", resumed).isEqualTo(PublishOutcome.Status.FAILED_PUBLISH);
        assertThat(resumed.errorCode()).isEqualTo(PublishOutcome.ErrorCode.PUBLISH_FENCED);
        assertThat(runs.rows(TABLE)).as("the table keeps run B's rows").containsExactlyInAnyOrderElementsOf(fresh);
        assertThat(client.getRun(a.runId()).status()).isEqualTo(RunStatus.FAILED_PUBLISH);
        assertThat(client.getRun(b.runId()).status()).isEqualTo(RunStatus.SUCCESS);
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(60, TimeUnit.SECONDS)).as("latch").isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}

package io.loadgate.worker.target.hive;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.api.RunStatus;
import io.loadgate.api.StepApi.PublishResult;
import io.loadgate.ledger.LedgerSettings;
import io.loadgate.ledger.run.StagePath;
import io.loadgate.server.testing.TestLedger;
import io.loadgate.worker.cleanup.Cleaner;
import io.loadgate.worker.cleanup.CleanupMode;
import io.loadgate.worker.cleanup.RunCleanup;
import io.loadgate.worker.execution.RunContexts;
import io.loadgate.worker.execution.TargetCatalogs;
import io.loadgate.worker.job.JobSpecLoader;
import io.loadgate.worker.ledger.HttpLedgerClient;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.ledger.LedgerClientConfig;
import io.loadgate.worker.ledger.LedgerToken;
import io.loadgate.worker.publish.CatalogConfig;
import io.loadgate.worker.publish.PublishFence;
import io.loadgate.worker.publish.PublishOutcome;
import io.loadgate.worker.publish.StagedFile;
import io.loadgate.worker.target.Publication;
import io.loadgate.worker.target.Target;
import io.loadgate.worker.target.Targets;
import io.loadgate.worker.testing.StagedRuns;
import io.loadgate.worker.testing.StagedRuns.Chunk;
import io.loadgate.worker.testing.StagedRuns.Run;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cleanup of a run published into a Hive table, through the ledger over HTTP, on a local staging disk (where the
 * publish directory is hard links): the zombie's chunk and the staged names go, the files the partition points at stay.
 */
class HiveCleanupTest {
    private static final LocalDate DAY = LocalDate.of(2026, 11, 30);

    @TempDir
    Path stage;

    @Test
    void cleanupKeepsEveryFileThePartitionPointsAtAndDeletesTheRest() throws Exception {
        HiveMetastoreFixture fixture = HiveMetastoreFixture.shared();
        try (TestLedger ledger = new TestLedger(new LedgerSettings(List.of(StagePath.parse(stage.toUri().toString())),
                LedgerSettings.RecoveryMode.FAIL, 3));
             StagedRuns runs = new StagedRuns(ledger, client(ledger), stage, CatalogConfig.hadoop(stage.resolve("unused")));
             TargetCatalogs catalogs = new TargetCatalogs(Optional.empty(), stage.resolve("unused"))) {
            LedgerClient client = client(ledger);
            String yaml = """
                    job_key: HIVE_CLEANUP
                    source: {jdbc_url: "jdbc:postgresql://127.0.0.1:5432/unused", query: "SELECT 1", split_column: id}
                    target:
                      table: loader.cleanup_orders
                      business_key_column: order_date
                      hive: {metastore_uri: "%s"}
                    staging: {root: "%s"}
                    """.formatted(fixture.metastoreUri, stage.toUri());
            Run run = runs.createWithJob("HIVE_CLEANUP", DAY, "loader.cleanup_orders", yaml);
            List<Chunk> chunks = List.of(
                    runs.write(run, "part-0000-chunk-000000-a2-aaaaaaaa.parquet", StagedRuns.orders(DAY, 0, 100)),
                    runs.write(run, "part-0000-chunk-000001-a2-aaaaaaaa.parquet", StagedRuns.orders(DAY, 100, 50)));
            Chunk zombie = runs.write(run, "part-0000-chunk-000000-a1-deadbeef.parquet", StagedRuns.orders(DAY, 0, 100));
            runs.stageValidated(run, chunks);

            Target target = new Targets(catalogs, Map.of(), fixture.hadoop).forJob(
                    JobSpecLoader.parse(Path.of("job.yaml"), yaml));
            UUID token = UUID.randomUUID();
            var claim = client.publishClaim(run.runId(), token);
            List<StagedFile> files = client.files(run.runId()).stream()
                    .map(f -> new StagedFile(f.hdfsPath(), f.recordCount(), f.byteCount())).toList();
            PublishOutcome outcome = target.publish(new Publication(run.runId().toString(), DAY.toString(), token,
                    new PublishFence(claim.publishGeneration(), Instant.now().plusMillis(claim.publishWithinMs())),
                    files, () -> StagedRuns.ORDERS));
            assertThat(outcome.status()).as(outcome.message()).isEqualTo(PublishOutcome.Status.PUBLISHED);
            client.publishResult(run.runId(), new PublishResult(token, io.loadgate.api.StepApi.PublishOutcome.PUBLISHED,
                    null, null, outcome.targetRef()));
            assertThat(runs.validateTarget(run, 150, 150)).isEqualTo(RunStatus.SUCCESS);
            Path published = run.directory().resolve("hive-g" + claim.publishGeneration());
            List<Path> links = list(published);
            assertThat(links).hasSize(2);
            runs.makeDue(run);

            List<RunCleanup> reports = new Cleaner(client, new RunContexts(client), catalogs, fixture.hadoop)
                    .clean(CleanupMode.DELETE);

            assertThat(reports).hasSize(1);
            RunCleanup report = reports.get(0);
            assertThat(report.outcome()).as("report %s", report).isEqualTo(RunCleanup.Outcome.CLEANED);
            assertThat(Files.exists(zombie.file())).as("the zombie's chunk is gone").isFalse();
            assertThat(chunks).as("the staged names are gone: the partition points at its own links")
                    .allSatisfy(chunk -> assertThat(Files.exists(chunk.file())).isFalse());
            assertThat(list(published)).as("the directory the partition points at, whole")
                    .containsExactlyInAnyOrderElementsOf(links);
            assertThat(target.reading(DAY.toString(), io.loadgate.worker.job.ValidationSpec.COUNT_ONLY,
                    () -> StagedRuns.ORDERS).get().get("COUNT")).isEqualTo("150");
        }
    }

    private static LedgerClient client(TestLedger ledger) {
        return HttpLedgerClient.create(LedgerClientConfig.builder(ledger.baseUrl(),
                LedgerToken.of(ledger.workerToken)).build());
    }

    private static List<Path> list(Path directory) throws java.io.IOException {
        try (Stream<Path> files = Files.list(directory)) {
            return files.toList();
        }
    }
}

package io.loadgate.cli;

import static io.loadgate.worker.testing.StagedRuns.orders;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.loadgate.ledger.LedgerSettings;
import io.loadgate.ledger.run.StagePath;
import io.loadgate.ledger.testing.TestDatabases;
import io.loadgate.server.testing.TestLedger;
import io.loadgate.worker.ledger.HttpLedgerClient;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.ledger.LedgerClientConfig;
import io.loadgate.worker.ledger.LedgerToken;
import io.loadgate.worker.publish.CatalogConfig;
import io.loadgate.worker.testing.StagedRuns;
import io.loadgate.worker.testing.StagedRuns.Chunk;
import io.loadgate.worker.testing.StagedRuns.Run;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code loadgate cleanup} through {@link Main#run} against a real ledger, real files and a real Iceberg table. */
class CleanupCommandTest {
    private static final LocalDate DAY_1 = LocalDate.of(2026, 11, 28);
    private static final LocalDate DAY_2 = LocalDate.of(2026, 11, 29);
    private static final String TABLE = "lake.orders";

    @TempDir
    Path stage;
    @TempDir
    Path warehouse;
    @TempDir
    Path dir;

    private TestLedger ledger;
    private StagedRuns runs;
    private Path tokens;

    @BeforeEach
    void start() throws IOException {
        ledger = new TestLedger(new LedgerSettings(List.of(StagePath.parse(stage.toUri().toString())),
                LedgerSettings.RecoveryMode.FAIL, 3));
        LedgerClient client = HttpLedgerClient.create(LedgerClientConfig.builder(ledger.baseUrl(),
                LedgerToken.of(ledger.workerToken)).build());
        var lakehouse = TestDatabases.create();
        runs = new StagedRuns(ledger, client, stage, CatalogConfig.jdbc(lakehouse.jdbcUrl(), lakehouse.user(),
                lakehouse.password(), warehouse));
        tokens = Files.writeString(dir.resolve("tokens"), "worker=" + ledger.workerToken + "\n");
    }

    @AfterEach
    void stop() {
        runs.close();
        ledger.close();
    }

    private OperatorCommandsTest.Result cleanup(String... args) {
        List<String> all = new ArrayList<>(List.of("cleanup"));
        all.addAll(Arrays.asList(args));
        return OperatorCommandsTest.runOn(ledger, tokens, all.toArray(String[]::new));
    }

    @Test
    void aDryRunListsWhatWouldGoThenCleanupDeletesItAndTheTableStillReadsEveryRow() throws IOException {
        Run succeeded = runs.succeeded("ORDERS", DAY_1, TABLE, List.of(orders(DAY_1, 1, 20), orders(DAY_1, 21, 5)));
        Chunk zombie = runs.write(succeeded, "part-0000-chunk-000000-a1-deadbeef.parquet", orders(DAY_1, 1, 20));
        Run failed = runs.failedExtract("ORDERS", DAY_2, TABLE, orders(DAY_2, 1, 5), orders(DAY_2, 6, 5));
        runs.makeDue(succeeded);
        runs.makeDue(failed);

        var dry = cleanup("--dry-run");

        assertThat(dry.exit()).as(dry.toString()).isZero();
        List<String> lines = dry.out().lines().toList();
        assertThat(lines.get(0)).startsWith("RUN_ID").contains("JOB", "STATUS", "OUTCOME", "KEPT", "DELETED", "BYTES");
        assertThat(lines).filteredOn(l -> l.contains("DRY_RUN")).hasSize(2);
        assertThat(dry.out()).contains("Would delete 3 file(s)", "would keep 2 file(s)",
                zombie.file().getFileName().toString());
        assertThat(zombie.file()).as("a dry run deletes nothing").exists();
        assertThat(failed.directory()).exists();

        var done = cleanup();

        assertThat(done.exit()).as(done.toString()).isZero();
        assertThat(done.out().lines().filter(l -> l.contains("CLEANED"))).hasSize(2);
        assertThat(done.out()).contains("Deleted 3 file(s)", "kept 2 file(s)");
        assertThat(done.err()).isEmpty();
        assertThat(zombie.file()).doesNotExist();
        assertThat(failed.directory()).doesNotExist();
        assertThat(runs.rows(TABLE)).hasSize(25);

        var again = cleanup();
        assertThat(again.exit()).as(again.toString()).isZero();
        assertThat(again.out()).contains("No runs are due for cleanup.");
    }

    @Test
    void aReplayedRunsFilesGoOnceItsSnapshotIsPastTheGivenRetention() throws IOException {
        Run replaced = runs.succeeded("ORDERS", DAY_1, TABLE, List.of(orders(DAY_1, 1, 20)));
        Run replay = runs.succeeded("ORDERS", DAY_1, TABLE, List.of(orders(DAY_1, 1, 30)));
        runs.makeDue(replaced);

        assertThat(cleanup("--snapshots-kept", "0").exit()).as("a usage error").isEqualTo(2);
        assertThat(cleanup("--snapshot-retention", "soon").exit()).as("a usage error").isEqualTo(2);
        assertThat(replaced.directory()).as("a usage error cleans nothing").isDirectory();

        var done = cleanup("--snapshot-retention", "0s", "--snapshots-kept", "1");

        assertThat(done.exit()).as(done.toString()).isZero();
        assertThat(replaced.directory()).as("its only snapshot expired: its files went").doesNotExist();
        assertThat(replay.directory()).isDirectory();
        assertThat(runs.rows(TABLE)).hasSize(30);
    }

    /** A run cleaned while its files were live keeps them then; once its key is replaced, they go too. */
    @Test
    void aRunCleanedBeforeItWasReplacedIsOfferedAgainAndItsFilesGo() throws IOException {
        Run first = runs.succeeded("ORDERS", DAY_1, TABLE, List.of(orders(DAY_1, 1, 20)));
        runs.makeDue(first);
        var kept = cleanup("--snapshot-retention", "0s", "--snapshots-kept", "1");
        assertThat(kept.exit()).as(kept.toString()).isZero();
        assertThat(kept.out()).contains("kept 1 file(s)");
        assertThat(first.directory()).as("the table's current snapshot holds its file").isDirectory();
        assertThat(ledger.count("SELECT cleanup_kept_files FROM loadgate.load_run WHERE run_id = '"
                + first.runId() + "'")).isEqualTo(1);

        Run replay = runs.succeeded("ORDERS", DAY_1, TABLE, List.of(orders(DAY_1, 1, 30)));
        var early = cleanup("--snapshot-retention", "0s", "--snapshots-kept", "1");
        assertThat(early.out()).as("the replacement is within retention: not offered yet")
                .contains("No runs are due for cleanup.");

        // Both the replacement and the first cleanup are past the success retention now.
        runs.makeDue(replay);
        ledger.execute("UPDATE loadgate.load_run SET cleaned_at = now() - interval '30 days' WHERE run_id = '"
                + first.runId() + "'");
        ledger.execute("UPDATE loadgate.load_run SET cleaned_at = now() WHERE run_id = '" + replay.runId() + "'");
        var freed = cleanup("--snapshot-retention", "0s", "--snapshots-kept", "1");
        assertThat(freed.exit()).as(freed.toString()).isZero();
        assertThat(first.directory()).as("offered again, its file went with its snapshot").doesNotExist();
        assertThat(replay.directory()).isDirectory();
        assertThat(runs.rows(TABLE)).hasSize(30);
        assertThat(ledger.count("SELECT cleanup_kept_files FROM loadgate.load_run WHERE run_id = '"
                + first.runId() + "'")).isZero();

        var after = cleanup();
        assertThat(after.out()).as("nothing kept: never offered again").contains("No runs are due for cleanup.");
    }

    @Test
    void jsonReportsEachRunForScripts() throws IOException {
        Run failed = runs.failedExtract("ORDERS", DAY_1, TABLE, orders(DAY_1, 1, 5), orders(DAY_1, 6, 5));
        runs.makeDue(failed);

        var result = cleanup("--json", "--dry-run");

        assertThat(result.exit()).as(result.toString()).isZero();
        JsonNode reports = HttpLedgerClient.JSON.readTree(result.out());
        assertThat(reports).hasSize(1);
        JsonNode report = reports.get(0);
        assertThat(report.get("runId").asText()).isEqualTo(failed.runId().toString());
        assertThat(report.get("status").asText()).isEqualTo("FAILED_EXTRACT");
        assertThat(report.get("outcome").asText()).isEqualTo("DRY_RUN");
        assertThat(report.get("deleted")).hasSize(2);
        assertThat(report.get("deletedBytes").asLong()).isPositive();
    }

    @Test
    void aSkippedRunExitsOneWithOneLineAndKeepsItsFiles() throws IOException {
        Map<String, String> unreachable = new HashMap<>(runs.catalogProperties());
        unreachable.put("uri", "jdbc:postgresql://127.0.0.1:" + OperatorCommandsTest.closedPort() + "/lakehouse");
        Run run = runs.create("ORDERS", DAY_1, TABLE, unreachable);
        Chunk chunk = runs.write(run, "part-0000-chunk-000000-a1-aaaaaaaa.parquet", orders(DAY_1, 1, 5));
        runs.failManifest(run);
        runs.makeDue(run);

        var result = cleanup();

        assertThat(result.exit()).as(result.toString()).isEqualTo(1);
        assertThat(result.errLines()).singleElement().asString()
                .startsWith("loadgate: 1 of 1 run(s) not cleaned; run " + run.runId() + " SKIPPED: cannot open the catalog");
        assertThat(result.out()).contains("SKIPPED");
        assertThat(chunk.file()).exists();
    }

    @Test
    void anUnreachableLedgerIsOneLineAndExitThree() throws IOException {
        var result = OperatorCommandsTest.run("cleanup", "--ledger",
                "http://127.0.0.1:" + OperatorCommandsTest.closedPort(), "--token-file", tokens.toString());

        assertThat(result.exit()).as(result.toString()).isEqualTo(3);
        assertThat(result.errLines()).singleElement().asString().startsWith("loadgate: ").contains("--ledger");
    }

    @Test
    void aCatalogWithoutLedgerIsBadInput() {
        var result = OperatorCommandsTest.run("cleanup", "--catalog", "type=jdbc");

        assertThat(result.exit()).as(result.toString()).isEqualTo(2);
        assertThat(result.errLines()).singleElement().asString().contains("--catalog and --warehouse need --ledger");
    }
}

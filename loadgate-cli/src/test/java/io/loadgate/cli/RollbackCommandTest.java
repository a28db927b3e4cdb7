package io.loadgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.apache.iceberg.Snapshot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code loadgate rollback}: one key's partition out in one commit, recorded on its run; nothing else touched. */
@Timeout(180)
class RollbackCommandTest {
    @TempDir
    static Path dir;
    private static JobFixture fixture;

    @BeforeAll
    static void start() throws Exception {
        fixture = new JobFixture(dir);
    }

    @AfterAll
    static void stop() {
        fixture.close();
    }

    private static OperatorCommandsTest.Result rollback(Path job, String key, String... more) {
        String[] args = java.util.stream.Stream.concat(java.util.stream.Stream.of("rollback", job.toString(),
                "--business-key", key, "--reason", "source resent the day"), java.util.Arrays.stream(more))
                .toArray(String[]::new);
        return fixture.run(args);
    }

    private static String successfulRun(String jobKey, String key) {
        JsonNode runs = fixture.ledger.get("/v1/runs?jobKey=" + jobKey + "&businessKey=" + key + "&status=SUCCESS").body();
        assertThat(runs).hasSize(1);
        return runs.get(0).get("runId").asText();
    }

    @Test
    void aWarehouseTableIsSetUpLoadedAndRolledBackByKey() throws Exception {
        Path job = fixture.warehouseJob("ROLLBACK_DW", "sales");
        var setup = OperatorCommandsTest.run("setup", job.toString());
        assertThat(setup.exit()).as(setup.toString()).isZero();
        assertThat(setup.out()).contains("dw.sales: created");
        assertThat(OperatorCommandsTest.run("setup", job.toString()).out()).contains("changed nothing");
        var loaded = fixture.run("replay", job.toString(), "--business-key", "2026-11-27", "--business-key",
                "2026-11-28");
        assertThat(loaded.exit()).as(loaded.toString()).isZero();
        assertThat(fixture.warehouseRowsByDay("sales")).isEqualTo(Map.of("2026-11-27", 1000L, "2026-11-28", 1500L));
        String runId = successfulRun("ROLLBACK_DW", "2026-11-28");

        var dry = rollback(job, "2026-11-28");
        assertThat(dry.out()).contains("Would remove 1,500 rows of business key 2026-11-28 from warehouse table dw.sales");
        assertThat(fixture.warehouseRowsByDay("sales")).hasSize(2);
        var done = rollback(job, "2026-11-28", "--yes");

        assertThat(done.exit()).as(done.toString()).isZero();
        assertThat(done.out()).contains("Removed 1,500 rows", "in transaction", "ROLLED_BACK on run " + runId);
        assertThat(fixture.warehouseRowsByDay("sales")).isEqualTo(Map.of("2026-11-27", 1000L));
        assertThat(fixture.ledger.get("/v1/runs/" + runId + "/events").body().toString()).contains("ROLLED_BACK");
        assertThat(rollback(job, "2026-11-28", "--yes").out()).contains("has no rows in dw.sales; nothing to roll back");
    }

    @Test
    void aDryRunChangesNothingAndYesRemovesExactlyThatKey() throws Exception {
        Path job = fixture.job("ROLLBACK_OK", "rollback_ok");
        var loaded = fixture.run("replay", job.toString(), "--business-key", "2026-11-27", "--business-key",
                "2026-11-28");
        assertThat(loaded.exit()).as(loaded.toString()).isZero();
        long before = fixture.table("rollback_ok").currentSnapshot().snapshotId();
        String runId = successfulRun("ROLLBACK_OK", "2026-11-28");

        var dry = rollback(job, "2026-11-28");
        assertThat(dry.exit()).as(dry.toString()).isZero();
        assertThat(dry.out()).contains("Would remove", "1,500 rows of business key 2026-11-28", runId, "--yes");
        assertThat(fixture.table("rollback_ok").currentSnapshot().snapshotId()).isEqualTo(before);
        assertThat(fixture.ledger.get("/v1/runs/" + runId + "/events").body().toString()).doesNotContain("ROLLED_BACK");

        var done = rollback(job, "2026-11-28", "--yes");
        assertThat(done.exit()).as(done.toString()).isZero();
        assertThat(done.out()).contains("Removed", "1,500 rows", "ROLLED_BACK on run " + runId);
        assertThat(fixture.rowsByDay("rollback_ok")).isEqualTo(Map.of("2026-11-27", 1000L));

        Snapshot snapshot = fixture.table("rollback_ok").currentSnapshot();
        assertThat(snapshot.parentId()).as("one commit").isEqualTo(before);
        assertThat(snapshot.summary()).containsEntry("loadgate.rollback", "true")
                .containsEntry("loadgate.business-key", "2026-11-28")
                .containsEntry("loadgate.job-key", "ROLLBACK_OK")
                .containsEntry("loadgate.reason", "source resent the day")
                .containsEntry("loadgate.rolled-back-run-id", runId);
        JsonNode event = StreamSupport.stream(fixture.ledger.get("/v1/runs/" + runId + "/events").body().spliterator(),
                false).filter(e -> e.get("eventType").asText().equals("ROLLED_BACK")).findFirst().orElseThrow();
        assertThat(event.at("/details/targetRef").asText()).isEqualTo(String.valueOf(snapshot.snapshotId()));
        assertThat(event.at("/details/reason").asText()).isEqualTo("source resent the day");
        assertThat(fixture.ledger.get("/v1/runs/" + runId).text("status")).isEqualTo("SUCCESS");

        var nothing = rollback(job, "2026-11-28", "--yes");
        assertThat(nothing.exit()).as(nothing.toString()).isZero();
        assertThat(nothing.out()).contains("has no rows", "nothing to roll back");
        assertThat(fixture.table("rollback_ok").currentSnapshot().snapshotId()).isEqualTo(snapshot.snapshotId());

        // The key loads again after a rollback, and the other key was never touched.
        var reload = fixture.run("load", job.toString(), "--business-key", "2026-11-28");
        assertThat(reload.exit()).as(reload.toString()).isZero();
        assertThat(fixture.rowsByDay("rollback_ok")).isEqualTo(Map.of("2026-11-27", 1000L, "2026-11-28", 1500L));
    }

    @Test
    void anActiveRunForTheKeyRefusesTheRollback() throws Exception {
        Path job = fixture.job("ROLLBACK_BUSY", "rollback_busy");
        var loaded = fixture.run("load", job.toString(), "--business-key", "2026-11-29");
        assertThat(loaded.exit()).as(loaded.toString()).isZero();
        long before = fixture.table("rollback_busy").currentSnapshot().snapshotId();
        fixture.activeRun("ROLLBACK_BUSY", "2026-11-29");

        var refused = rollback(job, "2026-11-29", "--yes");
        assertThat(refused.exit()).as(refused.toString()).isEqualTo(RunOutcome.ACTIVE_RUN_EXISTS);
        assertThat(refused.errLines()).hasSize(1);
        assertThat(refused.err()).contains("active run", "CREATED");
        var sameDayNoDashes = rollback(job, "20261129", "--yes");
        assertThat(sameDayNoDashes.exit()).as(sameDayNoDashes.toString()).isEqualTo(RunOutcome.ACTIVE_RUN_EXISTS);
        assertThat(fixture.table("rollback_busy").currentSnapshot().snapshotId()).isEqualTo(before);
        assertThat(fixture.rowsByDay("rollback_busy")).isEqualTo(Map.of("2026-11-29", 2000L));
    }

    @Test
    void badInputAndMissingThingsSayOneLine() throws Exception {
        Path job = fixture.job("ROLLBACK_INPUT", "rollback_input");
        var shortReason = fixture.run("rollback", job.toString(), "--business-key", "2026-11-27", "--reason", "bad",
                "--yes");
        assertThat(shortReason.exit()).isEqualTo(2);
        assertThat(shortReason.err()).contains("--reason");
        var badKey = rollback(job, "not a key");
        assertThat(badKey.exit()).isEqualTo(2);
        assertThat(badKey.errLines()).hasSize(1);

        var noTable = rollback(job, "2026-11-27", "--yes");
        assertThat(noTable.exit()).as(noTable.toString()).isZero();
        assertThat(noTable.out()).contains("does not exist; nothing to roll back");

        Path workerTokens = java.nio.file.Files.writeString(dir.resolve("worker-only"),
                "worker=" + fixture.ledger.workerToken + "\n");
        var workerOnly = OperatorCommandsTest.run("rollback", job.toString(), "--business-key", "2026-11-27",
                "--reason", "source resent the day", "--ledger", fixture.ledger.baseUrl(), "--token-file",
                workerTokens.toString());
        assertThat(workerOnly.exit()).as(workerOnly.toString()).isEqualTo(2);
        assertThat(workerOnly.err()).contains("no operator token");
    }
}

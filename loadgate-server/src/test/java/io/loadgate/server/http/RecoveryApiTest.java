package io.loadgate.server.http;

import static io.loadgate.server.testing.Runs.chunk;
import static io.loadgate.server.testing.Runs.claim;
import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.ledger.LedgerSettings;
import io.loadgate.ledger.dispatch.DispatchPolicy;
import io.loadgate.ledger.run.StagePath;
import io.loadgate.ledger.sweeper.Sweep;
import io.loadgate.ledger.sweeper.SweepReport;
import io.loadgate.ledger.sweeper.SweepThresholds;
import io.loadgate.server.testing.Runs;
import io.loadgate.server.testing.TestLedger;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Steps whose answer was lost or whose worker died: a repeated validation start, a validation given again when its
 * caller stops beating, a probe dispatched for a publish that never reported, and the heartbeat interval the ledger
 * tells its workers. Real HTTP on a real database; rows are made old in SQL, never with a fake clock.
 */
class RecoveryApiTest {
    private static final SweepThresholds THRESHOLDS = new SweepThresholds(Duration.ofMinutes(90), Duration.ofHours(6),
            Duration.ofHours(1), Duration.ofHours(2), Duration.ofHours(2), new DispatchPolicy(20, Duration.ofSeconds(5),
            Duration.ofMinutes(5), Duration.ofMinutes(10), Duration.ofSeconds(60)), 500);
    @RegisterExtension
    static final TestLedger ledger = new TestLedger(new LedgerSettings(List.of(StagePath.parse(TestLedger.STAGE_ROOT)),
            LedgerSettings.RecoveryMode.FAIL, 3, Duration.ofHours(2),
            new LedgerSettings.Retention(Duration.ofDays(3), Duration.ofDays(14), 200), Duration.ofSeconds(7)));
    private static final Sweep sweep = new Sweep(ledger.ledger.database(), ledger.ledger.settings());
    private static int jobs;

    /** A run of {@code executor} whose single partition of 30 rows is extracted: EXTRACTED_VALIDATED. */
    private static String extracted(String executor) {
        Map<String, Object> create = new LinkedHashMap<>(Runs.create("RECOVERY_" + (++jobs), "2026-11-29"));
        create.put("executor", executor);
        String runId = ledger.post("/v1/runs", create).text("runId");
        Runs.remember(ledger, runId);
        assertThat(ledger.post("/v1/runs/" + runId + "/manifest", Runs.manifest(30)).status()).isEqualTo(200);
        UUID token = UUID.randomUUID();
        var claimed = ledger.post("/v1/runs/" + runId + "/partitions/0000/claim", claim(token));
        assertThat(claimed.body().get("claimed").asBoolean()).as(claimed.toString()).isTrue();
        var last = ledger.post("/v1/runs/" + runId + "/partitions/0000/chunks", chunk(runId, token, "0000", 0, 1, 30));
        assertThat(last.text("runStatus")).as(last.toString()).isEqualTo("EXTRACTED_VALIDATED");
        return runId;
    }

    private static String validateRun(String runId) {
        return Runs.dispatchOf(ledger, runId, "VALIDATE_RUN");
    }

    private static TestLedger.Response start(String runId, String dispatchId, String node) {
        var response = ledger.post("/v1/runs/" + runId + "/validation/start",
                Map.of("dispatchId", dispatchId, "node", node));
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        return response;
    }

    private static String status(String runId) {
        return ledger.get("/v1/runs/" + runId).text("status");
    }

    private static void ageValidation(String runId) {
        ledger.execute("UPDATE load_run SET validation_heartbeat_at = now() - interval '3 hours', "
                + "status_changed_at = now() - interval '3 hours' WHERE run_id = '" + runId + "'");
    }

    @Test
    void theSameCallerStartingAgainIsTheSameStartAndAnyOtherCallerIsNot() {
        String runId = extracted("http");
        String dispatchId = validateRun(runId);

        var first = start(runId, dispatchId, "nifi-01");
        var again = start(runId, dispatchId, "nifi-01");
        var other = start(runId, dispatchId, "nifi-02");

        assertThat(first.body().get("started").asBoolean()).isTrue();
        assertThat(again.body().get("started").asBoolean()).as("a retry after a lost answer, or a second delivery")
                .isTrue();
        assertThat(again.body().get("files")).as("the same answer").isEqualTo(first.body().get("files"));
        assertThat(other.body().get("started").asBoolean()).as("the contract's answer to another caller").isFalse();
        assertThat(other.text("runStatus")).isEqualTo("STAGE_VALIDATING");
        assertThat(first.body().get("heartbeatIntervalMillis").asLong()).isEqualTo(7000);
        assertThat(ledger.count("SELECT count(*) FROM load_event WHERE run_id = '" + runId
                + "' AND to_status = 'STAGE_VALIDATING'")).as("one start").isEqualTo(1);
    }

    @Test
    void aValidationThatKeepsBeatingIsLeftAloneAndOneThatStopsIsGivenAgain() {
        String runId = extracted("worker");
        String dispatchId = validateRun(runId);
        start(runId, dispatchId, "w1");
        ageValidation(runId);
        var beat = ledger.post("/v1/runs/" + runId + "/validation/heartbeat", Map.of("dispatchId", dispatchId,
                "node", "w1"));
        assertThat(beat.body().get("validating").asBoolean()).as(beat.toString()).isTrue();
        assertThat(sweep.tick(THRESHOLDS).validationsRegiven()).as("it beat just now").isZero();
        assertThat(ledger.post("/v1/runs/" + runId + "/validation/heartbeat", Map.of("dispatchId", dispatchId,
                "node", "w2")).body().get("validating").asBoolean()).as("another caller's beat").isFalse();

        ageValidation(runId);
        SweepReport report = sweep.tick(THRESHOLDS);

        assertThat(report.validationsRegiven()).isEqualTo(1);
        assertThat(status(runId)).isEqualTo("EXTRACTED_VALIDATED");
        assertThat(ledger.count("SELECT count(*) FROM load_dispatch WHERE run_id = '" + runId
                + "' AND dispatch_type = 'VALIDATE_RUN' AND status = 'PENDING'")).as("the same dispatch, due again")
                .isEqualTo(1);
        assertThat(ledger.count("SELECT count(*) FROM load_event WHERE run_id = '" + runId
                + "' AND event_type = 'VALIDATION_REGIVEN'")).isEqualTo(1);
        var leased = ledger.post("/v1/dispatches/lease", Map.of("node", "w2", "types", List.of("VALIDATE_RUN"),
                "max", 1, "waitSeconds", 1));
        assertThat(leased.body()).as(leased.toString()).hasSize(1);
        assertThat(leased.body().at("/0/dispatchId").asText()).isEqualTo(dispatchId);
        assertThat(ledger.post("/v1/runs/" + runId + "/validation/heartbeat", Map.of("dispatchId", dispatchId,
                "node", "w1")).body().get("validating").asBoolean()).as("the old caller no longer holds it").isFalse();
        assertThat(start(runId, dispatchId, "w2").body().get("started").asBoolean()).as("the new caller").isTrue();
    }

    @Test
    void aValidationThatKillsEveryWorkerEndsTheRunAfterMaxAttempts() {
        String runId = extracted("worker");
        String dispatchId = validateRun(runId);
        for (int attempt = 1; attempt <= 3; attempt++) {
            assertThat(start(runId, dispatchId, "w" + attempt).body().get("started").asBoolean()).isTrue();
            ageValidation(runId);
            sweep.tick(THRESHOLDS);
        }

        var run = ledger.get("/v1/runs/" + runId);
        assertThat(run.text("status")).isEqualTo("TIMED_OUT");
        assertThat(run.text("errorCode")).isEqualTo("VALIDATION_ATTEMPTS_EXHAUSTED");
        assertThat(ledger.count("SELECT count(*) FROM load_event WHERE run_id = '" + runId
                + "' AND event_type = 'VALIDATION_REGIVEN'")).as("given again twice, then ended").isEqualTo(2);
        assertThat(sweep.tick(THRESHOLDS).changes()).isZero();
    }

    private static String[] publishing(String executor) {
        String runId = extracted(executor);
        start(runId, validateRun(runId), "w1");
        ledger.post("/v1/runs/" + runId + "/validations", Map.of("stage", "STAGING", "queryVersion", "v1", "metrics",
                List.of(Map.of("metricName", "STAGE_COUNT", "expectedValue", "30", "actualValue", "30",
                        "result", "PASS"))));
        assertThat(ledger.post("/v1/runs/" + runId + "/stage-validated", Map.of()).text("runStatus"))
                .isEqualTo("STAGING_VALIDATED");
        String token = UUID.randomUUID().toString();
        assertThat(ledger.post("/v1/runs/" + runId + "/publish/claim", Map.of("publishToken", token)).body()
                .get("claimed").asBoolean()).isTrue();
        // The publishing worker died before it reported: only publish_stale tells.
        ledger.execute("UPDATE load_run SET publish_started_at = now() - interval '3 hours', "
                + "status_changed_at = now() - interval '3 hours' WHERE run_id = '" + runId + "'");
        return new String[] {runId, token};
    }

    @Test
    void aPublishThatNeverReportedIsProbedByAWorker() {
        String[] run = publishing("worker");

        assertThat(sweep.tick(THRESHOLDS).publishUnknown()).isEqualTo(1);

        assertThat(status(run[0])).isEqualTo("PUBLISH_UNKNOWN");
        var leased = ledger.post("/v1/dispatches/lease", Map.of("node", "prober", "types", List.of("PROBE_PUBLISH"),
                "max", 5, "waitSeconds", 1));
        assertThat(leased.body()).as(leased.toString()).hasSize(1);
        assertThat(leased.body().at("/0/runId").asText()).isEqualTo(run[0]);
        assertThat(leased.body().at("/0/payload/publishToken").asText()).isEqualTo(run[1]);
        var probed = ledger.post("/v1/runs/" + run[0] + "/publish-unknown/probe", Map.of("publishToken", run[1],
                "found", true, "snapshotId", "4711"));
        assertThat(probed.text("runStatus")).as(probed.toString()).isEqualTo("PUBLISHED");
        assertThat(ledger.count("SELECT count(*) FROM load_dispatch WHERE run_id = '" + run[0]
                + "' AND dispatch_type = 'PROBE_PUBLISH' AND status = 'ACKED'")).as("the probe answered it")
                .isEqualTo(1);
    }

    @Test
    void aNifiRunThatNeverReportedWaitsForTheOperator() {
        String[] run = publishing("http");

        assertThat(sweep.tick(THRESHOLDS).publishUnknown()).isEqualTo(1);

        assertThat(ledger.count("SELECT count(*) FROM load_dispatch WHERE run_id = '" + run[0]
                + "' AND dispatch_type = 'PROBE_PUBLISH'")).as("NiFi knows no probe step").isZero();
    }

    @Test
    void aTargetValidationWhoseWorkerDiedComesBackAfterTheAckTimeout() {
        String[] run = publishing("worker");
        ledger.post("/v1/runs/" + run[0] + "/publish/result", Map.of("publishToken", run[1], "outcome", "PUBLISHED"));
        Map<String, Object> lease = Map.of("node", "w1", "types", List.of("VALIDATE_TARGET"), "max", 1,
                "waitSeconds", 1);
        assertThat(ledger.post("/v1/dispatches/lease", lease).body()).hasSize(1);
        // Only success acknowledges VALIDATE_TARGET: the worker that leased it died before.
        ledger.execute("UPDATE load_dispatch SET sent_at = now() - interval '1 hour' WHERE run_id = '" + run[0]
                + "' AND dispatch_type = 'VALIDATE_TARGET'");

        assertThat(sweep.tick(THRESHOLDS).dispatchesRequeued()).isEqualTo(1);

        var again = ledger.post("/v1/dispatches/lease", Map.of("node", "w2", "types", List.of("VALIDATE_TARGET"),
                "max", 1, "waitSeconds", 1));
        assertThat(again.body()).as(again.toString()).hasSize(1);
        assertThat(again.body().at("/0/runId").asText()).isEqualTo(run[0]);
    }

    @Test
    void aClaimTellsTheOwnerHowOftenToBeat() {
        String runId = Runs.started(ledger, "RECOVERY_" + (++jobs), 30);
        var claimed = ledger.post("/v1/runs/" + runId + "/partitions/0000/claim", claim(UUID.randomUUID()));

        assertThat(claimed.body().get("heartbeatIntervalMillis").asLong()).as(claimed.toString()).isEqualTo(7000);
    }
}

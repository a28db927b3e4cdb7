package io.loadgate.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.server.testing.Runs;
import io.loadgate.server.testing.TestLedger;
import java.util.ArrayList;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Validation, publish, success and the operator's actions, through real HTTP on a real database. */
class LifecycleApiTest {
    @RegisterExtension
    static final TestLedger ledger = new TestLedger();
    private static int jobs;

    private static String job() {
        return "LIFE_" + (++jobs);
    }

    /** A run whose single partition of 30 rows is extracted: EXTRACTED_VALIDATED with a VALIDATE_RUN dispatch. */
    private static String extracted() {
        return extracted(job());
    }

    private static String extracted(String jobKey) {
        String runId = Runs.started(ledger, jobKey, 30);
        Runs.extractAll(ledger, runId, 30);
        return runId;
    }

    private static String validateRunDispatch(String runId) {
        return ledger.get("/v1/runs/" + runId).body().at("/dispatches/0/dispatchId").asText();
    }

    private static Map<String, Object> metric(String name, String expected, String actual, String result) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("metricName", name);
        m.put("expectedValue", expected);
        m.put("actualValue", actual);
        m.put("tolerance", null);
        m.put("result", result);
        m.put("details", Map.of());
        return m;
    }

    private static Map<String, Object> metrics(String stage, List<Map<String, Object>> metrics) {
        return Map.of("stage", stage, "queryVersion", "v1", "metrics", metrics);
    }

    private static String stagingValidated() {
        return stagingValidated(job());
    }

    private static String stagingValidated(String jobKey) {
        String runId = extracted(jobKey);
        ledger.post("/v1/runs/" + runId + "/validation/start", Map.of("dispatchId", validateRunDispatch(runId),
                "node", "n1"));
        ledger.post("/v1/runs/" + runId + "/validations", metrics("STAGING",
                List.of(metric("STAGE_COUNT", "30", "30", "PASS"))));
        var verdict = ledger.post("/v1/runs/" + runId + "/stage-validated", Map.of());
        assertThat(verdict.text("runStatus")).as(verdict.toString()).isEqualTo("STAGING_VALIDATED");
        return runId;
    }

    @Test
    void eachPublishClaimOfAKeyTakesTheNextGenerationAndADeadlineWithinPublishStale() {
        String jobKey = job();
        String first = stagingValidated(jobKey);
        UUID token = UUID.randomUUID();
        var claimed = ledger.post("/v1/runs/" + first + "/publish/claim", Map.of("publishToken", token.toString()));
        assertThat(claimed.body().get("publishGeneration").asLong()).as(claimed.toString()).isEqualTo(1);
        assertThat(claimed.body().get("publishWithinMs").asLong()).as("nine tenths of publish_stale, 2h")
                .isPositive().isLessThanOrEqualTo(Duration.ofHours(2).multipliedBy(9).dividedBy(10).toMillis());
        var again = ledger.post("/v1/runs/" + first + "/publish/claim", Map.of("publishToken", token.toString()));
        assertThat(again.body().get("publishGeneration").asLong()).as("the same claim again: the same fence")
                .isEqualTo(1);
        assertThat(ledger.post("/v1/runs/" + first + "/publish/claim", Map.of("publishToken",
                UUID.randomUUID().toString())).body().has("publishGeneration")).as("a refused claim has no fence")
                .isFalse();
        ledger.post("/v1/runs/" + first + "/publish/result", Map.of("publishToken", token.toString(),
                "outcome", "FAILED_PUBLISH", "errorCode", "NOT_COMMITTED", "message", "test"));

        String second = stagingValidated(jobKey);
        var next = ledger.post("/v1/runs/" + second + "/publish/claim", Map.of("publishToken",
                UUID.randomUUID().toString()));
        assertThat(next.body().get("publishGeneration").asLong()).as("the key's next run publishes above the first")
                .isEqualTo(2);
        String otherKey = stagingValidated();
        assertThat(ledger.post("/v1/runs/" + otherKey + "/publish/claim", Map.of("publishToken",
                UUID.randomUUID().toString())).body().get("publishGeneration").asLong())
                .as("generations count per job and business key").isEqualTo(1);
    }

    @Test
    void happyPathFromManifestToSuccess() {
        String runId = extracted();
        String dispatchId = validateRunDispatch(runId);
        var start = ledger.post("/v1/runs/" + runId + "/validation/start", Map.of("dispatchId", dispatchId, "node", "n1"));
        assertThat(start.status()).as(start.toString()).isEqualTo(200);
        assertThat(start.body().get("started").asBoolean()).isTrue();
        assertThat(start.text("runStatus")).isEqualTo("STAGE_VALIDATING");
        assertThat(start.body().get("files")).hasSize(1);
        assertThat(start.body().at("/files/0/recordCount").asLong()).isEqualTo(30);
        assertThat(start.body().at("/sourceMetrics/COUNT").asText()).isEqualTo("30");
        assertThat(ledger.get("/v1/runs/" + runId).body().at("/dispatches/0/status").asText()).isEqualTo("ACKED");

        var recorded = ledger.post("/v1/runs/" + runId + "/validations", metrics("STAGING",
                List.of(metric("STAGE_COUNT", "30", "30", "PASS"), metric("SUM:amount", "10.50", "10.5", "PASS"))));
        assertThat(recorded.body().get("recorded").asInt()).isEqualTo(2);
        assertThat(recorded.body().get("failCount").asInt()).isZero();
        var staged = ledger.post("/v1/runs/" + runId + "/stage-validated", Map.of());
        assertThat(staged.body().get("stageValidated").asBoolean()).isTrue();
        assertThat(ledger.get("/v1/runs/" + runId).body().get("stagingCount").asLong()).isEqualTo(30);

        UUID publishToken = UUID.randomUUID();
        var claimed = ledger.post("/v1/runs/" + runId + "/publish/claim", Map.of("publishToken", publishToken.toString()));
        assertThat(claimed.body().get("claimed").asBoolean()).isTrue();
        assertThat(ledger.post("/v1/runs/" + runId + "/publish/claim", Map.of("publishToken", publishToken.toString()))
                .body().get("claimed").asBoolean()).isTrue();
        assertThat(ledger.post("/v1/runs/" + runId + "/publish/claim", Map.of("publishToken",
                UUID.randomUUID().toString())).body().get("claimed").asBoolean()).isFalse();
        Map<String, Object> result = new LinkedHashMap<>(Map.of("publishToken", publishToken.toString(),
                "outcome", "PUBLISHED", "targetRef", "snapshot-1"));
        var published = ledger.post("/v1/runs/" + runId + "/publish/result", result);
        assertThat(published.body().get("changed").asBoolean()).isTrue();
        assertThat(ledger.post("/v1/runs/" + runId + "/publish/result", result).body().get("changed").asBoolean())
                .isFalse();

        ledger.post("/v1/runs/" + runId + "/validations", metrics("TARGET",
                List.of(metric("TARGET_COUNT", "30", "30", "PASS"))));
        var success = ledger.post("/v1/runs/" + runId + "/success", Map.of("targetCount", 30));
        assertThat(success.body().get("success").asBoolean()).as(success.toString()).isTrue();
        var run = ledger.get("/v1/runs/" + runId);
        assertThat(run.text("status")).isEqualTo("SUCCESS");
        assertThat(run.text("targetRef")).isEqualTo("snapshot-1");
        assertThat(run.text("completedAt")).isNotNull();
        var validations = ledger.get("/v1/runs/" + runId + "/validations");
        assertThat(validations.body()).hasSize(3);
        assertThat(ledger.get("/v1/runs/" + runId + "/validations?stage=TARGET").body()).hasSize(1);
    }

    @Test
    void eightConcurrentValidationStartsHaveOneStarter() throws Exception {
        String runId = extracted();
        String dispatchId = validateRunDispatch(runId);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<TestLedger.Response>> futures = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                String node = "node-" + i;
                Callable<TestLedger.Response> call = () -> {
                    go.await();
                    return ledger.post("/v1/runs/" + runId + "/validation/start",
                            Map.of("dispatchId", dispatchId, "node", node));
                };
                futures.add(pool.submit(call));
            }
            go.countDown();
            int started = 0;
            for (Future<TestLedger.Response> f : futures) {
                TestLedger.Response r = f.get();
                assertThat(r.status()).as(r.toString()).isEqualTo(200);
                started += r.body().get("started").asBoolean() ? 1 : 0;
            }
            assertThat(started).isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aDispatchOfAnotherRunIsAMismatch() {
        String runA = extracted();
        String runB = extracted();
        var response = ledger.post("/v1/runs/" + runA + "/validation/start",
                Map.of("dispatchId", validateRunDispatch(runB), "node", "n"));
        assertThat(response.status()).isEqualTo(409);
        assertThat(response.code()).isEqualTo("DISPATCH_MISMATCH");
        assertThat(ledger.post("/v1/runs/" + runA + "/validation/start",
                Map.of("dispatchId", UUID.randomUUID().toString())).code()).isEqualTo("DISPATCH_NOT_FOUND");
    }

    @Test
    void startedFalseStillAcknowledgesTheDispatch() {
        String runId = extracted();
        String dispatchId = validateRunDispatch(runId);
        ledger.post("/v1/runs/" + runId + "/validation/start", Map.of("dispatchId", dispatchId));
        ledger.execute("UPDATE loadgate.load_dispatch SET status = 'SENT', acked_at = NULL WHERE dispatch_id = '"
                + dispatchId + "'");
        // Another caller: the same caller again would be the same start (RecoveryApiTest).
        var again = ledger.post("/v1/runs/" + runId + "/validation/start", Map.of("dispatchId", dispatchId,
                "node", "another-node"));
        assertThat(again.body().get("started").asBoolean()).isFalse();
        assertThat(ledger.get("/v1/runs/" + runId).body().at("/dispatches/0/status").asText()).isEqualTo("ACKED");
    }

    @Test
    void aCallersPassForDifferentNumbersFailsTheRun() {
        String runId = extracted();
        ledger.post("/v1/runs/" + runId + "/validation/start", Map.of("dispatchId", validateRunDispatch(runId)));
        ledger.post("/v1/runs/" + runId + "/validations", metrics("STAGING", List.of(
                metric("STAGE_COUNT", "30", "29", "PASS"), metric("SUM:x", "1.5", "1.50", "PASS"))));
        var verdict = ledger.post("/v1/runs/" + runId + "/stage-validated", Map.of());
        assertThat(verdict.body().get("stageValidated").asBoolean()).isFalse();
        assertThat(verdict.text("runStatus")).isEqualTo("FAILED_STAGE_VALIDATION");
        assertThat(verdict.body().get("reasons").toString()).contains("FAIL STAGE_COUNT").doesNotContain("SUM:x");
    }

    @Test
    void toleranceExcusesSmallDifferencesAndNoMetricsChangesNothing() {
        String runId = extracted();
        ledger.post("/v1/runs/" + runId + "/validation/start", Map.of("dispatchId", validateRunDispatch(runId)));
        var none = ledger.post("/v1/runs/" + runId + "/stage-validated", Map.of());
        assertThat(none.body().get("reasons").get(0).asText()).isEqualTo("NO_METRICS");
        assertThat(none.text("runStatus")).isEqualTo("STAGE_VALIDATING");
        Map<String, Object> m = metric("SUM:amount", "100.00", "100.004", "PASS");
        m.put("tolerance", "0.01");
        ledger.post("/v1/runs/" + runId + "/validations", metrics("STAGING", List.of(m)));
        assertThat(ledger.post("/v1/runs/" + runId + "/stage-validated", Map.of()).text("runStatus"))
                .isEqualTo("STAGING_VALIDATED");
    }

    @Test
    void metricsNeedTheRightRunStatus() {
        String runId = extracted();
        var early = ledger.post("/v1/runs/" + runId + "/validations", metrics("STAGING",
                List.of(metric("STAGE_COUNT", "30", "30", "PASS"))));
        assertThat(early.status()).isEqualTo(409);
        assertThat(early.code()).isEqualTo("RUN_STATUS_MISMATCH");
        assertThat(ledger.post("/v1/runs/" + runId + "/validations", metrics("TARGET",
                List.of(metric("TARGET_COUNT", "30", "30", "PASS")))).code()).isEqualTo("RUN_STATUS_MISMATCH");
        assertThat(ledger.post("/v1/runs/" + runId + "/validations", Map.of("stage", "STAGING", "queryVersion", "v1",
                "metrics", List.of())).code()).isEqualTo("REQUEST_INVALID");
        assertThat(ledger.post("/v1/runs/" + runId + "/success", Map.of()).code()).isEqualTo("RUN_STATUS_MISMATCH");
        assertThat(ledger.post("/v1/runs/" + runId + "/stage-validated", Map.of()).code())
                .isEqualTo("RUN_STATUS_MISMATCH");
    }

    @Test
    void publishResultNeedsTheToken() {
        String runId = stagingValidated();
        UUID token = UUID.randomUUID();
        ledger.post("/v1/runs/" + runId + "/publish/claim", Map.of("publishToken", token.toString()));
        var wrong = ledger.post("/v1/runs/" + runId + "/publish/result", Map.of("publishToken",
                UUID.randomUUID().toString(), "outcome", "PUBLISHED"));
        assertThat(wrong.status()).isEqualTo(409);
        assertThat(wrong.code()).isEqualTo("PUBLISH_TOKEN_MISMATCH");
        var failed = ledger.post("/v1/runs/" + runId + "/publish/result", Map.of("publishToken", token.toString(),
                "outcome", "FAILED_PUBLISH", "errorCode", "COMMIT_CONFLICT", "message", "table changed"));
        assertThat(failed.text("runStatus")).isEqualTo("FAILED_PUBLISH");
        var after = ledger.post("/v1/runs/" + runId + "/publish/result", Map.of("publishToken", token.toString(),
                "outcome", "PUBLISHED"));
        assertThat(after.code()).isEqualTo("RUN_STATUS_MISMATCH");
    }

    @Test
    void publishUnknownBlocksTheKeyUntilAnOperatorResolvesIt() {
        String runId = stagingValidated();
        var run = ledger.get("/v1/runs/" + runId);
        UUID token = UUID.randomUUID();
        ledger.post("/v1/runs/" + runId + "/publish/claim", Map.of("publishToken", token.toString()));
        ledger.post("/v1/runs/" + runId + "/publish/result", Map.of("publishToken", token.toString(),
                "outcome", "PUBLISH_UNKNOWN", "message", "connection lost during commit"));
        var blocked = ledger.post("/v1/runs", Runs.create(run.text("jobKey"), run.text("businessKey")));
        assertThat(blocked.code()).isEqualTo("DUPLICATE_ACTIVE_RUN");

        String path = "/v1/runs/" + runId + "/publish-unknown/resolve";
        Map<String, Object> resolve = Map.of("resolution", "PUBLISHED", "reason", "checked the table: snapshot 42");
        assertThat(ledger.send("POST", path, resolve, ledger.workerToken).status()).isEqualTo(403);
        assertThat(ledger.send("POST", path, resolve, ledger.viewerToken).status()).isEqualTo(403);
        var shortReason = ledger.send("POST", path, Map.of("resolution", "PUBLISHED", "reason", "ok  "),
                ledger.operatorToken);
        assertThat(shortReason.status()).isEqualTo(422);
        assertThat(shortReason.code()).isEqualTo("REQUEST_INVALID");
        var resolved = ledger.send("POST", path, resolve, ledger.operatorToken);
        assertThat(resolved.status()).as(resolved.toString()).isEqualTo(200);
        assertThat(resolved.text("runStatus")).isEqualTo("PUBLISHED");
        assertThat(resolved.body().get("changed").asBoolean()).isTrue();
        assertThat(ledger.send("POST", path, resolve, ledger.operatorToken).body().get("changed").asBoolean())
                .isFalse();
        var otherWay = ledger.send("POST", path, Map.of("resolution", "FAILED_PUBLISH", "reason", "changed my mind"),
                ledger.operatorToken);
        assertThat(otherWay.code()).isEqualTo("RUN_STATUS_MISMATCH");
        var events = ledger.get("/v1/runs/" + runId + "/events").body();
        boolean kept = false;
        for (var e : events) {
            if (e.get("eventType").asText().equals("PUBLISH_UNKNOWN_RESOLVED")) {
                kept = e.at("/details/reason").asText().equals("checked the table: snapshot 42")
                        && e.get("actor").asText().startsWith("operator:");
            }
        }
        assertThat(kept).isTrue();
    }

    private static String[] publishUnknown() {
        String runId = stagingValidated();
        UUID token = UUID.randomUUID();
        ledger.post("/v1/runs/" + runId + "/publish/claim", Map.of("publishToken", token.toString()));
        ledger.post("/v1/runs/" + runId + "/publish/result", Map.of("publishToken", token.toString(),
                "outcome", "PUBLISH_UNKNOWN"));
        return new String[] {runId, token.toString()};
    }

    @Test
    void theProbeResolvesPublishedWhenItFindsTheToken() {
        String[] run = publishUnknown();
        String path = "/v1/runs/" + run[0] + "/publish-unknown/probe";
        assertThat(ledger.post(path, Map.of("publishToken", UUID.randomUUID().toString(), "found", false)).code())
                .isEqualTo("PUBLISH_TOKEN_MISMATCH");
        assertThat(ledger.post(path, Map.of("publishToken", run[1], "found", true)).code())
                .isEqualTo("REQUEST_INVALID");
        var probed = ledger.post(path, Map.of("publishToken", run[1], "found", true, "snapshotId", "8812"));
        assertThat(probed.text("runStatus")).as(probed.toString()).isEqualTo("PUBLISHED");
        assertThat(ledger.get("/v1/runs/" + run[0]).text("targetRef")).isEqualTo("8812");
        assertThat(ledger.get("/v1/runs/" + run[0] + "/events").body().toString())
                .contains("PUBLISH_UNKNOWN_RESOLVED", "token found in target");
    }

    @Test
    void theProbeFailsThePublishOnlyOnceTheAttemptIsOver() {
        String[] run = publishUnknown();
        String path = "/v1/runs/" + run[0] + "/publish-unknown/probe";
        var early = ledger.post(path, Map.of("publishToken", run[1], "found", false));
        assertThat(early.status()).isEqualTo(409);
        assertThat(early.code()).isEqualTo("PROBE_INCONCLUSIVE");
        assertThat(ledger.get("/v1/runs/" + run[0]).text("status")).isEqualTo("PUBLISH_UNKNOWN");
        var returned = ledger.post(path, Map.of("publishToken", run[1], "found", false, "attemptReturned", true));
        assertThat(returned.text("runStatus")).isEqualTo("FAILED_PUBLISH");

        String[] stale = publishUnknown();
        ledger.execute("UPDATE loadgate.load_run SET publish_started_at = now() - interval '3 hours' WHERE run_id = '"
                + stale[0] + "'");
        var afterStale = ledger.post("/v1/runs/" + stale[0] + "/publish-unknown/probe",
                Map.of("publishToken", stale[1], "found", false));
        assertThat(afterStale.text("runStatus")).isEqualTo("FAILED_PUBLISH");
    }

    @Test
    void resolvingARunThatIsNotUnknownConflicts() {
        String runId = stagingValidated();
        var response = ledger.send("POST", "/v1/runs/" + runId + "/publish-unknown/resolve",
                Map.of("resolution", "FAILED_PUBLISH", "reason", "no publish happened"), ledger.operatorToken);
        assertThat(response.status()).isEqualTo(409);
        assertThat(response.code()).isEqualTo("RUN_STATUS_MISMATCH");
    }

    @Test
    void targetMetricsThatFailEndTheRun() {
        String runId = stagingValidated();
        UUID token = UUID.randomUUID();
        ledger.post("/v1/runs/" + runId + "/publish/claim", Map.of("publishToken", token.toString()));
        ledger.post("/v1/runs/" + runId + "/publish/result", Map.of("publishToken", token.toString(),
                "outcome", "PUBLISHED"));
        ledger.post("/v1/runs/" + runId + "/validations", metrics("TARGET",
                List.of(metric("TARGET_COUNT", "30", "25", "PASS"))));
        var success = ledger.post("/v1/runs/" + runId + "/success", Map.of("targetCount", 25));
        assertThat(success.body().get("success").asBoolean()).isFalse();
        assertThat(success.text("runStatus")).isEqualTo("FAILED_TARGET_VALIDATION");
        assertThat(success.body().get("reasons").toString()).contains("FAIL TARGET_COUNT", "TARGET_COUNT_MISMATCH");
    }

    @Test
    void cleanupWaitsForRetentionAndIsIdempotent() {
        String runId = extracted();
        ledger.post("/v1/runs/" + runId + "/fail", Map.of("expectedStatus", "EXTRACTED_VALIDATED",
                "failStatus", "FAILED_EXTRACT"));
        ledger.execute("UPDATE loadgate.load_run SET status = 'FAILED_EXTRACT', completed_at = now() WHERE run_id = '"
                + runId + "'");
        var early = ledger.post("/v1/runs/" + runId + "/cleanup", Map.of("deletedPath", "/x"));
        assertThat(early.status()).isEqualTo(409);
        assertThat(early.code()).isEqualTo("CLEANUP_NOT_DUE");
        var notYet = ledger.get("/v1/cleanup/candidates");
        assertThat(notYet.status()).isEqualTo(200);
        assertThat(notYet.body().toString()).doesNotContain(runId);
        ledger.execute("UPDATE loadgate.load_run SET completed_at = now() - interval '15 days' WHERE run_id = '"
                + runId + "'");
        var candidates = ledger.get("/v1/cleanup/candidates");
        assertThat(candidates.body().toString()).contains(runId);
        var cleaned = ledger.post("/v1/runs/" + runId + "/cleanup", Map.of("deletedPath", "/x", "droppedTable", "t"));
        assertThat(cleaned.body().get("changed").asBoolean()).isTrue();
        assertThat(ledger.post("/v1/runs/" + runId + "/cleanup", Map.of("deletedPath", "/x")).body().get("changed")
                .asBoolean()).isFalse();
        assertThat(ledger.get("/v1/cleanup/candidates").body().toString()).doesNotContain(runId);
        assertThat(ledger.send("GET", "/v1/cleanup/candidates", null, ledger.viewerToken).status()).isEqualTo(403);
    }

    @Test
    void aSkippedCleanupIsRecordedAndGoesBehindTheOtherCandidates() {
        List<String> runs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String runId = extracted();
            ledger.execute("UPDATE loadgate.load_run SET status = 'FAILED_EXTRACT', completed_at = now() - interval '"
                    + (30 - i) + " days' WHERE run_id = '" + runId + "'");
            runs.add(runId);
        }
        List<String> before = candidateIds();
        assertThat(before).as("oldest first").containsSubsequence(runs.get(0), runs.get(1), runs.get(2));

        String oldest = runs.get(0);
        var skipped = ledger.post("/v1/runs/" + oldest + "/cleanup/skipped", Map.of("reason", "catalog unreachable"));

        assertThat(skipped.status()).as(skipped.toString()).isEqualTo(200);
        assertThat(skipped.body().get("changed").asBoolean()).isTrue();
        List<String> after = candidateIds();
        assertThat(after.indexOf(oldest)).as("behind every run never skipped").isGreaterThan(after.indexOf(runs.get(2)));
        assertThat(ledger.get("/v1/runs/" + oldest + "/events").body().toString())
                .contains("CLEANUP_SKIPPED", "catalog unreachable");
        assertThat(ledger.post("/v1/runs/" + oldest + "/cleanup/skipped", Map.of("reason", " ")).status())
                .isEqualTo(422);
        String fresh = extracted();
        var notDue = ledger.post("/v1/runs/" + fresh + "/cleanup/skipped", Map.of("reason", "too early"));
        assertThat(notDue.code()).isEqualTo("CLEANUP_NOT_DUE");
        ledger.post("/v1/runs/" + oldest + "/cleanup", Map.of("deletedPath", "/x"));
        assertThat(ledger.post("/v1/runs/" + oldest + "/cleanup/skipped", Map.of("reason", "late report")).body()
                .get("changed").asBoolean()).as("already cleaned").isFalse();
    }

    private List<String> candidateIds() {
        List<String> ids = new ArrayList<>();
        ledger.get("/v1/cleanup/candidates").body().forEach(c -> ids.add(c.get("runId").asText()));
        return ids;
    }

    @Test
    void monitorSummaryShowsWhatNeedsAttention() {
        String runId = stagingValidated();
        UUID token = UUID.randomUUID();
        ledger.post("/v1/runs/" + runId + "/publish/claim", Map.of("publishToken", token.toString()));
        ledger.post("/v1/runs/" + runId + "/publish/result", Map.of("publishToken", token.toString(),
                "outcome", "PUBLISH_UNKNOWN"));
        var summary = ledger.send("GET", "/v1/monitor/summary", null, ledger.viewerToken);
        assertThat(summary.status()).isEqualTo(200);
        assertThat(summary.body().at("/runsByStatus/PUBLISH_UNKNOWN").asInt()).isGreaterThanOrEqualTo(1);
        assertThat(summary.body().get("attention").toString()).contains(runId, "resolve");
        var entry = java.util.stream.StreamSupport.stream(summary.body().get("attention").spliterator(), false)
                .filter(a -> a.get("runId").asText().equals(runId)).findFirst().orElseThrow();
        assertThat(entry.get("kind").asText()).as(entry.toString()).isEqualTo("PUBLISH_UNKNOWN");
        assertThat(entry.get("dispatchId").isNull()).as(entry.toString()).isTrue();
    }
}

package io.loadgate.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.loadgate.server.testing.Runs;
import io.loadgate.server.testing.TestLedger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The extensions that save a worker a round trip per step: {@code stage-validated} and {@code success} carrying the
 * stage's metrics (stored in the verdict's transaction and judged with it), and a publish claim answering with the
 * run's files.
 */
class VerdictMetricsApiTest {
    @RegisterExtension
    static final TestLedger ledger = new TestLedger();
    private static int jobs;

    /** A run whose 30 rows are staged and whose validation has started: STAGE_VALIDATING. */
    private static String validating() {
        String runId = Runs.extracting(ledger, "VERDICT_" + (++jobs), "2026-12-06");
        Runs.extractAll(ledger, runId, 30);
        String dispatchId = ledger.get("/v1/runs/" + runId).body().at("/dispatches/0/dispatchId").asText();
        var started = ledger.post("/v1/runs/" + runId + "/validation/start",
                Map.of("dispatchId", dispatchId, "node", "n1"));
        assertThat(started.text("runStatus")).as(started.toString()).isEqualTo("STAGE_VALIDATING");
        return runId;
    }

    private static Map<String, Object> metric(String name, String expected, String actual, String result) {
        Map<String, Object> metric = new LinkedHashMap<>();
        metric.put("metricName", name);
        metric.put("expectedValue", expected);
        metric.put("actualValue", actual);
        metric.put("result", result);
        return metric;
    }

    private static Map<String, Object> verdict(List<Map<String, Object>> metrics) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("queryVersion", "v1");
        body.put("metrics", metrics);
        return body;
    }

    private static List<String> stored(String runId, String stage) {
        List<String> names = new ArrayList<>();
        for (JsonNode metric : ledger.get("/v1/runs/" + runId + "/validations?stage=" + stage).body()) {
            names.add(metric.get("metricName").asText() + "=" + metric.get("actualValue").asText());
        }
        return names;
    }

    @Test
    void stageValidatedStoresTheMetricsItCarriesAndJudgesThemWithTheOnesRecordedBefore() {
        String runId = validating();
        ledger.post("/v1/runs/" + runId + "/validations", Runs.passed("STAGING", "SUM:amount"));
        var verdict = ledger.post("/v1/runs/" + runId + "/stage-validated",
                verdict(List.of(metric("STAGE_COUNT", "30", "30", "PASS"))));
        assertThat(verdict.status()).as(verdict.toString()).isEqualTo(200);
        assertThat(verdict.text("stageValidated")).isEqualTo("true");
        assertThat(verdict.text("runStatus")).isEqualTo("STAGING_VALIDATED");
        assertThat(stored(runId, "STAGING")).containsExactly("SUM:amount=30", "STAGE_COUNT=30");
        assertThat(ledger.get("/v1/runs/" + runId).text("stagingCount")).isEqualTo("30");

        // A resend after a lost answer: the same verdict, nothing stored twice.
        var again = ledger.post("/v1/runs/" + runId + "/stage-validated",
                verdict(List.of(metric("STAGE_COUNT", "30", "30", "PASS"))));
        assertThat(again.text("runStatus")).as(again.toString()).isEqualTo("STAGING_VALIDATED");
        assertThat(stored(runId, "STAGING")).hasSize(2);
    }

    @Test
    void aCarriedMetricTheLedgerJudgesFailingFailsTheRunInTheSameCall() {
        String runId = validating();
        // The caller says PASS; the ledger's own judgement of 30 against 29 says FAIL.
        var verdict = ledger.post("/v1/runs/" + runId + "/stage-validated",
                verdict(List.of(metric("STAGE_COUNT", "30", "29", "PASS"))));
        assertThat(verdict.text("stageValidated")).as(verdict.toString()).isEqualTo("false");
        assertThat(verdict.text("runStatus")).isEqualTo("FAILED_STAGE_VALIDATION");
        assertThat(verdict.body().get("reasons").toString()).contains("FAIL STAGE_COUNT");
        assertThat(stored(runId, "STAGING")).containsExactly("STAGE_COUNT=29");
    }

    @Test
    void metricsAndTheirQueryVersionComeTogetherAndAsManyAsTheValidationsCallTakes() {
        String runId = validating();
        Map<String, Object> noVersion = new LinkedHashMap<>(verdict(List.of(metric("STAGE_COUNT", "30", "30", "PASS"))));
        noVersion.remove("queryVersion");
        var refused = ledger.post("/v1/runs/" + runId + "/stage-validated", noVersion);
        assertThat(refused.status()).as(refused.toString()).isEqualTo(422);
        assertThat(refused.code()).isEqualTo("REQUEST_INVALID");
        assertThat(refused.toString()).contains("queryVersion");

        var noMetrics = ledger.post("/v1/runs/" + runId + "/success", Map.of("targetCount", 30, "queryVersion", "v1"));
        assertThat(noMetrics.status()).as(noMetrics.toString()).isEqualTo(422);
        assertThat(noMetrics.toString()).contains("metrics");

        List<Map<String, Object>> many = new ArrayList<>();
        for (int i = 0; i < 501; i++) {
            many.add(metric("M" + i, "1", "1", "PASS"));
        }
        var tooMany = ledger.post("/v1/runs/" + runId + "/stage-validated", verdict(many));
        assertThat(tooMany.status()).as(tooMany.toString()).isEqualTo(422);
        var badMetric = ledger.post("/v1/runs/" + runId + "/stage-validated",
                verdict(List.of(Map.of("metricName", "STAGE_COUNT"))));
        assertThat(badMetric.status()).as(badMetric.toString()).isEqualTo(422);
        assertThat(badMetric.toString()).contains("metrics[0].result");

        // Nothing of the refused calls was stored or decided.
        assertThat(stored(runId, "STAGING")).isEmpty();
        assertThat(ledger.get("/v1/runs/" + runId).text("status")).isEqualTo("STAGE_VALIDATING");
    }

    @Test
    void thePublishClaimAnswersWithTheFilesToPublishAndALosingClaimWithNone() {
        String runId = Runs.stagingValidated(ledger, "VERDICT_" + (++jobs), "2026-12-06");
        UUID token = UUID.randomUUID();
        var claimed = ledger.post("/v1/runs/" + runId + "/publish/claim", Map.of("publishToken", token.toString()));
        assertThat(claimed.text("claimed")).as(claimed.toString()).isEqualTo("true");
        assertThat(claimed.body().get("files")).isEqualTo(ledger.get("/v1/runs/" + runId + "/files").body());
        assertThat(claimed.body().get("files")).hasSize(1);
        assertThat(claimed.body().at("/files/0/recordCount").asLong()).isEqualTo(30);

        var again = ledger.post("/v1/runs/" + runId + "/publish/claim", Map.of("publishToken", token.toString()));
        assertThat(again.body().get("files")).as(again.toString()).isEqualTo(claimed.body().get("files"));
        var other = ledger.post("/v1/runs/" + runId + "/publish/claim",
                Map.of("publishToken", UUID.randomUUID().toString()));
        assertThat(other.text("claimed")).as(other.toString()).isEqualTo("false");
        assertThat(other.body().has("files")).isFalse();
    }

    @Test
    void successStoresTheTargetMetricsItCarriesAndJudgesThem() {
        String passing = published();
        var success = ledger.post("/v1/runs/" + passing + "/success", withCount(verdict(List.of(
                metric("TARGET_COUNT", "30", "30", "PASS"), metric("SUM:amount", "45", "45", "PASS")))));
        assertThat(success.text("success")).as(success.toString()).isEqualTo("true");
        assertThat(success.text("runStatus")).isEqualTo("SUCCESS");
        assertThat(stored(passing, "TARGET")).containsExactly("TARGET_COUNT=30", "SUM:amount=45");

        String failing = published();
        var failed = ledger.post("/v1/runs/" + failing + "/success", withCount(verdict(List.of(
                metric("TARGET_COUNT", "30", "30", "PASS"), metric("SUM:amount", "45", "44", "PASS")))));
        assertThat(failed.text("success")).as(failed.toString()).isEqualTo("false");
        assertThat(failed.text("runStatus")).isEqualTo("FAILED_TARGET_VALIDATION");
        assertThat(failed.body().get("reasons").toString()).contains("FAIL SUM:amount");
        // Sent again: the same verdict, judged from what was stored.
        var again = ledger.post("/v1/runs/" + failing + "/success", withCount(verdict(List.of(
                metric("TARGET_COUNT", "30", "30", "PASS")))));
        assertThat(again.text("runStatus")).as(again.toString()).isEqualTo("FAILED_TARGET_VALIDATION");
        assertThat(stored(failing, "TARGET")).hasSize(2);
    }

    private static Map<String, Object> withCount(Map<String, Object> body) {
        Map<String, Object> withCount = new LinkedHashMap<>(body);
        withCount.put("targetCount", 30);
        return withCount;
    }

    /** A run of 30 rows published: PUBLISHED, no TARGET metric recorded yet. */
    private static String published() {
        String runId = Runs.stagingValidated(ledger, "VERDICT_" + (++jobs), "2026-12-06");
        UUID token = Runs.publishing(ledger, runId);
        var published = ledger.post("/v1/runs/" + runId + "/publish/result", Map.of("publishToken", token.toString(),
                "outcome", "PUBLISHED", "targetRef", "snapshot-1"));
        assertThat(published.text("runStatus")).as(published.toString()).isEqualTo("PUBLISHED");
        return runId;
    }
}

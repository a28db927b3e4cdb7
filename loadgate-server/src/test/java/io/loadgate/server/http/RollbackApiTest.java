package io.loadgate.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.loadgate.server.testing.Runs;
import io.loadgate.server.testing.TestLedger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code POST /v1/runs/{runId}/rollback} (extension): who may call it, on which run, and idempotency. */
class RollbackApiTest {
    @RegisterExtension
    static final TestLedger ledger = new TestLedger();
    private static int jobs;

    private static String job() {
        return "ROLLBACK_" + (++jobs);
    }

    private static Map<String, Object> metric(String name, long value) {
        return Map.of("metricName", name, "expectedValue", String.valueOf(value), "actualValue",
                String.valueOf(value), "result", "PASS", "details", Map.of());
    }

    /** A run of one 30-row partition driven to PUBLISHED with snapshot {@code snapshot} as its targetRef. */
    private static String published(String jobKey, String snapshot) {
        String runId = Runs.started(ledger, jobKey, 30);
        Runs.extractAll(ledger, runId, 30);
        String dispatchId = ledger.get("/v1/runs/" + runId).body().at("/dispatches/0/dispatchId").asText();
        ledger.post("/v1/runs/" + runId + "/validation/start", Map.of("dispatchId", dispatchId, "node", "n1"));
        ledger.post("/v1/runs/" + runId + "/validations", Map.of("stage", "STAGING", "queryVersion", "v1",
                "metrics", List.of(metric("STAGE_COUNT", 30))));
        ledger.post("/v1/runs/" + runId + "/stage-validated", Map.of());
        UUID publishToken = UUID.randomUUID();
        ledger.post("/v1/runs/" + runId + "/publish/claim", Map.of("publishToken", publishToken.toString()));
        var result = ledger.post("/v1/runs/" + runId + "/publish/result", Map.of("publishToken",
                publishToken.toString(), "outcome", "PUBLISHED", "targetRef", snapshot));
        assertThat(result.text("runStatus")).as(result.toString()).isEqualTo("PUBLISHED");
        return runId;
    }

    private static String succeeded(String jobKey, String snapshot) {
        String runId = published(jobKey, snapshot);
        ledger.post("/v1/runs/" + runId + "/validations", Map.of("stage", "TARGET", "queryVersion", "v1",
                "metrics", List.of(metric("TARGET_COUNT", 30))));
        var success = ledger.post("/v1/runs/" + runId + "/success", Map.of("targetCount", 30));
        assertThat(success.text("runStatus")).as(success.toString()).isEqualTo("SUCCESS");
        return runId;
    }

    private static TestLedger.Response rollback(String runId, Object body) {
        return ledger.send("POST", "/v1/runs/" + runId + "/rollback", body, ledger.operatorToken);
    }

    private static List<JsonNode> rollbackEvents(String runId) {
        List<JsonNode> found = new ArrayList<>();
        for (JsonNode event : ledger.get("/v1/runs/" + runId + "/events").body()) {
            if (event.get("eventType").asText().equals("ROLLED_BACK")) {
                found.add(event);
            }
        }
        return found;
    }

    @Test
    void theLatestSuccessGainsOneRolledBackEventAndKeepsItsStatus() {
        String runId = succeeded(job(), "100");
        Map<String, Object> body = Map.of("reason", "source sent a bad day", "targetRef", "101");
        assertThat(ledger.send("POST", "/v1/runs/" + runId + "/rollback", body, ledger.workerToken).status())
                .isEqualTo(403);
        assertThat(ledger.send("POST", "/v1/runs/" + runId + "/rollback", body, ledger.viewerToken).status())
                .isEqualTo(403);

        var first = rollback(runId, body);
        assertThat(first.status()).as(first.toString()).isEqualTo(200);
        assertThat(first.text("runStatus")).isEqualTo("SUCCESS");
        assertThat(first.body().get("changed").asBoolean()).isTrue();
        var again = rollback(runId, body);
        assertThat(again.status()).as(again.toString()).isEqualTo(200);
        assertThat(again.body().get("changed").asBoolean()).isFalse();

        var run = ledger.get("/v1/runs/" + runId);
        assertThat(run.text("status")).isEqualTo("SUCCESS");
        assertThat(run.text("targetRef")).as("the publish's snapshot stays the run's targetRef").isEqualTo("100");
        List<JsonNode> events = rollbackEvents(runId);
        assertThat(events).hasSize(1);
        assertThat(events.get(0).at("/details/reason").asText()).isEqualTo("source sent a bad day");
        assertThat(events.get(0).at("/details/targetRef").asText()).isEqualTo("101");
        assertThat(events.get(0).get("actor").asText()).startsWith("operator:");

        var other = rollback(runId, Map.of("reason", "source sent a bad day", "targetRef", "102"));
        assertThat(other.status()).isEqualTo(409);
        assertThat(other.code()).isEqualTo("ALREADY_ROLLED_BACK");
        assertThat(other.body().at("/details/targetRef").asText()).isEqualTo("101");
        assertThat(rollbackEvents(runId)).hasSize(1);
    }

    @Test
    void onlyTheLatestSuccessfulRunOfTheKeyCanBeRolledBack() {
        String jobKey = job();
        String older = succeeded(jobKey, "200");
        String newer = succeeded(jobKey, "201");
        var refused = rollback(older, Map.of("reason", "wrong run chosen", "targetRef", "202"));
        assertThat(refused.status()).as(refused.toString()).isEqualTo(409);
        assertThat(refused.code()).isEqualTo("NOT_LATEST_SUCCESS");
        assertThat(refused.body().at("/details/latestRunId").asText()).isEqualTo(newer);
        assertThat(rollbackEvents(older)).isEmpty();

        String notDone = published(job(), "300");
        var active = rollback(notDone, Map.of("reason", "not finished yet", "targetRef", "301"));
        assertThat(active.status()).isEqualTo(409);
        assertThat(active.code()).isEqualTo("RUN_STATUS_MISMATCH");
        assertThat(rollbackEvents(notDone)).isEmpty();
    }

    @Test
    void unknownRunsAndBadBodiesChangeNothing() {
        var unknown = rollback(UUID.randomUUID().toString(), Map.of("reason", "no such run", "targetRef", "1"));
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.code()).isEqualTo("RUN_NOT_FOUND");
        assertThat(rollback("not-a-uuid", Map.of("reason", "no such run", "targetRef", "1")).status())
                .isEqualTo(404);

        String runId = succeeded(job(), "400");
        Map<String, Map<String, Object>> bad = Map.of(
                "reason", Map.of("reason", " ok  ", "targetRef", "401"),
                "targetRef", Map.of("reason", "a good reason"),
                "colour", Map.of("reason", "a good reason", "targetRef", "401", "colour", "red"));
        for (var c : bad.entrySet()) {
            var response = rollback(runId, c.getValue());
            assertThat(response.status()).as(c.getKey() + ": " + response).isEqualTo(422);
            assertThat(response.code()).isEqualTo("REQUEST_INVALID");
            assertThat(response.body().get("details").toString()).contains(c.getKey());
        }
        assertThat(rollbackEvents(runId)).isEmpty();
    }
}

package io.loadgate.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.loadgate.server.testing.Runs;
import io.loadgate.server.testing.TestLedger;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code GET /v1/jobs/{jobKey}/loaded-directories} (extension): the directories are the SUCCESS's, recorded by the
 * transaction that makes it; a run that fails its target validation, or reads a table, records none.
 */
class LoadedDirectoriesApiTest {
    @RegisterExtension
    static final TestLedger ledger = new TestLedger();

    private static long recorded(String runId) {
        return ledger.count("SELECT count(*) FROM loadgate.load_run_directory WHERE run_id = '" + runId + "'");
    }

    @Test
    void onlyASuccessRecordsItsDirectoriesAndTheLatestSuccessOfEachKeyIsAnswered() {
        String loaded = Runs.succeeded(ledger, "WM_FILES", "2026-11-30T14",
                Runs.filesManifest("d_20261130-1400/part-0.json", "d_20261130-1410/part-0.json"));
        // The same hour again with a late directory, its target validation failing (29 of 30 rows): nothing recorded.
        String failed = Runs.stagingValidated(ledger, "WM_FILES", "2026-11-30T14",
                Runs.filesManifest("d_20261130-1400/part-0.json", "d_20261130-1410/part-0.json",
                        "d_20261130-1450/part-0.json"));
        UUID token = Runs.publishing(ledger, failed);
        ledger.post("/v1/runs/" + failed + "/publish/result", Map.of("publishToken", token.toString(),
                "outcome", "PUBLISHED", "targetRef", "snapshot-2"));
        ledger.post("/v1/runs/" + failed + "/validations", Map.of("stage", "TARGET", "queryVersion", "v1",
                "metrics", java.util.List.of(Map.of("metricName", "TARGET_COUNT", "expectedValue", "30",
                        "actualValue", "29", "tolerance", "0", "result", "PASS", "details", Map.of()))));
        var verdict = ledger.post("/v1/runs/" + failed + "/success", Map.of("targetCount", 29));
        assertThat(verdict.text("runStatus")).as(verdict.toString()).isEqualTo("FAILED_TARGET_VALIDATION");
        String table = Runs.succeeded(ledger, "WM_FILES", "2026-11-30T15");

        assertThat(recorded(loaded)).isEqualTo(2);
        assertThat(recorded(failed)).as("a failed run records nothing").isZero();
        assertThat(recorded(table)).as("a run planned by a table source").isZero();
        var answer = ledger.send("GET", "/v1/jobs/WM_FILES/loaded-directories", null, ledger.viewerToken);
        assertThat(answer.status()).as(answer.toString()).isEqualTo(200);
        JsonNode keys = answer.body();
        assertThat(keys).hasSize(2);
        assertThat(keys.get(0).get("runId").asText()).isEqualTo(loaded);
        assertThat(keys.get(0).get("directories").toString()).isEqualTo("[\"d_20261130-1400\",\"d_20261130-1410\"]");
        assertThat(keys.get(1).get("businessKey").asText()).isEqualTo("2026-11-30T15");
        assertThat(keys.get(1).get("directories").size()).isZero();
        assertThat(ledger.get("/v1/jobs/NO_SUCH_JOB/loaded-directories").body().size()).isZero();

        // The hour loaded again with its late directory: only that one is late, and the answer is the new run's.
        String again = Runs.succeeded(ledger, "WM_FILES", "2026-11-30T14",
                Runs.filesManifest("d_20261130-1400/part-0.json", "d_20261130-1410/part-0.json",
                        "d_20261130-1450/part-0.json"));
        assertThat(ledger.count("SELECT count(*) FROM loadgate.load_run_directory WHERE late")).isEqualTo(1);
        assertThat(ledger.count("SELECT count(*) FROM loadgate.load_run_directory WHERE late AND run_id = '" + again
                + "' AND directory = 'd_20261130-1450'")).isEqualTo(1);
        JsonNode now = ledger.get("/v1/jobs/WM_FILES/loaded-directories").body();
        assertThat(now.get(0).get("runId").asText()).isEqualTo(again);
        assertThat(now.get(0).get("directories").size()).isEqualTo(3);
    }

    @Test
    void aMalformedJobKeyIs422AndNoTokenIs401() {
        var bad = ledger.get("/v1/jobs/lower/loaded-directories");
        assertThat(bad.status()).as(bad.toString()).isEqualTo(422);
        assertThat(bad.code()).isEqualTo("REQUEST_INVALID");
        assertThat(bad.body().toString()).contains("jobKey");
        assertThat(ledger.send("GET", "/v1/jobs/WM_FILES/loaded-directories", null, null).status()).isEqualTo(401);
    }
}

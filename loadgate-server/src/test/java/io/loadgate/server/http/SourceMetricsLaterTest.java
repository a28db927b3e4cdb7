package io.loadgate.server.http;

import static io.loadgate.server.testing.Runs.chunk;
import static io.loadgate.server.testing.Runs.claim;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.loadgate.server.testing.Runs;
import io.loadgate.server.testing.TestLedger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 14: a manifest that says its source metrics follow ({@code sourceMetricsPending}) lets the partitions extract
 * at once; the staging validation is scheduled only when extraction is complete and the metrics are in, whichever
 * comes last; {@code PUT .../source-metrics} is idempotent; a contract manifest behaves as before.
 */
class SourceMetricsLaterTest {
    private static final Map<String, String> METRICS = Map.of("COUNT", "30", "SUM:amount", "12.50");
    @RegisterExtension
    static final TestLedger ledger = new TestLedger();
    private static int jobs;

    private static String job() {
        return "LATER_" + (++jobs);
    }

    /** A pull-executor run of partitions with these counts, past a manifest whose metrics follow. */
    private static String pending(long... counts) {
        Map<String, Object> body = Runs.create(job(), "2026-11-30");
        body.put("executor", "worker");
        body.put("allowEmptySource", counts[0] == 0);
        var created = ledger.post("/v1/runs", body);
        assertThat(created.status()).as(created.toString()).isEqualTo(200);
        String runId = created.text("runId");
        var manifest = ledger.post("/v1/runs/" + runId + "/manifest", pendingManifest(counts));
        assertThat(manifest.status()).as(manifest.toString()).isEqualTo(200);
        assertThat(manifest.text("status")).isEqualTo(counts[0] == 0 ? "EXTRACTED_VALIDATED" : "EXTRACTING");
        assertThat(manifest.body().get("validationScheduled").asBoolean()).isFalse();
        Runs.remember(ledger, runId);
        return runId;
    }

    private static Map<String, Object> pendingManifest(long... counts) {
        Map<String, Object> manifest = Runs.manifest(counts);
        manifest.remove("sourceMetrics");
        manifest.put("sourceMetricsPending", true);
        return manifest;
    }

    private static TestLedger.Response put(String runId, Map<String, String> metrics) {
        return ledger.send("PUT", "/v1/runs/" + runId + "/source-metrics",
                Map.of("sourceMetrics", metrics, "sourceMetricsVersion", "loadgate-1"), ledger.workerToken);
    }

    private static long validateDispatches(String runId) {
        return ledger.count("SELECT count(*) FROM load_dispatch WHERE dispatch_type = 'VALIDATE_RUN' AND run_id = '"
                + runId + "'");
    }

    private static JsonNode run(String runId) {
        return ledger.get("/v1/runs/" + runId).body();
    }

    @Test
    void extractionEndingFirstLeavesTheValidationToTheMetrics() {
        String runId = pending(30);
        assertThat(ledger.count("SELECT count(*) FROM load_dispatch WHERE dispatch_type = 'EXTRACT_PARTITION'"
                + " AND run_id = '" + runId + "'")).as("extraction dispatched at once").isEqualTo(1);

        var last = Runs.extractAll(ledger, runId, 30);

        assertThat(last.body().get("validationScheduled").asBoolean()).as(last.toString()).isFalse();
        assertThat(validateDispatches(runId)).as("nothing to judge against yet").isZero();
        // No VALIDATE_RUN exists to present; a dispatch of the run gets past the dispatch check to the start itself.
        var early = ledger.post("/v1/runs/" + runId + "/validation/start",
                Map.of("dispatchId", Runs.dispatchOf(ledger, runId, "EXTRACT_PARTITION"), "node", "n1"));
        assertThat(early.body().get("started").asBoolean()).as(early.toString()).isFalse();
        assertThat(early.text("runStatus")).isEqualTo("EXTRACTED_VALIDATED");

        var recorded = put(runId, METRICS);

        assertThat(recorded.status()).as(recorded.toString()).isEqualTo(200);
        assertThat(recorded.text("runStatus")).isEqualTo("EXTRACTED_VALIDATED");
        assertThat(recorded.body().get("changed").asBoolean()).isTrue();
        assertThat(recorded.body().get("validationScheduled").asBoolean()).isTrue();
        assertThat(validateDispatches(runId)).isEqualTo(1);
        var started = ledger.post("/v1/runs/" + runId + "/validation/start",
                Map.of("dispatchId", Runs.dispatchOf(ledger, runId, "VALIDATE_RUN"), "node", "n1"));
        assertThat(started.body().get("started").asBoolean()).as(started.toString()).isTrue();
        assertThat(started.body().get("sourceMetrics").get("SUM:amount").asText()).isEqualTo("12.50");
        assertThat(run(runId).get("sourceMetrics").get("COUNT").asText()).isEqualTo("30");

        var again = put(runId, Map.of("SUM:amount", "12.50", "COUNT", "30"));
        assertThat(again.status()).as("the same metrics, in another order: " + again).isEqualTo(200);
        assertThat(again.body().get("changed").asBoolean()).isFalse();
        assertThat(again.body().get("validationScheduled").asBoolean()).isFalse();
        assertThat(validateDispatches(runId)).isEqualTo(1);
        var other = put(runId, Map.of("COUNT", "31"));
        assertThat(other.status()).as(other.toString()).isEqualTo(409);
        assertThat(other.code()).isEqualTo("SOURCE_METRICS_CONFLICT");
        assertThat(ledger.count("SELECT count(*) FROM load_event WHERE event_type = 'SOURCE_METRICS' AND run_id = '"
                + runId + "'")).isEqualTo(1);
    }

    @Test
    void metricsComingFirstLeaveTheValidationToTheLastChunk() {
        String runId = pending(30);

        var recorded = put(runId, METRICS);

        assertThat(recorded.text("runStatus")).as(recorded.toString()).isEqualTo("EXTRACTING");
        assertThat(recorded.body().get("validationScheduled").asBoolean()).isFalse();
        assertThat(validateDispatches(runId)).isZero();
        var last = Runs.extractAll(ledger, runId, 30);
        assertThat(last.body().get("validationScheduled").asBoolean()).as(last.toString()).isTrue();
        assertThat(validateDispatches(runId)).isEqualTo(1);
    }

    @Test
    void anEmptyRunWaitsForItsMetricsToo() {
        String runId = pending(0);
        assertThat(validateDispatches(runId)).isZero();

        var recorded = put(runId, Map.of("COUNT", "0"));

        assertThat(recorded.body().get("validationScheduled").asBoolean()).as(recorded.toString()).isTrue();
        assertThat(validateDispatches(runId)).isEqualTo(1);
    }

    /** The metrics and the last chunk at the same moment: one of them schedules the validation, never both. */
    @Test
    void metricsAndTheLastChunkTogetherScheduleOneValidation() throws Exception {
        for (int i = 0; i < 5; i++) {
            String runId = pending(30);
            UUID token = UUID.randomUUID();
            ledger.post("/v1/runs/" + runId + "/partitions/0000/claim", claim(token));
            CyclicBarrier barrier = new CyclicBarrier(2);
            var metrics = CompletableFuture.supplyAsync(() -> {
                await(barrier);
                return put(runId, METRICS);
            });
            var chunk = CompletableFuture.supplyAsync(() -> {
                await(barrier);
                return ledger.post("/v1/runs/" + runId + "/partitions/0000/chunks",
                        chunk(runId, token, "0000", 0, 1, 30));
            });
            List<Boolean> scheduled = new ArrayList<>();
            scheduled.add(metrics.get().body().get("validationScheduled").asBoolean());
            scheduled.add(chunk.get().body().get("validationScheduled").asBoolean());
            assertThat(scheduled).as("run " + runId).containsExactlyInAnyOrder(true, false);
            assertThat(validateDispatches(runId)).isEqualTo(1);
        }
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aContractManifestTakesNoLaterMetricsButItsOwnAgain() {
        String runId = Runs.extracting(ledger, job(), "2026-11-30");

        var same = put(runId, Map.of("COUNT", "30"));
        var conflicting = put(runId, Map.of("COUNT", "29"));

        assertThat(same.status()).as("the manifest's own metrics: " + same).isEqualTo(409);
        assertThat(same.code()).as("its version is v1, not loadgate-1").isEqualTo("SOURCE_METRICS_CONFLICT");
        assertThat(conflicting.code()).isEqualTo("SOURCE_METRICS_CONFLICT");
        var own = ledger.send("PUT", "/v1/runs/" + runId + "/source-metrics",
                Map.of("sourceMetrics", Map.of("COUNT", "30"), "sourceMetricsVersion", "v1"), ledger.workerToken);
        assertThat(own.status()).as(own.toString()).isEqualTo(200);
        assertThat(own.body().get("changed").asBoolean()).isFalse();
        var last = Runs.extractAll(ledger, runId, 30);
        assertThat(last.body().get("validationScheduled").asBoolean()).as("as before: " + last).isTrue();
    }

    @Test
    void clientMistakesAre4xxWithCodes() {
        String created = ledger.post("/v1/runs", Runs.create(job(), "2026-11-30")).text("runId");
        assertThat(put(created, METRICS).code()).as("no manifest yet").isEqualTo("RUN_STATUS_MISMATCH");

        var both = pendingManifest(30);
        both.put("sourceMetrics", Map.of("COUNT", "30"));
        var refused = ledger.post("/v1/runs/" + created + "/manifest", both);
        assertThat(refused.status()).as(refused.toString()).isEqualTo(422);
        assertThat(refused.code()).isEqualTo("REQUEST_INVALID");
        assertThat(refused.body().at("/details/errors/0/field").asText()).isEqualTo("sourceMetrics");
        assertThat(run(created).get("status").asText()).as("a bad request changes nothing").isEqualTo("CREATED");

        String runId = pending(30);
        var empty = put(runId, Map.of());
        assertThat(empty.status()).as(empty.toString()).isEqualTo(422);
        assertThat(empty.code()).isEqualTo("REQUEST_INVALID");
        var badName = put(runId, Map.of("COUNT space", "1"));
        assertThat(badName.code()).as(badName.toString()).isEqualTo("REQUEST_INVALID");
        var unknownField = ledger.send("PUT", "/v1/runs/" + runId + "/source-metrics",
                Map.of("sourceMetrics", METRICS, "verdict", "PASS"), ledger.workerToken);
        assertThat(unknownField.code()).as(unknownField.toString()).isEqualTo("REQUEST_INVALID");
        var anonymous = ledger.send("PUT", "/v1/runs/" + runId + "/source-metrics",
                Map.of("sourceMetrics", METRICS), null);
        assertThat(anonymous.status()).isEqualTo(401);
        var viewer = ledger.send("PUT", "/v1/runs/" + runId + "/source-metrics",
                Map.of("sourceMetrics", METRICS), ledger.viewerToken);
        assertThat(viewer.status()).isEqualTo(403);
        assertThat(put(UUID.randomUUID().toString(), METRICS).code()).isEqualTo("RUN_NOT_FOUND");
        var post = ledger.post("/v1/runs/" + runId + "/source-metrics", Map.of("sourceMetrics", METRICS));
        assertThat(post.status()).isEqualTo(405);
        assertThat(run(runId).get("status").asText()).isEqualTo("EXTRACTING");
        assertThat(validateDispatches(runId)).isZero();
    }

    @Test
    void aSubmitterWhoseMeasuringFailedFailsTheRunFromEitherSideOfExtraction() {
        String extracting = pending(30);
        UUID token = UUID.randomUUID();
        ledger.post("/v1/runs/" + extracting + "/partitions/0000/claim", claim(token));
        var failed = fail(extracting, "EXTRACTING");
        assertThat(failed.body().get("changed").asBoolean()).as(failed.toString()).isTrue();
        JsonNode run = run(extracting);
        assertThat(run.get("status").asText()).isEqualTo("FAILED_EXTRACT");
        assertThat(run.get("errorCode").asText()).isEqualTo("SOURCE_METRICS_FAILED");
        assertThat(run.at("/partitions/0/status").asText()).as("its worker stops at its next beat")
                .isEqualTo("FAILED");
        assertThat(put(extracting, METRICS).code()).as("an ended run takes none").isEqualTo("RUN_STATUS_MISMATCH");

        String extracted = pending(30);
        Runs.extractAll(ledger, extracted, 30);
        var late = fail(extracted, "EXTRACTED_VALIDATED");
        assertThat(late.body().get("changed").asBoolean()).as(late.toString()).isTrue();
        assertThat(run(extracted).get("status").asText()).isEqualTo("FAILED_EXTRACT");
        assertThat(fail(extracted, "EXTRACTED_VALIDATED").body().get("changed").asBoolean()).as("again").isFalse();

        String contract = Runs.extracting(ledger, job(), "2026-11-30");
        Runs.extractAll(ledger, contract, 30);
        var refused = fail(contract, "EXTRACTED_VALIDATED");
        assertThat(refused.code()).as("a run with its metrics: " + refused).isEqualTo("FAIL_TRANSITION_NOT_ALLOWED");
        assertThat(run(contract).get("status").asText()).isEqualTo("EXTRACTED_VALIDATED");
    }

    private static TestLedger.Response fail(String runId, String from) {
        return ledger.post("/v1/runs/" + runId + "/fail", Map.of("expectedStatus", from, "failStatus",
                "FAILED_EXTRACT", "errorStage", "SOURCE_METRICS", "errorCode", "SOURCE_METRICS_FAILED",
                "message", "the source metrics could not be measured"));
    }
}

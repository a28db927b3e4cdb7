package io.loadgate.server.http;

import static io.loadgate.server.testing.Runs.create;
import static io.loadgate.server.testing.Runs.manifest;
import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.server.testing.TestLedger;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The hand-offs (extension): the report that completes a worker run's extraction, asking for it, is answered with
 * the run's VALIDATE_RUN dispatch leased to its node in the same transaction, which no poll then gets; its resend by
 * the same request gets it again; a report that does not ask (a NiFi flow) leaves it to the outbox. A passing
 * stage-validated call hands over PUBLISH_RUN, and a PUBLISHED publish/result VALIDATE_TARGET, the same way.
 */
class HandOffApiTest {
    @RegisterExtension
    static final TestLedger ledger = new TestLedger();
    private static int jobs;

    @BeforeEach
    void clear() {
        ledger.execute("TRUNCATE load_run CASCADE");
    }

    /** A worker run of two partitions of 5 rows each, both claimed; returns the run id and the claim tokens. */
    private static Extracting extracting(String executor) {
        Map<String, Object> body = create("HAND_OFF_" + (++jobs), "2026-11-29");
        body.put("executor", executor);
        var created = ledger.post("/v1/runs", body);
        assertThat(created.status()).as(created.toString()).isEqualTo(200);
        String runId = created.text("runId");
        assertThat(ledger.post("/v1/runs/" + runId + "/manifest", manifest(5, 5)).status()).isEqualTo(200);
        UUID first = UUID.randomUUID();
        UUID second = UUID.randomUUID();
        assertThat(ledger.post(partition(runId, "0000") + "/claim", Map.of("claimToken", first, "workerNode", "w"))
                .text("claimed")).isEqualTo("true");
        assertThat(ledger.post(partition(runId, "0001") + "/claim", Map.of("claimToken", second, "workerNode", "w"))
                .text("claimed")).isEqualTo("true");
        return new Extracting(runId, created.text("hdfsRunPath"), first, second);
    }

    private record Extracting(String runId, String hdfsRunPath, UUID first, UUID second) {
    }

    private static String partition(String runId, String partitionId) {
        return "/v1/runs/" + runId + "/partitions/" + partitionId;
    }

    private static Map<String, Object> chunk(UUID token, String runPath, String partitionId, String handOffTo) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("claimToken", token);
        body.put("chunkIndex", 0);
        body.put("chunkCount", 1);
        body.put("fragmentIdentifier", partitionId);
        body.put("hdfsPath", runPath + "/part-" + partitionId + ".parquet");
        body.put("recordCount", 5);
        body.put("byteCount", 100);
        if (handOffTo != null) {
            body.put("handOffTo", handOffTo);
        }
        return body;
    }

    private static TestLedger.Response report(Extracting run, String partitionId, String handOffTo, String requestId) {
        UUID token = partitionId.equals("0000") ? run.first() : run.second();
        return ledger.send("POST", partition(run.runId(), partitionId) + "/chunks",
                chunk(token, run.hdfsRunPath(), partitionId, handOffTo), ledger.workerToken, Map.of("X-Request-Id", requestId));
    }

    private static TestLedger.Response leaseValidation(String node) {
        return ledger.post("/v1/dispatches/lease",
                Map.of("node", node, "types", List.of("VALIDATE_RUN"), "max", 10, "waitSeconds", 0));
    }

    @Test
    void theReportThatCompletesTheExtractionIsHandedTheValidationAndNoPollIs() {
        Extracting run = extracting("worker");
        var notLast = report(run, "0000", "node-a", "r-0");
        assertThat(notLast.status()).as(notLast.toString()).isEqualTo(200);
        assertThat(notLast.body().has("nextDispatch")).as("the extraction is not complete").isFalse();

        var last = report(run, "0001", "node-a", "r-1");
        assertThat(last.status()).as(last.toString()).isEqualTo(200);
        assertThat(last.text("runStatus")).isEqualTo("EXTRACTED_VALIDATED");
        assertThat(last.body().at("/nextDispatch/dispatchType").asText()).isEqualTo("VALIDATE_RUN");
        assertThat(last.body().at("/nextDispatch/runId").asText()).isEqualTo(run.runId());
        assertThat(last.body().at("/nextDispatch/payload/jobKey").asText()).startsWith("HAND_OFF_");
        String dispatchId = last.body().at("/nextDispatch/dispatchId").asText();
        assertThat(ledger.count("SELECT count(*) FROM load_dispatch WHERE dispatch_id = '" + dispatchId
                + "' AND status = 'SENT' AND leased_by = 'node-a' AND attempt_count = 1")).isEqualTo(1);
        assertThat(leaseValidation("node-b").body()).as("no poll gets a dispatch handed off").isEmpty();

        var resent = report(run, "0001", "node-a", "r-1");
        assertThat(resent.body().at("/nextDispatch/dispatchId").asText()).as("a resend after a lost answer")
                .isEqualTo(dispatchId);
        assertThat(report(run, "0001", "node-a", "r-other").body().has("nextDispatch"))
                .as("another request's identical report").isFalse();

        var started = ledger.post("/v1/runs/" + run.runId() + "/validation/start",
                Map.of("dispatchId", dispatchId, "node", "node-a"));
        assertThat(started.text("started")).isEqualTo("true");
        assertThat(ledger.count("SELECT count(*) FROM load_dispatch WHERE dispatch_id = '" + dispatchId
                + "' AND status = 'ACKED'")).as("acknowledged by the step, as a leased one is").isEqualTo(1);
    }

    @Test
    void aReportThatDoesNotAskLeavesTheValidationToTheOutbox() {
        Extracting run = extracting("worker");
        report(run, "0000", null, "r-0");
        var last = report(run, "0001", null, "r-1");
        assertThat(last.text("validationScheduled")).isEqualTo("true");
        assertThat(last.body().has("nextDispatch")).as("a NiFi flow's answer is as before").isFalse();
        var leased = leaseValidation("node-b").body();
        assertThat(leased).as("the poll gets it").hasSize(1);
        assertThat(leased.get(0).get("dispatchType").asText()).isEqualTo("VALIDATE_RUN");
    }

    @Test
    void aRunWhoseStepsAreNotAWorkersHandsNothingOff() {
        Extracting run = extracting("http");
        report(run, "0000", "node-a", "r-0");
        var last = report(run, "0001", "node-a", "r-1");
        assertThat(last.text("runStatus")).isEqualTo("EXTRACTED_VALIDATED");
        assertThat(last.body().has("nextDispatch")).isFalse();
        assertThat(ledger.count("SELECT count(*) FROM load_dispatch WHERE dispatch_type = 'VALIDATE_RUN'"))
                .isEqualTo(1);
        assertThat(ledger.count("SELECT count(*) FROM load_dispatch WHERE dispatch_type = 'VALIDATE_RUN'"
                + " AND leased_by IS NOT NULL")).as("left to the dispatcher, not leased to the reporter").isZero();
    }

    private static TestLedger.Response lease(String node, String type) {
        return ledger.post("/v1/dispatches/lease", Map.of("node", node, "types", List.of(type), "max", 10,
                "waitSeconds", 0));
    }

    /** Both partitions reported, the validation started by node-a and {@code stageCount} recorded: STAGE_VALIDATING. */
    private static Extracting stageValidating(long stageCount) {
        Extracting run = extracting("worker");
        report(run, "0000", null, "r-0");
        report(run, "0001", null, "r-1");
        String validation = lease("node-a", "VALIDATE_RUN").body().get(0).get("dispatchId").asText();
        assertThat(ledger.post("/v1/runs/" + run.runId() + "/validation/start",
                Map.of("dispatchId", validation, "node", "node-a")).text("started")).isEqualTo("true");
        Map<String, Object> metric = new LinkedHashMap<>();
        metric.put("metricName", "STAGE_COUNT");
        metric.put("expectedValue", "10");
        metric.put("actualValue", Long.toString(stageCount));
        metric.put("result", stageCount == 10 ? "PASS" : "FAIL");
        metric.put("details", Map.of());
        var recorded = ledger.post("/v1/runs/" + run.runId() + "/validations",
                Map.of("stage", "STAGING", "queryVersion", "v1", "metrics", List.of(metric)));
        assertThat(recorded.status()).as(recorded.toString()).isEqualTo(200);
        return run;
    }

    private static TestLedger.Response stageValidated(Extracting run, Map<String, Object> body, String requestId) {
        return ledger.send("POST", "/v1/runs/" + run.runId() + "/stage-validated", body, ledger.workerToken,
                Map.of("X-Request-Id", requestId));
    }

    private static TestLedger.Response publishResult(Extracting run, UUID token, String outcome, String handOffTo,
                                                     String requestId) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("publishToken", token);
        body.put("outcome", outcome);
        body.put("handOffTo", handOffTo);
        return ledger.send("POST", "/v1/runs/" + run.runId() + "/publish/result", body, ledger.workerToken,
                Map.of("X-Request-Id", requestId));
    }

    private static String sentTo(String node, TestLedger.Response answer, String type) {
        assertThat(answer.status()).as(answer.toString()).isEqualTo(200);
        assertThat(answer.body().at("/nextDispatch/dispatchType").asText()).as(answer.toString()).isEqualTo(type);
        String dispatchId = answer.body().at("/nextDispatch/dispatchId").asText();
        assertThat(ledger.count("SELECT count(*) FROM load_dispatch WHERE dispatch_id = '" + dispatchId
                + "' AND status = 'SENT' AND leased_by = '" + node + "' AND attempt_count = 1")).isEqualTo(1);
        assertThat(lease("node-b", type).body()).as("no poll gets a dispatch handed off").isEmpty();
        return dispatchId;
    }

    @Test
    void aPassingVerdictIsHandedThePublishAndAPublishedReportTheTargetCheck() {
        Extracting run = stageValidating(10);

        var verdict = stageValidated(run, Map.of("handOffTo", "node-a"), "v-1");
        assertThat(verdict.text("runStatus")).isEqualTo("STAGING_VALIDATED");
        String publish = sentTo("node-a", verdict, "PUBLISH_RUN");
        assertThat(stageValidated(run, Map.of("handOffTo", "node-a"), "v-1").body().at("/nextDispatch/dispatchId")
                .asText()).as("a resend after a lost answer").isEqualTo(publish);
        assertThat(stageValidated(run, Map.of("handOffTo", "node-a"), "v-other").body().has("nextDispatch"))
                .as("another request's call").isFalse();

        UUID token = UUID.randomUUID();
        var claimed = ledger.post("/v1/runs/" + run.runId() + "/publish/claim", Map.of("publishToken", token));
        assertThat(claimed.text("claimed")).isEqualTo("true");
        assertThat(ledger.count("SELECT count(*) FROM load_dispatch WHERE dispatch_id = '" + publish
                + "' AND status = 'ACKED'")).as("acknowledged by the claim, as a leased one is").isEqualTo(1);

        var published = publishResult(run, token, "PUBLISHED", "node-a", "p-1");
        assertThat(published.text("runStatus")).isEqualTo("PUBLISHED");
        assertThat(published.body().has("runId")).as("the contract's answer has no runId").isFalse();
        String target = sentTo("node-a", published, "VALIDATE_TARGET");
        assertThat(publishResult(run, token, "PUBLISHED", "node-a", "p-1").body().at("/nextDispatch/dispatchId")
                .asText()).as("a resend after a lost answer").isEqualTo(target);
        assertThat(publishResult(run, token, "PUBLISHED", "node-a", "p-other").body().has("nextDispatch"))
                .as("another request's report").isFalse();
    }

    @Test
    void aFailingVerdictOrAFailedPublishHandsNothingAndACallThatDoesNotAskLeavesTheStepToTheOutbox() {
        var failed = stageValidated(stageValidating(9), Map.of("handOffTo", "node-a"), "v-1");
        assertThat(failed.text("runStatus")).isEqualTo("FAILED_STAGE_VALIDATION");
        assertThat(failed.body().has("nextDispatch")).isFalse();

        Extracting run = stageValidating(10);
        var verdict = stageValidated(run, Map.of(), "v-2");
        assertThat(verdict.text("runStatus")).isEqualTo("STAGING_VALIDATED");
        assertThat(verdict.body().has("nextDispatch")).as("a NiFi flow's answer is as before").isFalse();
        assertThat(lease("node-b", "PUBLISH_RUN").body()).as("the poll gets it").hasSize(1);

        UUID token = UUID.randomUUID();
        ledger.post("/v1/runs/" + run.runId() + "/publish/claim", Map.of("publishToken", token));
        var notPublished = publishResult(run, token, "FAILED_PUBLISH", "node-a", "p-1");
        assertThat(notPublished.text("runStatus")).isEqualTo("FAILED_PUBLISH");
        assertThat(notPublished.body().has("nextDispatch")).isFalse();
        assertThat(ledger.count("SELECT count(*) FROM load_dispatch WHERE run_id = '" + run.runId()
                + "' AND dispatch_type = 'VALIDATE_TARGET'")).isZero();
    }

    @Test
    void aHandOffToAnOverlongNodeIsRefused() {
        Extracting run = extracting("worker");
        var refused = report(run, "0000", "n".repeat(201), "r-0");
        assertThat(refused.status()).isEqualTo(422);
        assertThat(refused.code()).isEqualTo("REQUEST_INVALID");
        var refusedVerdict = stageValidated(run, Map.of("handOffTo", "n".repeat(201)), "v-1");
        assertThat(refusedVerdict.status()).isEqualTo(422);
        assertThat(refusedVerdict.code()).isEqualTo("REQUEST_INVALID");
        var refusedResult = publishResult(run, UUID.randomUUID(), "PUBLISHED", "n".repeat(201), "p-1");
        assertThat(refusedResult.status()).isEqualTo(422);
        assertThat(refusedResult.code()).isEqualTo("REQUEST_INVALID");
    }
}

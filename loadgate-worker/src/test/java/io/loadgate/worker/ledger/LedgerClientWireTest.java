package io.loadgate.worker.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.loadgate.api.BusinessKey;
import io.loadgate.api.DispatchApi;
import io.loadgate.api.DispatchStatus;
import io.loadgate.api.DispatchType;
import io.loadgate.api.JobKey;
import io.loadgate.api.OperatorApi;
import io.loadgate.api.OperatorApi.Resolution;
import io.loadgate.api.PartitionId;
import io.loadgate.api.RunApi;
import io.loadgate.api.RunId;
import io.loadgate.api.RunStatus;
import io.loadgate.api.StepApi;
import io.loadgate.api.StepApi.Metric;
import io.loadgate.api.StepApi.MetricResult;
import io.loadgate.api.StepApi.PublishOutcome;
import io.loadgate.api.StepApi.Stage;
import io.loadgate.worker.ledger.LedgerClientConfig.Retry;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The endpoints the ledger does not serve yet (issue 3), against the contract's wording: each call's method, path
 * and body as sent, and a contract-shaped answer read back. When the ledger serves them, {@link LedgerClientTest}
 * takes over with round trips.
 */
class LedgerClientWireTest {
    private static final RunId RUN = RunId.of("6f1c1c8e-0000-4000-8000-000000000001");

    /** Answers each request with the next canned body, 200. */
    private static <T> Sent<T> call(String answer, Function<LedgerClient, T> call) {
        Deque<String> answers = new ArrayDeque<>(List.of(answer));
        try (var stub = new StubLedger((n, exchange, request) -> StubLedger.json(exchange, 200, answers.pop()))) {
            var client = HttpLedgerClient.create(LedgerClientConfig.builder(stub.uri(), LedgerToken.of("tok"))
                    .retry(Retry.NONE).build());
            T result = call.apply(client);
            assertThat(stub.requests).hasSize(1);
            return new Sent<>(stub.requests.get(0), result);
        }
    }

    private record Sent<T>(StubLedger.Request request, T result) {
        JsonNode body() {
            try {
                return HttpLedgerClient.JSON.readTree(request.body());
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }
    }

    @Test
    void startValidationSendsTheDispatchAndReadsTheFileList() {
        UUID dispatch = UUID.randomUUID();
        var sent = call("""
                {"started":true,"runStatus":"STAGE_VALIDATING","jobKey":"J","businessKey":"K","snapshotScn":"123",
                 "hdfsRunPath":"/s/J/run_id=x","stageTable":"stg_x","sourceCount":30,"extractedCount":30,
                 "sourceMetrics":{"COUNT":"30"},"files":[{"partitionId":"0000","chunkIndex":0,"hdfsPath":"/s/a.parquet",
                 "recordCount":30,"byteCount":300,"checksum":"c0"}]}""",
                c -> c.startValidation(RUN, new StepApi.StartValidation(dispatch, "node-1")));

        assertThat(sent.request().method() + " " + sent.request().path()).isEqualTo("POST /v1/runs/" + RUN + "/validation/start");
        assertThat(sent.body().get("dispatchId").asText()).isEqualTo(dispatch.toString());
        assertThat(sent.body().get("node").asText()).isEqualTo("node-1");
        assertThat(sent.request().authorization()).isEqualTo("Bearer tok");
        assertThat(sent.result().started()).isTrue();
        assertThat(sent.result().files()).singleElement().satisfies(f -> assertThat(f.recordCount()).isEqualTo(30));
        assertThat(sent.result().sourceMetrics()).containsEntry("COUNT", "30");
    }

    @Test
    void validationsCarryExactDecimalsAsStrings() {
        var sent = call("{\"recorded\":1,\"failCount\":0,\"runStatus\":\"STAGE_VALIDATING\"}",
                c -> c.recordValidations(RUN, new StepApi.Validations(Stage.STAGING, "q1", List.of(
                        new Metric("SUM_AMOUNT", "12345678901234567890.12", "12345678901234567890.12", null,
                                MetricResult.PASS, Map.of("column", "amount"))))));

        assertThat(sent.request().path()).isEqualTo("/v1/runs/" + RUN + "/validations");
        JsonNode metric = sent.body().get("metrics").get(0);
        assertThat(sent.body().get("stage").asText()).isEqualTo("STAGING");
        assertThat(metric.get("expectedValue").isTextual()).isTrue();
        assertThat(metric.get("expectedValue").asText()).isEqualTo("12345678901234567890.12");
        assertThat(metric.has("tolerance")).as("nulls are left out").isFalse();
        assertThat(sent.result().recorded()).isEqualTo(1);
    }

    @Test
    void stageValidatedSendsAnEmptyObject() {
        var sent = call("{\"stageValidated\":false,\"runStatus\":\"STAGE_VALIDATING\",\"reasons\":[\"NO_METRICS\"]}",
                c -> c.stageValidated(RUN));
        assertThat(sent.request().body()).isEqualTo("{}");
        assertThat(sent.result().reasons()).containsExactly("NO_METRICS");
    }

    @Test
    void aHandOffIsAskedForByNodeAndAnsweredWithTheLeasedDispatch() {
        String leased = "{\"dispatchId\":\"00000000-0000-4000-8000-000000000009\",\"runId\":\"" + RUN.value()
                + "\",\"dispatchType\":\"%s\",\"partitionId\":null,\"payload\":{\"jobKey\":\"J\"}}";
        var verdict = call("{\"stageValidated\":true,\"runStatus\":\"STAGING_VALIDATED\",\"reasons\":[],"
                + "\"nextDispatch\":" + leased.formatted("PUBLISH_RUN") + "}",
                c -> c.stageValidated(RUN, new StepApi.StageValidated("node-a")));
        assertThat(verdict.request().body()).isEqualTo("{\"handOffTo\":\"node-a\"}");
        assertThat(verdict.result().nextDispatch().dispatchType()).isEqualTo(DispatchType.PUBLISH_RUN);
        assertThat(verdict.result().nextDispatch().payload()).containsEntry("jobKey", "J");

        var published = call("{\"runStatus\":\"PUBLISHED\",\"changed\":true,\"nextDispatch\":"
                + leased.formatted("VALIDATE_TARGET") + "}", c -> c.publishResult(RUN, new StepApi.PublishResult(
                        UUID.randomUUID(), PublishOutcome.PUBLISHED, null, null, "snapshot-42", "node-a")));
        assertThat(published.body().get("handOffTo").asText()).isEqualTo("node-a");
        assertThat(published.result().nextDispatch().dispatchType()).isEqualTo(DispatchType.VALIDATE_TARGET);
    }

    @Test
    void publishClaimResultAndSuccess() {
        UUID token = UUID.randomUUID();
        var claim = call("{\"claimed\":true,\"runStatus\":\"PUBLISHING\"}", c -> c.publishClaim(RUN, token));
        assertThat(claim.request().path()).endsWith("/publish/claim");
        assertThat(claim.body().get("publishToken").asText()).isEqualTo(token.toString());

        var result = call("{\"runStatus\":\"PUBLISHED\",\"changed\":true}", c -> c.publishResult(RUN,
                new StepApi.PublishResult(token, PublishOutcome.PUBLISHED, null, null, "snapshot-42")));
        assertThat(result.request().path()).endsWith("/publish/result");
        assertThat(result.body().get("outcome").asText()).isEqualTo("PUBLISHED");
        assertThat(result.body().get("targetRef").asText()).isEqualTo("snapshot-42");
        assertThat(result.body().has("handOffTo")).as("no hand-off asked, none sent").isFalse();
        assertThat(result.result().changed()).isTrue();
        assertThat(result.result().nextDispatch()).isNull();

        var success = call("{\"success\":true,\"runStatus\":\"SUCCESS\",\"reasons\":[]}", c -> c.success(RUN, 50));
        assertThat(success.request().body()).isEqualTo("{\"targetCount\":50}");
        assertThat(success.result().runStatus()).isEqualTo(RunStatus.SUCCESS);
    }

    @Test
    void aVerdictsCallCarriesItsStagesMetricsAndAClaimItsFiles() {
        var metric = new StepApi.Metric("STAGE_COUNT", "50", "50", null, StepApi.MetricResult.PASS, Map.of());
        var verdict = call("{\"stageValidated\":true,\"runStatus\":\"STAGING_VALIDATED\",\"reasons\":[]}",
                c -> c.stageValidated(RUN, new StepApi.StageValidated(null, "loadgate-1", List.of(metric))));
        assertThat(verdict.request().body()).isEqualTo("{\"queryVersion\":\"loadgate-1\",\"metrics\":[{"
                + "\"metricName\":\"STAGE_COUNT\",\"expectedValue\":\"50\",\"actualValue\":\"50\","
                + "\"result\":\"PASS\",\"details\":{}}]}");

        var success = call("{\"success\":true,\"runStatus\":\"SUCCESS\",\"reasons\":[]}",
                c -> c.success(RUN, new StepApi.Success(50, "loadgate-1", List.of(metric))));
        assertThat(success.body().get("targetCount").asLong()).isEqualTo(50);
        assertThat(success.body().get("queryVersion").asText()).isEqualTo("loadgate-1");
        assertThat(success.body().at("/metrics/0/metricName").asText()).isEqualTo("STAGE_COUNT");

        var claim = call("{\"claimed\":true,\"runStatus\":\"PUBLISHING\",\"publishGeneration\":1,"
                + "\"publishWithinMs\":1000,\"files\":[{\"partitionId\":\"0000\",\"chunkIndex\":0,"
                + "\"hdfsPath\":\"/stage/a.parquet\",\"recordCount\":50,\"byteCount\":900,\"checksum\":\"c0\","
                + "\"kind\":\"DATA\"}]}", c -> c.publishClaim(RUN, UUID.randomUUID()));
        assertThat(claim.result().files()).extracting(StepApi.StagedFile::hdfsPath, StepApi.StagedFile::recordCount)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("/stage/a.parquet", 50L));
    }

    @Test
    void operatorResolveProbeAndResend() {
        var resolve = call("{\"runId\":\"" + RUN + "\",\"runStatus\":\"PUBLISHED\",\"changed\":true}",
                c -> c.resolvePublishUnknown(RUN, new OperatorApi.Resolve(Resolution.PUBLISHED, "snapshot 42 is there")));
        assertThat(resolve.request().path()).isEqualTo("/v1/runs/" + RUN + "/publish-unknown/resolve");
        assertThat(resolve.body().get("resolution").asText()).isEqualTo("PUBLISHED");
        assertThat(resolve.body().get("reason").asText()).isEqualTo("snapshot 42 is there");

        var probe = call("{\"runId\":\"" + RUN + "\",\"runStatus\":\"FAILED_PUBLISH\",\"changed\":true}",
                c -> c.probePublishUnknown(RUN, new OperatorApi.PublishProbe(UUID.randomUUID(), false, null, true, Map.of())));
        assertThat(probe.request().path()).isEqualTo("/v1/runs/" + RUN + "/publish-unknown/probe");
        assertThat(probe.result().runStatus()).isEqualTo(RunStatus.FAILED_PUBLISH);

        UUID dispatch = UUID.randomUUID();
        var resend = call("{\"dispatchId\":\"" + dispatch + "\",\"status\":\"PENDING\"}",
                c -> c.resendDispatch(RUN, dispatch));
        assertThat(resend.request().path()).isEqualTo("/v1/runs/" + RUN + "/dispatches/" + dispatch + "/resend");
        assertThat(resend.result().status()).isEqualTo(DispatchStatus.PENDING);

        var rollback = call("{\"runId\":\"" + RUN + "\",\"runStatus\":\"SUCCESS\",\"changed\":true}",
                c -> c.recordRollback(RUN, new OperatorApi.Rollback("bad source day", "8813")));
        assertThat(rollback.request().path()).isEqualTo("/v1/runs/" + RUN + "/rollback");
        assertThat(rollback.body().get("reason").asText()).isEqualTo("bad source day");
        assertThat(rollback.body().get("targetRef").asText()).isEqualTo("8813");
        assertThat(rollback.result().runStatus()).isEqualTo(RunStatus.SUCCESS);
    }

    @Test
    void leaseSendsNodeTypesMaxAndWait() {
        UUID dispatch = UUID.randomUUID();
        var sent = call("[{\"dispatchId\":\"" + dispatch + "\",\"runId\":\"" + RUN + "\",\"dispatchType\":\"EXTRACT_PARTITION\","
                        + "\"partitionId\":\"0003\",\"payload\":{\"snapshotScn\":\"9\",\"snapshotRef\":null}}]",
                c -> c.leaseDispatches(new DispatchApi.Lease("node-1",
                        List.of(DispatchType.EXTRACT_PARTITION, DispatchType.VALIDATE_RUN), 4, 1)));

        assertThat(sent.request().path()).isEqualTo("/v1/dispatches/lease");
        assertThat(sent.body().get("types").toString()).isEqualTo("[\"EXTRACT_PARTITION\",\"VALIDATE_RUN\"]");
        assertThat(sent.body().get("max").asInt()).isEqualTo(4);
        assertThat(sent.body().get("waitSeconds").asInt()).isEqualTo(1);
        assertThat(sent.result()).singleElement().satisfies(d -> {
            assertThat(d.partitionId()).isEqualTo(PartitionId.of("0003"));
            assertThat(d.payload()).containsEntry("snapshotScn", "9").containsEntry("snapshotRef", null);
        });
    }

    @Test
    void cleanupAndMonitor() {
        var candidates = call("[{\"runId\":\"" + RUN + "\",\"jobKey\":\"J\",\"status\":\"SUCCESS\",\"stageTable\":\"t\"}]",
                LedgerClient::cleanupCandidates);
        assertThat(candidates.request().method() + " " + candidates.request().path()).isEqualTo("GET /v1/cleanup/candidates");
        assertThat(candidates.result()).singleElement().satisfies(c -> assertThat(c.stageTable()).isEqualTo("t"));

        var cleanup = call("{\"runId\":\"" + RUN + "\",\"changed\":false}",
                c -> c.cleanup(RUN, new OperatorApi.Cleanup("stg_x", "/s/J/run_id=x")));
        assertThat(cleanup.body().get("droppedTable").asText()).isEqualTo("stg_x");
        assertThat(cleanup.result().changed()).isFalse();

        var summary = call("{\"runs\":{\"SUCCESS\":3},\"deadDispatches\":0}", LedgerClient::monitorSummary);
        assertThat(summary.result().fields()).containsKeys("runs", "deadDispatches");
    }

    @Test
    void listQueryParametersAreEncoded() {
        var sent = call("[]", c -> c.listRuns(new RunApi.RunFilter(JobKey.of("J_1"), BusinessKey.of("2026-11-30:a"), RunStatus.PUBLISH_UNKNOWN, 7)));
        assertThat(sent.request().query()).isEqualTo("jobKey=J_1&businessKey=2026-11-30%3Aa&status=PUBLISH_UNKNOWN&limit=7");
    }
}

package io.loadgate.server.http;

import io.javalin.http.Context;
import io.loadgate.api.ErrorCode;
import io.loadgate.api.RunId;
import io.loadgate.api.StepApi;
import io.loadgate.ledger.Ledger;
import io.loadgate.ledger.LedgerException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** {@code /v1/runs/{runId}/...}: validation, publish and success — the steps after extraction. */
final class StepRoutes {
    private static final String RUN = "/v1/runs/{runId}";

    private StepRoutes() {
    }

    static void register(ApiServer.Routes routes, Ledger ledger) {
        routes.post(RUN + "/validation/start", ApiServer.WORKER, ctx -> startValidation(ctx, ledger));
        routes.post(RUN + "/validation/heartbeat", ApiServer.WORKER, ctx -> validationHeartbeat(ctx, ledger));
        routes.post(RUN + "/validations", ApiServer.WORKER, ctx -> recordValidations(ctx, ledger));
        routes.get(RUN + "/validations", ApiServer.READERS, ctx -> listValidations(ctx, ledger));
        routes.get(RUN + "/files", ApiServer.READERS, ctx -> ApiServer.ok(ctx,
                ledger.validations().files(ApiServer.runId(ctx))));
        routes.post(RUN + "/stage-validated", ApiServer.WORKER, ctx -> stageValidated(ctx, ledger));
        routes.post(RUN + "/publish/claim", ApiServer.WORKER, ctx -> publishClaim(ctx, ledger));
        routes.post(RUN + "/publish/result", ApiServer.WORKER, ctx -> publishResult(ctx, ledger));
        routes.post(RUN + "/success", ApiServer.WORKER, ctx -> success(ctx, ledger));
    }

    private static void startValidation(Context ctx, Ledger ledger) {
        RunId runId = ApiServer.runId(ctx);
        RequestBody body = RequestBody.parse(ctx.body());
        UUID dispatchId = body.uuid("dispatchId", true);
        String node = body.string("node", false, 200);
        body.finish();
        ApiServer.ok(ctx, ledger.validations().start(runId, new StepApi.StartValidation(dispatchId, node)));
    }

    private static void validationHeartbeat(Context ctx, Ledger ledger) {
        RunId runId = ApiServer.runId(ctx);
        RequestBody body = RequestBody.parse(ctx.body());
        UUID dispatchId = body.uuid("dispatchId", true);
        String node = body.string("node", false, 200);
        body.finish();
        ApiServer.ok(ctx, ledger.validations().heartbeat(runId, new StepApi.StartValidation(dispatchId, node)));
    }

    private static void recordValidations(Context ctx, Ledger ledger) {
        RunId runId = ApiServer.runId(ctx);
        RequestBody body = RequestBody.parse(ctx.body());
        StepApi.Stage stage = body.enumValue("stage", true, StepApi.Stage.class);
        String queryVersion = body.string("queryVersion", true, Formats.CODE);
        List<RequestBody> items = body.objects("metrics", true, 1, 500);
        List<StepApi.Metric> metrics = new ArrayList<>();
        if (items != null) {
            for (RequestBody item : items) {
                String name = item.string("metricName", true, 150, Formats.METRIC_NAME);
                String expected = item.decimalText("expectedValue", false, Formats.MESSAGE);
                String actual = item.decimalText("actualValue", false, Formats.MESSAGE);
                String tolerance = item.decimalText("tolerance", false, Formats.CODE);
                StepApi.MetricResult result = item.enumValue("result", true, StepApi.MetricResult.class);
                Map<String, Object> details = item.object("details", false);
                item.finishItem();
                if (name != null && result != null) {
                    metrics.add(new StepApi.Metric(name, expected, actual, tolerance, result, details));
                }
            }
        }
        body.finish();
        ApiServer.ok(ctx, ledger.validations().record(runId, new StepApi.Validations(stage, queryVersion, metrics)));
    }

    private static void listValidations(Context ctx, Ledger ledger) {
        RunId runId = ApiServer.runId(ctx);
        String stage = ctx.queryParam("stage");
        StepApi.Stage s = null;
        if (stage != null) {
            try {
                s = StepApi.Stage.valueOf(stage);
            } catch (IllegalArgumentException e) {
                throw new LedgerException.Invalid(ErrorCode.REQUEST_INVALID, "stage must be STAGING or TARGET",
                        Map.of("errors", List.of(RequestBody.error("stage", "must be STAGING or TARGET"))));
            }
        }
        ApiServer.ok(ctx, ledger.validations().list(runId, s));
    }

    private static void stageValidated(Context ctx, Ledger ledger) {
        RunId runId = ApiServer.runId(ctx);
        RequestBody body = RequestBody.parse(ctx.body() == null || ctx.body().isBlank() ? "{}" : ctx.body());
        String handOffTo = body.string("handOffTo", false, 200);
        body.finish();
        var verdict = ledger.validations().stageValidated(runId, ApiServer.actor(ctx), handOffTo,
                ctx.attribute("requestId"));
        ApiServer.ok(ctx, new StepApi.StageVerdict(verdict.passed(), verdict.runStatus(), verdict.reasons(),
                verdict.nextDispatch().orElse(null)));
    }

    private static void publishClaim(Context ctx, Ledger ledger) {
        RunId runId = ApiServer.runId(ctx);
        RequestBody body = RequestBody.parse(ctx.body());
        UUID token = body.uuid("publishToken", true);
        body.finish();
        // Loadgate extensions, present when claimed: the publish's fence (NiFi clients ignore them).
        ApiServer.ok(ctx, ledger.publishing().claim(runId, new StepApi.ClaimPublish(token), ApiServer.actor(ctx)));
    }

    private static void publishResult(Context ctx, Ledger ledger) {
        RunId runId = ApiServer.runId(ctx);
        RequestBody body = RequestBody.parse(ctx.body());
        UUID token = body.uuid("publishToken", true);
        StepApi.PublishOutcome outcome = body.enumValue("outcome", true, StepApi.PublishOutcome.class);
        String code = body.string("errorCode", false, Formats.CODE);
        String message = body.string("message", false, Formats.MESSAGE);
        String targetRef = body.string("targetRef", false, Formats.MESSAGE);
        String handOffTo = body.string("handOffTo", false, 200);
        body.finish();
        var result = ledger.publishing().result(runId,
                new StepApi.PublishResult(token, outcome, code, message, targetRef, handOffTo), ApiServer.actor(ctx),
                ctx.attribute("requestId"));
        ApiServer.ok(ctx, new StepApi.PublishRecorded(result.runStatus(), result.changed(),
                result.nextDispatch().orElse(null)));
    }

    private static void success(Context ctx, Ledger ledger) {
        RunId runId = ApiServer.runId(ctx);
        RequestBody body = RequestBody.parse(ctx.body() == null || ctx.body().isBlank() ? "{}" : ctx.body());
        Long targetCount = body.integer("targetCount", false, 0, Long.MAX_VALUE);
        body.finish();
        var verdict = ledger.validations().success(runId, targetCount, ApiServer.actor(ctx));
        ApiServer.ok(ctx, new StepApi.SuccessResult(verdict.passed(), verdict.runStatus(), verdict.reasons()));
    }
}

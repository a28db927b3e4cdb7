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
import java.util.Optional;
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
        ApiServer.ok(ctx, ledger.validations().start(runId, validationOwner(ctx)));
    }

    private static void validationHeartbeat(Context ctx, Ledger ledger) {
        RunId runId = ApiServer.runId(ctx);
        ApiServer.ok(ctx, ledger.validations().heartbeat(runId, validationOwner(ctx)));
    }

    /** The body of a validation's start and of its heartbeat: which dispatch runs it, on which node. */
    private static StepApi.StartValidation validationOwner(Context ctx) {
        RequestBody body = RequestBody.parse(ctx.body());
        UUID dispatchId = body.uuid("dispatchId", true);
        String node = body.string("node", false, 200);
        body.finish();
        return new StepApi.StartValidation(dispatchId, node);
    }

    private static void recordValidations(Context ctx, Ledger ledger) {
        RunId runId = ApiServer.runId(ctx);
        RequestBody body = RequestBody.parse(ctx.body());
        StepApi.Stage stage = body.enumValue("stage", true, StepApi.Stage.class);
        String queryVersion = body.string("queryVersion", true, Formats.CODE);
        List<StepApi.Metric> metrics = metrics(body, true);
        body.finish();
        ApiServer.ok(ctx, ledger.validations().record(runId, new StepApi.Validations(stage, queryVersion, metrics)));
    }

    /** A body's {@code metrics} (1..500), as {@code POST .../validations} takes them; null when absent. */
    private static List<StepApi.Metric> metrics(RequestBody body, boolean required) {
        List<RequestBody> items = body.objects("metrics", required, 1, 500);
        if (items == null) {
            return null;
        }
        List<StepApi.Metric> metrics = new ArrayList<>();
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
        return metrics;
    }

    /**
     * The metrics a verdict's call carries (extension: {@code queryVersion} and {@code metrics}, both or neither),
     * stored in the verdict's transaction as {@code POST .../validations} stores them.
     */
    private static Optional<StepApi.Validations> verdictMetrics(RequestBody body, StepApi.Stage stage) {
        String queryVersion = body.string("queryVersion", false, Formats.CODE);
        List<StepApi.Metric> metrics = metrics(body, false);
        body.check("queryVersion", queryVersion != null || metrics == null, "is required with metrics");
        body.check("metrics", metrics != null || queryVersion == null, "is required with queryVersion");
        return metrics == null || queryVersion == null ? Optional.empty()
                : Optional.of(new StepApi.Validations(stage, queryVersion, metrics));
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
        RequestBody body = RequestBody.parseOptional(ctx.body());
        String handOffTo = body.string("handOffTo", false, 200);
        Optional<StepApi.Validations> metrics = verdictMetrics(body, StepApi.Stage.STAGING);
        body.finish();
        var verdict = ledger.validations().stageValidated(runId, ApiServer.actor(ctx), handOffTo,
                ctx.attribute("requestId"), metrics);
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
        RequestBody body = RequestBody.parseOptional(ctx.body());
        Long targetCount = body.integer("targetCount", false, 0, Long.MAX_VALUE);
        Optional<StepApi.Validations> metrics = verdictMetrics(body, StepApi.Stage.TARGET);
        body.finish();
        var verdict = ledger.validations().success(runId, targetCount, ApiServer.actor(ctx), metrics);
        ApiServer.ok(ctx, new StepApi.SuccessResult(verdict.passed(), verdict.runStatus(), verdict.reasons()));
    }
}

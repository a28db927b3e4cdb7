package io.loadgate.server.http;

import io.javalin.http.Context;
import io.loadgate.ledger.Ledger;
import io.loadgate.ledger.LedgerException;
import io.loadgate.ledger.publish.Publishing;
import io.loadgate.ledger.validation.Metric;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
        UUID runId = ApiServer.runId(ctx);
        RequestBody body = RequestBody.parse(ctx.body());
        UUID dispatchId = body.uuid("dispatchId", true);
        String node = body.string("node", false, 200);
        body.finish();
        ApiServer.ok(ctx, ledger.validations().start(runId, dispatchId, node));
    }

    private static void validationHeartbeat(Context ctx, Ledger ledger) {
        UUID runId = ApiServer.runId(ctx);
        RequestBody body = RequestBody.parse(ctx.body());
        UUID dispatchId = body.uuid("dispatchId", true);
        String node = body.string("node", false, 200);
        body.finish();
        var beat = ledger.validations().heartbeat(runId, dispatchId, node);
        ApiServer.ok(ctx, Map.of("validating", beat.validating(), "runStatus", beat.runStatus().name()));
    }

    private static void recordValidations(Context ctx, Ledger ledger) {
        UUID runId = ApiServer.runId(ctx);
        RequestBody body = RequestBody.parse(ctx.body());
        Metric.Stage stage = body.enumValue("stage", true, Metric.Stage.class);
        String queryVersion = body.string("queryVersion", true, Formats.CODE);
        List<RequestBody> items = body.objects("metrics", true, 1, 500);
        List<Metric> metrics = new ArrayList<>();
        if (items != null) {
            for (RequestBody item : items) {
                String name = item.string("metricName", true, 150, Formats.METRIC_NAME);
                String expected = item.decimalText("expectedValue", false, Formats.MESSAGE);
                String actual = item.decimalText("actualValue", false, Formats.MESSAGE);
                String tolerance = item.decimalText("tolerance", false, Formats.CODE);
                Metric.Result result = item.enumValue("result", true, Metric.Result.class);
                Map<String, Object> details = item.object("details", false);
                item.finishItem();
                if (name != null && result != null) {
                    metrics.add(new Metric(name, expected, actual, tolerance, result, details));
                }
            }
        }
        body.finish();
        var recorded = ledger.validations().record(runId, stage, queryVersion, metrics);
        Map<String, Object> response = new LinkedHashMap<>();
        response.put("recorded", recorded.recorded());
        response.put("failCount", recorded.failCount());
        response.put("runStatus", recorded.runStatus().name());
        ApiServer.ok(ctx, response);
    }

    private static void listValidations(Context ctx, Ledger ledger) {
        UUID runId = ApiServer.runId(ctx);
        String stage = ctx.queryParam("stage");
        Metric.Stage s = null;
        if (stage != null) {
            try {
                s = Metric.Stage.valueOf(stage);
            } catch (IllegalArgumentException e) {
                throw new LedgerException.Invalid("REQUEST_INVALID", "stage must be STAGING or TARGET",
                        Map.of("errors", List.of(RequestBody.error("stage", "must be STAGING or TARGET"))));
            }
        }
        ApiServer.ok(ctx, ledger.validations().list(runId, s));
    }

    private static void stageValidated(Context ctx, Ledger ledger) {
        UUID runId = ApiServer.runId(ctx);
        RequestBody.parse(ctx.body() == null || ctx.body().isBlank() ? "{}" : ctx.body()).finish();
        var verdict = ledger.validations().stageValidated(runId, ApiServer.actor(ctx));
        Map<String, Object> response = new LinkedHashMap<>();
        response.put("stageValidated", verdict.passed());
        response.put("runStatus", verdict.runStatus().name());
        response.put("reasons", verdict.reasons());
        ApiServer.ok(ctx, response);
    }

    private static void publishClaim(Context ctx, Ledger ledger) {
        UUID runId = ApiServer.runId(ctx);
        RequestBody body = RequestBody.parse(ctx.body());
        UUID token = body.uuid("publishToken", true);
        body.finish();
        var claim = ledger.publishing().claim(runId, token, ApiServer.actor(ctx));
        Map<String, Object> response = new LinkedHashMap<>();
        response.put("claimed", claim.claimed());
        response.put("runStatus", claim.runStatus().name());
        // Loadgate extensions, present when claimed: the publish's fence (NiFi clients ignore them).
        if (claim.claimed()) {
            response.put("publishGeneration", claim.publishGeneration());
            response.put("publishWithinMs", claim.publishWithinMs());
        }
        ApiServer.ok(ctx, response);
    }

    private static void publishResult(Context ctx, Ledger ledger) {
        UUID runId = ApiServer.runId(ctx);
        RequestBody body = RequestBody.parse(ctx.body());
        UUID token = body.uuid("publishToken", true);
        Publishing.Outcome outcome = body.enumValue("outcome", true, Publishing.Outcome.class);
        String code = body.string("errorCode", false, Formats.CODE);
        String message = body.string("message", false, Formats.MESSAGE);
        String targetRef = body.string("targetRef", false, Formats.MESSAGE);
        body.finish();
        var result = ledger.publishing().result(runId, token, outcome, code, message, targetRef, ApiServer.actor(ctx));
        ApiServer.ok(ctx, Map.of("runStatus", result.runStatus().name(), "changed", result.changed()));
    }

    private static void success(Context ctx, Ledger ledger) {
        UUID runId = ApiServer.runId(ctx);
        RequestBody body = RequestBody.parse(ctx.body() == null || ctx.body().isBlank() ? "{}" : ctx.body());
        Long targetCount = body.integer("targetCount", false, 0, Long.MAX_VALUE);
        body.finish();
        var verdict = ledger.validations().success(runId, targetCount, ApiServer.actor(ctx));
        Map<String, Object> response = new LinkedHashMap<>();
        response.put("success", verdict.passed());
        response.put("runStatus", verdict.runStatus().name());
        response.put("reasons", verdict.reasons());
        ApiServer.ok(ctx, response);
    }
}

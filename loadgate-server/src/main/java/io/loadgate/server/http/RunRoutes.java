package io.loadgate.server.http;

import io.javalin.http.Context;
import io.loadgate.api.BusinessKey;
import io.loadgate.api.ErrorCode;
import io.loadgate.api.Executor;
import io.loadgate.api.JobKey;
import io.loadgate.api.RunApi;
import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunStatus;
import io.loadgate.ledger.Ledger;
import io.loadgate.ledger.LedgerException;
import io.loadgate.ledger.run.Manifest;
import io.loadgate.ledger.run.RunTransitions;
import io.loadgate.ledger.run.RunViews;
import io.loadgate.server.auth.Role;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** {@code /v1/runs}: create, manifest, fail, and the reads. */
final class RunRoutes {
    /** The header (an extension) that makes a create idempotent for its caller. */
    static final String IDEMPOTENCY_KEY = "Idempotency-Key";

    private RunRoutes() {
    }

    static void register(ApiServer.Routes routes, Ledger ledger) {
        routes.post("/v1/runs", ApiServer.WORKER, ctx -> create(ctx, ledger));
        routes.post("/v1/runs/{runId}/manifest", ApiServer.WORKER, ctx -> manifest(ctx, ledger));
        routes.put("/v1/runs/{runId}/source-metrics", ApiServer.WORKER, ctx -> sourceMetrics(ctx, ledger));
        routes.post("/v1/runs/{runId}/fail", ApiServer.WORKER, ctx -> fail(ctx, ledger));
        routes.post("/v1/runs/{runId}/heartbeat", ApiServer.WORKER, ctx -> heartbeat(ctx, ledger));
        routes.get("/v1/runs", ApiServer.READERS, ctx -> list(ctx, ledger));
        routes.get("/v1/runs/{runId}", ApiServer.READERS, ctx -> ApiServer.ok(ctx, forCaller(ctx, ledger.views()
                .run(ApiServer.runId(ctx)).orElseThrow(() -> RunTransitions.notFound(ctx.pathParam("runId"))))));
        routes.get("/v1/runs/{runId}/events", ApiServer.READERS, ctx -> events(ctx, ledger));
        routes.get("/v1/jobs/{jobKey}/loaded-directories", ApiServer.READERS, ctx -> loadedDirectories(ctx, ledger));
    }

    /** A viewer reads a run without its parameters (see {@link RunView#withoutParameters}). */
    private static RunView forCaller(Context ctx, RunView run) {
        return ApiServer.role(ctx) == Role.VIEWER ? run.withoutParameters() : run;
    }

    /** The watermark of a file job (extension): per key, its latest SUCCESS run and the directories it loaded. */
    private static void loadedDirectories(Context ctx, Ledger ledger) {
        QueryParams params = new QueryParams();
        String jobKey = params.matching("jobKey", ctx.pathParam("jobKey"), Formats.JOB_KEY);
        params.finish("invalid path");
        ApiServer.ok(ctx, ledger.watermarks().loaded(jobKey));
    }

    private static void create(Context ctx, Ledger ledger) {
        RequestBody body = RequestBody.parse(ctx.body());
        String jobKey = body.string("jobKey", true, 200, Formats.JOB_KEY);
        String businessKey = body.string("businessKey", true, 200, Formats.BUSINESS_KEY);
        String hdfsRoot = body.string("hdfsRoot", true, Formats.PATH);
        String prefix = body.string("stageTablePrefix", true, 61, Formats.STAGE_TABLE_PREFIX);
        boolean allowEmpty = body.bool("allowEmptySource", false, false);
        Map<String, Object> parameters = body.object("parameters", false);
        String executor = body.string("executor", false, 10, Formats.EXECUTOR);
        var recoveryMode = body.enumValue("recoveryMode", false, io.loadgate.ledger.LedgerSettings.RecoveryMode.class);
        RunApi.AfterRun afterRun = afterRun(body);
        String createKey = ctx.header(IDEMPOTENCY_KEY);
        body.check(IDEMPOTENCY_KEY, createKey == null || Formats.IDEMPOTENCY_KEY.matcher(createKey).matches(),
                "header must be 1 to 200 visible ASCII characters");
        body.finish();
        var created = ledger.runs().create(new RunApi.CreateRun(JobKey.of(jobKey), BusinessKey.of(businessKey), hdfsRoot, prefix,
                allowEmpty, parameters, executor == null ? Executor.HTTP : Executor.fromWire(executor),
                recoveryMode == null ? null : recoveryMode.name(), afterRun), ApiServer.actor(ctx), createKey);
        if (created.replayed()) {
            ctx.header("Idempotent-Replayed", "true");
        }
        ApiServer.ok(ctx, created.run());
    }

    /**
     * A create's precondition (extension): absent, none; {@code {"runId": null}}, the key has no run; {@code {"runId":
     * ID}}, ID is its latest. The field must be there, null or not, so that a mistyped name is no silent "no run".
     */
    private static RunApi.AfterRun afterRun(RequestBody body) {
        RequestBody after = body.nested("afterRun");
        if (after == null) {
            return null;
        }
        after.check("runId", after.present("runId"), "is required (null: the key has no run)");
        java.util.UUID runId = after.uuid("runId", false);
        after.finishItem();
        return new RunApi.AfterRun(runId == null ? null : new io.loadgate.api.RunId(runId));
    }

    private static void manifest(Context ctx, Ledger ledger) {
        var runId = ApiServer.runId(ctx);
        RequestBody body = RequestBody.parse(ctx.body());
        var snapshotScn = body.decimal("snapshotScn", false);
        String snapshotRef = body.string("snapshotRef", false, Formats.MESSAGE);
        Long sourceCount = body.integer("sourceCount", true, 0, Long.MAX_VALUE);
        Long nullCount = body.integer("sourceNullSplitCount", false, 0, Long.MAX_VALUE);
        var minSplit = body.decimal("sourceMinSplit", false);
        var maxSplit = body.decimal("sourceMaxSplit", false);
        Integer planned = body.int32("plannedPartitionCount", true, 0, 10_000);
        Map<String, String> metrics = body.stringMap("sourceMetrics", false, Formats.METRIC_NAME, 200);
        String metricsVersion = body.string("sourceMetricsVersion", false, Formats.CODE);
        // Extension: the metrics follow with PUT .../source-metrics; a manifest that says so carries none.
        boolean metricsPending = body.bool("sourceMetricsPending", false, false);
        body.check("sourceMetrics", !metricsPending || metrics == null || metrics.isEmpty(),
                "must be absent or empty when sourceMetricsPending is true");
        List<RequestBody> items = body.objects("partitions", true, 1, 10_000);
        List<Manifest.Partition> partitions = new ArrayList<>();
        if (items != null) {
            for (RequestBody item : items) {
                String id = item.string("partitionId", true, 4, Formats.PARTITION_ID);
                var lower = item.decimal("lowerBound", false);
                var upper = item.decimal("upperBound", false);
                boolean upperInclusive = item.bool("upperInclusive", false, false);
                boolean isNull = item.bool("isNullPartition", false, false);
                Long expected = item.integer("expectedRowCount", true, 0, Long.MAX_VALUE);
                String sourceRef = item.string("sourceRef", false, Formats.PATH);
                item.finishItem();
                if (id != null && expected != null) {
                    partitions.add(new Manifest.Partition(id, lower, upper, upperInclusive, isNull, expected, sourceRef));
                }
            }
        }
        if (snapshotScn == null && snapshotRef == null && !body.hasErrors()) {
            body.decimal("snapshotScn", true);
        }
        body.finish();
        Manifest manifest = new Manifest(snapshotScn, snapshotRef, sourceCount, nullCount == null ? 0 : nullCount,
                minSplit, maxSplit, planned, metrics == null || metricsPending ? Map.of() : metrics, metricsVersion,
                partitions, metricsPending);
        ApiServer.ok(ctx, ledger.runs().registerManifest(runId, manifest, ApiServer.actor(ctx)));
    }

    /** A Spark run's driver is alive (extension); the body is {@code {}}. */
    private static void heartbeat(Context ctx, Ledger ledger) {
        var runId = ApiServer.runId(ctx);
        RequestBody.parseOptional(ctx.body()).finish();
        ApiServer.ok(ctx, ledger.runs().heartbeat(runId));
    }

    /** The source's metrics of a run whose manifest said they would follow (extension). */
    private static void sourceMetrics(Context ctx, Ledger ledger) {
        var runId = ApiServer.runId(ctx);
        RequestBody body = RequestBody.parse(ctx.body());
        Map<String, String> metrics = body.stringMap("sourceMetrics", true, Formats.METRIC_NAME, 200);
        String version = body.string("sourceMetricsVersion", false, Formats.CODE);
        body.check("sourceMetrics", metrics == null || !metrics.isEmpty(), "must name at least one metric");
        body.finish();
        ApiServer.ok(ctx, ledger.runs().recordSourceMetrics(runId, new RunApi.SourceMetrics(metrics, version),
                ApiServer.actor(ctx)));
    }

    private static void fail(Context ctx, Ledger ledger) {
        var runId = ApiServer.runId(ctx);
        RequestBody body = RequestBody.parse(ctx.body());
        RunStatus expected = body.enumValue("expectedStatus", true, RunStatus.class);
        RunStatus failStatus = body.enumValue("failStatus", true, RunStatus.class);
        String stage = body.string("errorStage", false, Formats.CODE);
        String code = body.string("errorCode", false, Formats.CODE);
        String message = body.string("message", false, Formats.MESSAGE);
        body.finish();
        ApiServer.ok(ctx, ledger.runs().fail(runId, new RunApi.FailRun(expected, failStatus, stage, code, message),
                ApiServer.actor(ctx)));
    }

    private static void list(Context ctx, Ledger ledger) {
        QueryParams params = new QueryParams();
        String jobKey = params.matching("jobKey", ctx.queryParam("jobKey"), Formats.JOB_KEY);
        String businessKey = params.matching("businessKey", ctx.queryParam("businessKey"), Formats.BUSINESS_KEY);
        String status = ctx.queryParam("status");
        RunStatus runStatus = null;
        if (status != null) {
            try {
                runStatus = RunStatus.valueOf(status);
            } catch (IllegalArgumentException e) {
                params.error("status", "is not a run status");
            }
        }
        int limit = params.limit(ctx.queryParam("limit"), 100, 1000);
        params.finish("invalid query parameters");
        ApiServer.ok(ctx, ledger.views().list(new RunViews.RunFilter(jobKey == null ? null : JobKey.of(jobKey),
                businessKey == null ? null : BusinessKey.of(businessKey), runStatus, limit)));
    }

    private static void events(Context ctx, Ledger ledger) {
        var runId = ApiServer.runId(ctx);
        long after = 0;
        int limit = 1000;
        try {
            if (ctx.queryParam("after") != null) {
                after = Long.parseLong(ctx.queryParam("after"));
            }
            if (ctx.queryParam("limit") != null) {
                limit = Integer.parseInt(ctx.queryParam("limit"));
            }
        } catch (NumberFormatException e) {
            limit = -1;
        }
        if (after < 0 || limit < 1 || limit > 10_000) {
            throw new LedgerException.Invalid(ErrorCode.REQUEST_INVALID, "after must be >= 0 and limit 1..10000",
                    Map.of("errors", List.of(RequestBody.error("limit", "must be an integer between 1 and 10000"))));
        }
        ApiServer.ok(ctx, ledger.views().events(runId, after, limit));
    }
}

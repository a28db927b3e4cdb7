package io.loadgate.server.http;

import io.javalin.http.Context;
import io.loadgate.api.OperatorApi;
import io.loadgate.api.RunApi;
import io.loadgate.api.RunId;
import io.loadgate.ledger.Ledger;
import java.util.Map;
import java.util.UUID;

/**
 * Cancelling a run, resolving an unknown publish (by an operator, or by the publish probe), recording a rollback,
 * cleanup, and the monitor's summary.
 */
final class OperatorRoutes {
    private OperatorRoutes() {
    }

    static void register(ApiServer.Routes routes, Ledger ledger) {
        routes.post("/v1/runs/{runId}/cancel", ApiServer.OPERATOR, ctx -> cancel(ctx, ledger));
        routes.post("/v1/runs/{runId}/publish-unknown/resolve", ApiServer.OPERATOR, ctx -> resolve(ctx, ledger));
        routes.post("/v1/runs/{runId}/publish-unknown/probe", ApiServer.CLEANERS, ctx -> probe(ctx, ledger));
        routes.post("/v1/runs/{runId}/rollback", ApiServer.OPERATOR, ctx -> rollback(ctx, ledger));
        routes.get("/v1/cleanup/candidates", ApiServer.CLEANERS, ctx -> ApiServer.ok(ctx,
                ledger.cleanup().candidates()));
        routes.post("/v1/runs/{runId}/cleanup", ApiServer.CLEANERS, ctx -> cleanup(ctx, ledger));
        routes.post("/v1/runs/{runId}/cleanup/skipped", ApiServer.CLEANERS, ctx -> cleanupSkipped(ctx, ledger));
        routes.get("/v1/monitor/summary", ApiServer.READERS, ctx -> ApiServer.ok(ctx, ledger.views().monitorSummary()));
    }

    private static void cancel(Context ctx, Ledger ledger) {
        RunId runId = ApiServer.runId(ctx);
        RequestBody body = RequestBody.parse(ctx.body());
        String reason = body.string("reason", true, Formats.MESSAGE);
        body.check("reason", reason == null || reason.strip().length() >= OperatorApi.Cancel.MIN_REASON,
                "must be at least " + OperatorApi.Cancel.MIN_REASON + " characters");
        body.finish();
        ApiServer.ok(ctx, ledger.runs().cancel(runId, reason.strip(), ApiServer.actor(ctx)));
    }

    private static void resolve(Context ctx, Ledger ledger) {
        RunId runId = ApiServer.runId(ctx);
        RequestBody body = RequestBody.parse(ctx.body());
        OperatorApi.Resolution resolution = body.enumValue("resolution", true, OperatorApi.Resolution.class);
        String reason = body.string("reason", true, Formats.MESSAGE);
        body.check("reason", reason == null || reason.strip().length() >= OperatorApi.Resolve.MIN_REASON,
                "must be at least " + OperatorApi.Resolve.MIN_REASON + " characters");
        body.finish();
        var result = ledger.publishing().resolve(runId, resolution, reason.strip(), Map.of(), ApiServer.actor(ctx));
        ApiServer.ok(ctx, new RunApi.RunChange(runId, result.runStatus(), result.changed()));
    }

    private static void probe(Context ctx, Ledger ledger) {
        RunId runId = ApiServer.runId(ctx);
        RequestBody body = RequestBody.parse(ctx.body());
        UUID token = body.uuid("publishToken", true);
        Boolean found = body.bool("found", true);
        String snapshotId = body.string("snapshotId", false, Formats.MESSAGE);
        boolean returned = body.bool("attemptReturned", false, false);
        Map<String, Object> evidence = body.object("evidence", false);
        body.check("snapshotId", !Boolean.TRUE.equals(found) || snapshotId != null, "is required when found is true");
        body.finish();
        var result = ledger.publishing().probe(runId, new OperatorApi.PublishProbe(token, found, snapshotId, returned,
                evidence), ApiServer.actor(ctx));
        ApiServer.ok(ctx, new RunApi.RunChange(runId, result.runStatus(), result.changed()));
    }

    private static void rollback(Context ctx, Ledger ledger) {
        RunId runId = ApiServer.runId(ctx);
        RequestBody body = RequestBody.parse(ctx.body());
        String reason = body.string("reason", true, Formats.MESSAGE);
        String targetRef = body.string("targetRef", true, Formats.MESSAGE);
        body.check("reason", reason == null || reason.strip().length() >= OperatorApi.Rollback.MIN_REASON,
                "must be at least " + OperatorApi.Rollback.MIN_REASON + " characters");
        body.check("targetRef", targetRef == null || !targetRef.isBlank(), "must not be blank");
        body.finish();
        ApiServer.ok(ctx, ledger.rollbacks().record(runId, reason.strip(), targetRef.strip(), ApiServer.actor(ctx)));
    }

    private static void cleanup(Context ctx, Ledger ledger) {
        RunId runId = ApiServer.runId(ctx);
        RequestBody body = RequestBody.parse(ctx.body());
        String droppedTable = body.string("droppedTable", false, Formats.MESSAGE);
        String deletedPath = body.string("deletedPath", false, Formats.PATH);
        Integer keptFiles = body.int32("keptFiles", false, 0, Integer.MAX_VALUE);
        body.finish();
        ApiServer.ok(ctx, ledger.cleanup().markCleaned(runId,
                new OperatorApi.Cleanup(droppedTable, deletedPath, keptFiles), ApiServer.actor(ctx)));
    }

    private static void cleanupSkipped(Context ctx, Ledger ledger) {
        RunId runId = ApiServer.runId(ctx);
        RequestBody body = RequestBody.parse(ctx.body());
        String reason = body.string("reason", true, Formats.MESSAGE);
        body.check("reason", reason == null || !reason.isBlank(), "must not be blank");
        body.finish();
        boolean changed = ledger.cleanup().markSkipped(runId, new OperatorApi.CleanupSkipped(reason.strip()),
                ApiServer.actor(ctx));
        ApiServer.ok(ctx, new OperatorApi.CleanupResult(runId, changed));
    }
}

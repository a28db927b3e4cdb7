package io.loadgate.server.http;

import io.javalin.http.Context;
import io.loadgate.ledger.Ledger;
import io.loadgate.ledger.publish.Publishing;
import java.util.Map;
import java.util.UUID;

/** What operators use: resolving an unknown publish, cleanup, and the monitor's summary. */
final class OperatorRoutes {
    private OperatorRoutes() {
    }

    static void register(ApiServer.Routes routes, Ledger ledger) {
        routes.post("/v1/runs/{runId}/publish-unknown/resolve", ApiServer.OPERATOR, ctx -> resolve(ctx, ledger));
        routes.get("/v1/cleanup/candidates", ApiServer.CLEANERS, ctx -> ApiServer.ok(ctx,
                ledger.cleanup().candidates()));
        routes.post("/v1/runs/{runId}/cleanup", ApiServer.CLEANERS, ctx -> cleanup(ctx, ledger));
        routes.get("/v1/monitor/summary", ApiServer.READERS, ctx -> ApiServer.ok(ctx, ledger.views().monitorSummary()));
    }

    private static void resolve(Context ctx, Ledger ledger) {
        UUID runId = ApiServer.runId(ctx);
        RequestBody body = RequestBody.parse(ctx.body());
        Publishing.Resolution resolution = body.enumValue("resolution", true, Publishing.Resolution.class);
        String reason = body.string("reason", true, Formats.MESSAGE);
        body.check("reason", reason == null || reason.strip().length() >= 5, "must be at least 5 characters");
        body.finish();
        var result = ledger.publishing().resolve(runId, resolution, reason.strip(), Map.of(), ApiServer.actor(ctx));
        ApiServer.ok(ctx, Map.of("runId", runId.toString(), "runStatus", result.runStatus().name(),
                "changed", result.changed()));
    }

    private static void cleanup(Context ctx, Ledger ledger) {
        UUID runId = ApiServer.runId(ctx);
        RequestBody body = RequestBody.parse(ctx.body());
        String droppedTable = body.string("droppedTable", false, Formats.MESSAGE);
        String deletedPath = body.string("deletedPath", false, Formats.PATH);
        body.finish();
        var cleaned = ledger.cleanup().markCleaned(runId, droppedTable, deletedPath, ApiServer.actor(ctx));
        ApiServer.ok(ctx, Map.of("runId", runId.toString(), "changed", cleaned.changed()));
    }
}

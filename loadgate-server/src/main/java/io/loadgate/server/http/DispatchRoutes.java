package io.loadgate.server.http;

import io.javalin.http.Context;
import io.loadgate.api.DispatchApi;
import io.loadgate.api.DispatchStatus;
import io.loadgate.api.DispatchType;
import io.loadgate.api.ErrorCode;
import io.loadgate.api.OperatorApi;
import io.loadgate.api.RunId;
import io.loadgate.ledger.LedgerException;
import io.loadgate.ledger.dispatch.Dispatches;
import io.loadgate.ledger.dispatch.LeasedDispatch;
import io.loadgate.server.dispatch.WorkerLeases;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.UUID;

/**
 * {@code POST /v1/dispatches/lease} (worker long poll), {@code POST /v1/dispatches/{id}/release} (a stopping worker
 * hands a lease back) and the operator's {@code .../dispatches/{id}/resend}.
 */
final class DispatchRoutes {
    static final int MAX_WAIT_SECONDS = 60;
    static final int MAX_LEASE = 100;

    private DispatchRoutes() {
    }

    static void register(ApiServer.Routes routes, WorkerLeases leases) {
        Dispatches dispatches = leases.dispatches();
        routes.post("/v1/dispatches/lease", ApiServer.WORKER, ctx -> lease(ctx, leases));
        routes.post("/v1/dispatches/{dispatchId}/release", ApiServer.WORKER, ctx -> release(ctx, dispatches));
        routes.post("/v1/runs/{runId}/dispatches/{dispatchId}/resend", ApiServer.OPERATOR,
                ctx -> resend(ctx, dispatches));
    }

    private static void lease(Context ctx, WorkerLeases leases) {
        RequestBody body = RequestBody.parse(ctx.body());
        String node = body.string("node", true, 200);
        EnumSet<DispatchType> types = body.enumSet("types", false, DispatchType.class, DispatchType.values().length * 4);
        Integer max = body.int32("max", false, 1, MAX_LEASE);
        Integer waitSeconds = body.int32("waitSeconds", false, 0, MAX_WAIT_SECONDS);
        body.finish();
        EnumSet<DispatchType> wanted = types == null || types.isEmpty() ? EnumSet.allOf(DispatchType.class) : types;
        // Answered from the future: a poll that waits holds no request thread.
        // The client's X-Request-Id, the same on each attempt of one lease, or one of the server's own.
        String requestId = ctx.attribute("requestId");
        var request = new DispatchApi.Lease(node, List.copyOf(wanted), max == null ? 1 : max,
                waitSeconds == null ? 0 : waitSeconds);
        ctx.future(() -> leases.lease(request, requestId).thenAccept(leased -> {
                    List<DispatchApi.LeasedDispatch> response = new ArrayList<>();
                    for (LeasedDispatch dispatch : leased) {
                        response.add(dispatch.toApi());
                    }
                    ApiServer.ok(ctx, response);
                }));
    }

    private static void release(Context ctx, Dispatches dispatches) {
        UUID dispatchId;
        try {
            dispatchId = UUID.fromString(ctx.pathParam("dispatchId"));
        } catch (IllegalArgumentException e) {
            throw new LedgerException.NotFound(ErrorCode.DISPATCH_NOT_FOUND,
                    "no dispatch " + ctx.pathParam("dispatchId"));
        }
        RequestBody body = RequestBody.parse(ctx.body());
        String node = body.string("node", true, 200);
        body.finish();
        ApiServer.ok(ctx, new DispatchApi.Released(dispatchId, dispatches.release(dispatchId, new DispatchApi.Release(node))));
    }

    private static void resend(Context ctx, Dispatches dispatches) {
        RunId runId = ApiServer.runId(ctx);
        UUID dispatchId;
        try {
            dispatchId = UUID.fromString(ctx.pathParam("dispatchId"));
        } catch (IllegalArgumentException e) {
            throw new LedgerException.NotFound(ErrorCode.DISPATCH_NOT_FOUND, "run " + runId + " has no dispatch "
                    + ctx.pathParam("dispatchId"));
        }
        // An operator's curl often sends no body at all; anything sent must still be an empty object.
        if (ctx.body() != null && !ctx.body().isBlank()) {
            RequestBody.parse(ctx.body()).finish();
        }
        dispatches.resend(runId, dispatchId, ApiServer.actor(ctx));
        ApiServer.ok(ctx, new OperatorApi.Resent(dispatchId, DispatchStatus.PENDING));
    }
}

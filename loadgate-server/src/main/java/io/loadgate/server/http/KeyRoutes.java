package io.loadgate.server.http;

import io.javalin.http.Context;
import io.loadgate.api.BusinessKey;
import io.loadgate.api.JobKey;
import io.loadgate.api.KeyHolders;
import io.loadgate.ledger.run.KeyHolderViews;

/** {@code GET /v1/jobs/{jobKey}/keys} (extension): per business key of a job, the run the target holds now. */
final class KeyRoutes {
    private KeyRoutes() {
    }

    static void register(ApiServer.Routes routes, KeyHolderViews keys) {
        routes.get("/v1/jobs/{jobKey}/keys", ApiServer.READERS, ctx -> keys(ctx, keys));
    }

    private static void keys(Context ctx, KeyHolderViews keys) {
        QueryParams params = new QueryParams();
        String job = params.matching("jobKey", ctx.pathParam("jobKey"), Formats.JOB_KEY);
        String after = params.matching("after", ctx.queryParam("after"), Formats.BUSINESS_KEY);
        int limit = params.limit(ctx.queryParam("limit"), KeyHolders.DEFAULT_LIMIT, KeyHolders.MAX_LIMIT);
        params.finish("invalid request");
        ApiServer.ok(ctx, keys.page(JobKey.of(job), after == null ? null : BusinessKey.of(after), limit));
    }
}

package io.loadgate.server.http;

import io.javalin.http.Context;
import io.loadgate.api.BusinessKey;
import io.loadgate.api.ErrorCode;
import io.loadgate.api.JobKey;
import io.loadgate.api.KeyHolders;
import io.loadgate.ledger.LedgerException;
import io.loadgate.ledger.run.KeyHolderViews;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** {@code GET /v1/jobs/{jobKey}/keys} (extension): per business key of a job, the run the target holds now. */
final class KeyRoutes {
    private KeyRoutes() {
    }

    static void register(ApiServer.Routes routes, KeyHolderViews keys) {
        routes.get("/v1/jobs/{jobKey}/keys", ApiServer.READERS, ctx -> keys(ctx, keys));
    }

    private static void keys(Context ctx, KeyHolderViews keys) {
        String job = ctx.pathParam("jobKey");
        String after = ctx.queryParam("after");
        String limitText = ctx.queryParam("limit");
        List<Map<String, String>> errors = new ArrayList<>();
        if (!Formats.JOB_KEY.matcher(job).matches()) {
            errors.add(RequestBody.error("jobKey", "must match " + Formats.JOB_KEY.pattern()));
        }
        if (after != null && !Formats.BUSINESS_KEY.matcher(after).matches()) {
            errors.add(RequestBody.error("after", "must match " + Formats.BUSINESS_KEY.pattern()));
        }
        int limit = KeyHolders.DEFAULT_LIMIT;
        if (limitText != null) {
            try {
                limit = Integer.parseInt(limitText);
            } catch (NumberFormatException e) {
                limit = -1;
            }
            if (limit < 1 || limit > KeyHolders.MAX_LIMIT) {
                errors.add(RequestBody.error("limit", "must be an integer between 1 and " + KeyHolders.MAX_LIMIT));
            }
        }
        if (!errors.isEmpty()) {
            throw new LedgerException.Invalid(ErrorCode.REQUEST_INVALID, "invalid request", Map.of("errors", errors));
        }
        ApiServer.ok(ctx, keys.page(JobKey.of(job), after == null ? null : BusinessKey.of(after), limit));
    }
}

package io.loadgate.server.http;

import io.javalin.http.Context;
import io.loadgate.api.JobKey;
import io.loadgate.api.MonitorHistory.Bucket;
import io.loadgate.ledger.run.History;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/** {@code GET /v1/monitor/history} (extension): the dashboard's charts, per job and hour or day. */
final class HistoryRoutes {
    /** How far back one answer reaches: a month of hours, a year of days. */
    static final Duration MAX_HOURS = Duration.ofDays(31);
    static final Duration MAX_DAYS = Duration.ofDays(366);

    private HistoryRoutes() {
    }

    static void register(ApiServer.Routes routes, History history) {
        routes.get("/v1/monitor/history", ApiServer.READERS, ctx -> history(ctx, history));
    }

    private static void history(Context ctx, History history) {
        QueryParams params = new QueryParams();
        String job = params.matching("job", ctx.queryParam("job"), Formats.JOB_KEY);
        String bucketText = ctx.queryParam("bucket");
        String fromText = ctx.queryParam("from");
        Bucket bucket = Bucket.HOUR;
        if (bucketText != null) {
            try {
                bucket = Bucket.valueOf(bucketText.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                params.error("bucket", "must be hour or day");
            }
        }
        Instant to = Instant.now();
        // By default the dashboard's two charts: the last 24 hours by hour, the last 14 days by day.
        Instant from = to.minus(bucket == Bucket.HOUR ? Duration.ofHours(24) : Duration.ofDays(14));
        if (fromText != null) {
            try {
                from = Instant.parse(fromText);
                Duration reach = bucket == Bucket.HOUR ? MAX_HOURS : MAX_DAYS;
                if (from.isBefore(to.minus(reach)) || !from.isBefore(to)) {
                    params.error("from", "must be in the past, at most " + reach.toDays() + " days ago for bucket "
                            + bucket.wire());
                }
            } catch (DateTimeParseException e) {
                params.error("from", "must be an ISO-8601 instant such as 2026-11-30T00:00:00Z");
            }
        }
        params.finish("invalid query parameters");
        ApiServer.ok(ctx, history.read(job == null ? null : JobKey.of(job), from, to, bucket));
    }
}

package io.loadgate.server.http;

import io.loadgate.api.ErrorCode;
import io.loadgate.ledger.Ledger;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Map;

/**
 * Liveness, readiness and metrics: with the dashboard page ({@link DashboardRoutes}), the only endpoints without a token.
 */
final class HealthRoutes {
    private HealthRoutes() {
    }

    static void register(ApiServer.Routes routes, Ledger ledger, PrometheusMeterRegistry metrics) {
        routes.open("/healthz", ctx -> ApiServer.ok(ctx, Map.of("status", "UP")));
        routes.open("/readyz", ctx -> {
            if (ledger.database().isReachable()) {
                ApiServer.ok(ctx, Map.of("status", "READY", "database", "UP"));
            } else {
                ApiServer.write(ctx, 503, ApiServer.envelope(ctx, ErrorCode.DATABASE_UNAVAILABLE,
                        "the ledger database is unreachable", Map.of("database", "DOWN")));
            }
        });
        routes.open("/metrics", ctx -> ctx.contentType("text/plain; version=0.0.4; charset=utf-8")
                .result(metrics.scrape()));
    }
}

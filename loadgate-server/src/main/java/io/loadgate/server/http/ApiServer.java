package io.loadgate.server.http;

import static java.util.Objects.requireNonNull;

import io.javalin.Javalin;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.loadgate.api.ErrorCode;
import io.loadgate.api.RunId;
import io.loadgate.ledger.Ledger;
import io.loadgate.ledger.LedgerException;
import io.loadgate.ledger.db.DatabaseException;
import io.loadgate.ledger.dispatch.Dispatches;
import io.loadgate.ledger.run.History;
import io.loadgate.ledger.run.KeyHolderViews;
import io.loadgate.server.auth.Authenticator;
import io.loadgate.server.auth.Role;
import io.loadgate.server.config.DispatchConfig;
import io.loadgate.server.dispatch.Dispatcher;
import io.loadgate.server.dispatch.NotificationHub;
import io.loadgate.server.dispatch.WorkerLeases;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ledger's HTTP API, {@code ../shared/spec/ledger-api-v1.md}. Every error leaves through {@link #error}, so
 * each response has the same envelope and an {@code X-Request-Id}; a client's mistake is never a 500.
 */
public final class ApiServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ApiServer.class);
    private static final Pattern REQUEST_ID = Pattern.compile("[A-Za-z0-9._:\\-]{1,100}");
    static final Set<Role> WORKER = Set.of(Role.WORKER);
    static final Set<Role> OPERATOR = Set.of(Role.OPERATOR);
    static final Set<Role> READERS = Set.of(Role.WORKER, Role.OPERATOR, Role.VIEWER);
    // Cleanup is done by a worker's cleanup phase or by an operator by hand.
    static final Set<Role> CLEANERS = Set.of(Role.WORKER, Role.OPERATOR);

    private static final String ENVELOPED = "loadgate.enveloped";
    static final org.eclipse.jetty.http.HttpField NOSNIFF =
            new org.eclipse.jetty.http.HttpField("X-Content-Type-Options", "nosniff");
    static final long MAX_REQUEST_BYTES = 32L * 1024 * 1024;

    private final Javalin app;

    /** Everything the routes need, wired by the caller. */
    public record Wiring(Ledger ledger, Authenticator authenticator, PrometheusMeterRegistry metrics,
                         WorkerLeases workerLeases) {
        public Wiring {
            requireNonNull(ledger, "ledger is null");
            requireNonNull(authenticator, "authenticator is null");
            requireNonNull(metrics, "metrics is null");
            requireNonNull(workerLeases, "workerLeases is null");
        }

        /** Without a notification listener: a waiting lease poll then looks again every few seconds. */
        public Wiring(Ledger ledger, Authenticator authenticator, PrometheusMeterRegistry metrics) {
            this(ledger, authenticator, metrics, new WorkerLeases(new Dispatches(ledger.database()),
                    new NotificationHub(), Dispatcher.policy(DispatchConfig.defaults())));
        }
    }

    private ApiServer(Javalin app) {
        this.app = app;
    }

    /** A key store for HTTPS; without one the API speaks plain HTTP. */
    public record Tls(java.nio.file.Path keystore, String password) {
        public Tls {
            requireNonNull(keystore, "keystore is null");
            requireNonNull(password, "password is null");
        }
    }

    public static ApiServer start(Wiring wiring, String host, int port) {
        return start(wiring, host, port, null);
    }

    public static ApiServer start(Wiring wiring, String host, int port, Tls tls) {
        return start(wiring, host, port, tls, java.util.Optional.empty());
    }

    /** With a lakehouse, the API also serves it as an Iceberg REST catalog (see {@link IcebergRestRoutes}). */
    public static ApiServer start(Wiring wiring, String host, int port, Tls tls,
                                  java.util.Optional<io.loadgate.server.lakehouse.Lakehouse> lakehouse) {
        Javalin app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            // A manifest of the contract's 10,000 partitions is about 2 MB; leave room, but not without bound.
            config.http.maxRequestSize = MAX_REQUEST_BYTES;
            // A known path with the wrong method is 405 with Allow, not an unknown route.
            config.http.prefer405over404 = true;
            // Jetty answers a request it cannot parse (bad bytes in the URL) itself, before any route.
            config.jetty.modifyServer(server -> server.setErrorHandler(new EnvelopeErrorHandler()));
            // A lease poll answers from a future within its wait (at most a minute); a future that never completed
            // must still not hold its connection for ever.
            config.http.asyncTimeout = Duration.ofSeconds(DispatchRoutes.MAX_WAIT_SECONDS + 60).toMillis();
            if (tls != null) {
                // With a connector of our own, Jetty opens no plain HTTP one: the API is HTTPS only.
                config.jetty.addConnector((server, httpConfig) -> {
                    var ssl = new org.eclipse.jetty.util.ssl.SslContextFactory.Server();
                    ssl.setKeyStorePath(tls.keystore().toString());
                    ssl.setKeyStorePassword(tls.password());
                    var connector = new org.eclipse.jetty.server.ServerConnector(server, ssl);
                    connector.setHost(host);
                    connector.setPort(port);
                    return connector;
                });
            }
            config.requestLogger.http((ctx, ms) -> recordRequest(wiring.metrics(), ctx, ms));
            RoutesConfig routes = config.routes;
            routes.before(ApiServer::assignRequestId);
            routes.exception(Exception.class, (e, ctx) -> error(ctx, e));
            routes.exception(io.javalin.http.MethodNotAllowedResponse.class, (e, ctx) -> {
                ctx.header("Allow", e.getDetails().getOrDefault("availableMethods", ""));
                write(ctx, 405, envelope(ctx, ErrorCode.METHOD_NOT_ALLOWED,
                        ctx.method() + " is not allowed on " + ctx.path()
                        + "; allowed: " + e.getDetails().getOrDefault("availableMethods", ""), Map.of()));
            });
            routes.error(404, "*", ctx -> {
                // Our own 404s (RUN_NOT_FOUND...) are already enveloped; anything else is an unknown route.
                if (ctx.attribute(ENVELOPED) == null) {
                    write(ctx, 404, envelope(ctx, ErrorCode.NOT_FOUND, "no endpoint " + ctx.method() + " " + ctx.path(),
                            Map.of()));
                }
            });
            routes.error(413, "*", ctx -> write(ctx, 413, envelope(ctx, ErrorCode.REQUEST_TOO_LARGE,
                    "the request body is larger than " + MAX_REQUEST_BYTES / (1024 * 1024) + " MiB", Map.of())));
            routes.error(405, "*", ctx -> {
                if (ctx.attribute(ENVELOPED) == null) {
                    write(ctx, 405, envelope(ctx, ErrorCode.METHOD_NOT_ALLOWED, ctx.method() + " is not allowed on "
                            + ctx.path(), Map.of()));
                }
            });
            Routes r = new Routes(routes, wiring.authenticator());
            HealthRoutes.register(r, wiring.ledger(), wiring.metrics());
            RunRoutes.register(r, wiring.ledger());
            PartitionRoutes.register(r, wiring.ledger());
            StepRoutes.register(r, wiring.ledger());
            OperatorRoutes.register(r, wiring.ledger());
            DispatchRoutes.register(r, wiring.workerLeases());
            DashboardRoutes.register(r);
            HistoryRoutes.register(r, new History(wiring.ledger().database()));
            KeyRoutes.register(r, new KeyHolderViews(wiring.ledger().database()));
            lakehouse.ifPresent(l -> IcebergRestRoutes.register(routes, l, wiring.authenticator()));
        });
        app.start(host, port);
        return new ApiServer(app);
    }

    public int port() {
        return app.port();
    }

    @Override
    public void close() {
        app.stop();
    }

    private static void assignRequestId(Context ctx) {
        String given = ctx.header("X-Request-Id");
        String id = requestId(given);
        ctx.attribute("requestId", id);
        ctx.header("X-Request-Id", id);
        // Every answer is JSON (or the dashboard's own page): a browser must not guess otherwise.
        ctx.header(NOSNIFF.getName(), NOSNIFF.getValue());
    }

    static String requestId(String given) {
        return given != null && REQUEST_ID.matcher(given).matches() ? given : UUID.randomUUID().toString();
    }

    private static void recordRequest(PrometheusMeterRegistry metrics, Context ctx, float ms) {
        String route;
        try {
            route = ctx.endpoint().path;
        } catch (RuntimeException e) {
            route = "unmatched";
        }
        Timer.builder("loadgate_http_requests").tag("method", ctx.method().name()).tag("route", route)
                .tag("status", Integer.toString(ctx.statusCode())).register(metrics)
                .record(Duration.ofNanos((long) (ms * 1_000_000)));
    }

    static void error(Context ctx, Exception e) {
        if (e instanceof LedgerException le) {
            write(ctx, le.code().httpStatus(), envelope(ctx, le.code(), le.getMessage(), le.details()));
        } else if (e instanceof ApiException api) {
            write(ctx, api.code().httpStatus(), envelope(ctx, api.code(), api.getMessage(), api.details()));
        } else if (e instanceof DatabaseException db && db.unavailable()) {
            LOG.warn("database unavailable on {} {}: {}", ctx.method(), ctx.path(), db.getMessage());
            write(ctx, 503, envelope(ctx, ErrorCode.DATABASE_UNAVAILABLE,
                    "the ledger database is unavailable", Map.of()));
        } else {
            LOG.error("request {} {} failed (requestId {})", ctx.method(), ctx.path(), ctx.attribute("requestId"), e);
            write(ctx, 500, envelope(ctx, ErrorCode.INTERNAL_ERROR, "internal error; see the server log for request id "
                    + ctx.attribute("requestId"), Map.of()));
        }
    }

    static Map<String, Object> envelope(Context ctx, ErrorCode code, String message, Map<String, Object> details) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("code", code.name());
        body.put("message", message);
        body.put("requestId", ctx.attribute("requestId"));
        body.put("details", details);
        return body;
    }

    static void write(Context ctx, int status, Object body) {
        ctx.attribute(ENVELOPED, Boolean.TRUE);
        ctx.status(status).contentType("application/json").result(Json.write(body));
    }

    /** Route registration with the roles allowed to call each route, checked before the body is read. */
    static final class Routes {
        private final RoutesConfig routes;
        private final Authenticator authenticator;

        Routes(RoutesConfig routes, Authenticator authenticator) {
            this.routes = routes;
            this.authenticator = authenticator;
        }

        void get(String path, Set<Role> roles, Handler handler) {
            routes.get(path, guarded(roles, handler));
        }

        void post(String path, Set<Role> roles, Handler handler) {
            routes.post(path, guarded(roles, handler));
        }

        void put(String path, Set<Role> roles, Handler handler) {
            routes.put(path, guarded(roles, handler));
        }

        void open(String path, Handler handler) {
            routes.get(path, handler);
        }

        private Handler guarded(Set<Role> roles, Handler handler) {
            return ctx -> {
                var principal = authenticator.authenticate(ctx.header("Authorization"))
                        .orElseThrow(() -> new ApiException(ErrorCode.UNAUTHENTICATED,
                                "a valid bearer token is required"));
                if (!roles.contains(principal.role())) {
                    throw new ApiException(ErrorCode.FORBIDDEN, "role " + principal.role().name().toLowerCase()
                            + " may not call " + ctx.method() + " " + ctx.endpoint().path);
                }
                ctx.attribute("principal", principal);
                RequestBody.requireUtf8(ctx.bodyAsBytes());
                handler.handle(ctx);
            };
        }
    }

    /** The caller's role, once {@link Routes} has authenticated it. */
    static Role role(Context ctx) {
        Authenticator.Principal principal = ctx.attribute("principal");
        return principal == null ? null : principal.role();
    }

    /** The caller's identity for events: role and token id. */
    public static String actor(Context ctx) {
        Authenticator.Principal principal = ctx.attribute("principal");
        return principal == null ? null : principal.role().name().toLowerCase() + ":" + principal.tokenId();
    }

    public static void ok(Context ctx, Object body) {
        write(ctx, 200, body);
    }

    public static RunId runId(Context ctx) {
        try {
            return new RunId(UUID.fromString(ctx.pathParam("runId")));
        } catch (IllegalArgumentException e) {
            throw new LedgerException.NotFound(ErrorCode.RUN_NOT_FOUND,
                    "run " + ctx.pathParam("runId") + " does not exist");
        }
    }
}

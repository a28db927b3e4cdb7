package io.loadgate.server.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.zaxxer.hikari.HikariDataSource;
import io.loadgate.ledger.Ledger;
import io.loadgate.ledger.LedgerSettings;
import io.loadgate.ledger.db.ConnectionPool;
import io.loadgate.ledger.db.Database;
import io.loadgate.ledger.db.LedgerSchema;
import io.loadgate.ledger.run.StagePath;
import io.loadgate.ledger.testing.TestDatabases;
import io.loadgate.server.auth.Authenticator;
import io.loadgate.server.auth.Role;
import io.loadgate.server.auth.Tokens;
import io.loadgate.ledger.dispatch.Dispatches;
import io.loadgate.server.config.DispatchConfig;
import io.loadgate.server.dispatch.Dispatcher;
import io.loadgate.server.dispatch.NotificationHub;
import io.loadgate.server.dispatch.NotificationListener;
import io.loadgate.server.dispatch.WorkerLeases;
import io.loadgate.server.http.ApiServer;
import io.loadgate.server.http.Json;
import io.loadgate.server.lakehouse.Lakehouse;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real ledger for tests: its own PostgreSQL database, the real HTTP API on a loopback port, a token per role.
 *
 * <p>A test class shares one through {@code @RegisterExtension static final TestLedger ledger = new TestLedger();},
 * which closes it after the class's last test; it must be a static field, as JUnit calls {@link #afterAll} only for
 * those.
 */
public final class TestLedger implements AutoCloseable, AfterAllCallback {
    public static final String STAGE_ROOT = "/data/loadgate/stage";

    public final TestDatabases.TestDatabase db;
    public final HikariDataSource dataSource;
    public final Ledger ledger;
    /** Replaced by {@link #startApi} after {@link #stopApi}. */
    public volatile ApiServer server;
    private final ApiServer.Wiring wiring;
    private final Optional<Lakehouse> lakehouse;
    private int stoppedPort;
    public final NotificationHub hub = new NotificationHub();
    public final NotificationListener listener;
    private final WorkerLeases leases;
    public final String workerToken = Tokens.generate();
    public final String operatorToken = Tokens.generate();
    public final String viewerToken = Tokens.generate();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    public TestLedger() {
        this(new LedgerSettings(List.of(StagePath.parse(STAGE_ROOT), StagePath.parse("file:///tmp/loadgate-stage")),
                LedgerSettings.RecoveryMode.FAIL, 3));
    }

    public TestLedger(LedgerSettings settings) {
        this(settings, UnaryOperator.identity());
    }

    /** A ledger whose connection pool reaches its database at {@code poolUrl} of the database's URL (a proxy). */
    public TestLedger(LedgerSettings settings, UnaryOperator<String> poolUrl) {
        this(settings, poolUrl, Optional.empty());
    }

    /**
     * A ledger whose API also serves {@code lakehouse} as the Iceberg REST catalog at {@code /iceberg}, as
     * {@code loadgate server} serves its own. The caller closes the lakehouse.
     */
    public TestLedger(LedgerSettings settings, Lakehouse lakehouse) {
        this(settings, UnaryOperator.identity(), Optional.of(lakehouse));
    }

    private TestLedger(LedgerSettings settings, UnaryOperator<String> poolUrl, Optional<Lakehouse> lakehouse) {
        this.lakehouse = lakehouse;
        db = TestDatabases.create();
        dataSource = ConnectionPool.open(poolUrl.apply(db.jdbcUrl()), db.user(), db.password(), 30);
        LedgerSchema.migrate(dataSource);
        ledger = new Ledger(new Database(dataSource), settings);
        Authenticator authenticator = new Authenticator(Map.of(
                Role.WORKER, List.of(Tokens.digest(workerToken)),
                Role.OPERATOR, List.of(Tokens.digest(operatorToken)),
                Role.VIEWER, List.of(Tokens.digest(viewerToken))));
        listener = NotificationListener.start(db::connect, hub);
        leases = new WorkerLeases(new Dispatches(ledger.database()), hub,
                Dispatcher.policy(DispatchConfig.defaults()));
        wiring = new ApiServer.Wiring(ledger, authenticator, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
                leases);
        server = ApiServer.start(wiring, "127.0.0.1", 0, null, lakehouse);
    }

    /** Stops the HTTP API, as a killed ledger process would be seen; the database keeps every row. */
    public void stopApi() {
        stoppedPort = server.port();
        server.close();
    }

    /** Starts a new HTTP API over the same database on the port the stopped one had. */
    public void startApi() {
        server = ApiServer.start(wiring, "127.0.0.1", stoppedPort, null, lakehouse);
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + server.port();
    }

    /** A response: status and parsed JSON body (null when the body is not JSON). */
    public record Response(int status, JsonNode body, HttpResponse<String> raw) {
        public String code() {
            return body == null || body.get("code") == null ? null : body.get("code").asText();
        }

        public String text(String field) {
            JsonNode value = body.get(field);
            return value == null || value.isNull() ? null : value.asText();
        }

        @Override
        public String toString() {
            return status + " " + raw.body();
        }
    }

    public Response post(String path, Object body) {
        return send("POST", path, body, workerToken);
    }

    public Response get(String path) {
        return send("GET", path, null, workerToken);
    }

    public Response send(String method, String path, Object body, String token) {
        return send(method, path, body, token, Map.of());
    }

    public Response send(String method, String path, Object body, String token, Map<String, String> headers) {
        String text = body == null ? null : body instanceof String s ? s : Json.write(body);
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl() + path))
                .timeout(Duration.ofSeconds(30))
                .method(method, text == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(text))
                .header("Content-Type", "application/json");
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        headers.forEach(request::header);
        try {
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            JsonNode json = null;
            try {
                json = response.body().isEmpty() ? null : Json.MAPPER.readTree(response.body());
            } catch (IOException notJson) {
                // leave null: the caller asserts on the raw body
            }
            return new Response(response.statusCode(), json, response);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public long count(String sql) {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            var rs = s.executeQuery(sql);
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    public void execute(String sql) {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }

    @Override
    public void close() {
        // Waiting lease polls are answered (empty) before the API stops, as in LoadgateServer.
        leases.close();
        server.close();
        listener.close();
        dataSource.close();
    }
}

package io.loadgate.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.loadgate.ledger.Ledger;
import io.loadgate.ledger.LedgerSettings;
import io.loadgate.ledger.db.ConnectionPool;
import io.loadgate.ledger.db.Database;
import io.loadgate.ledger.run.StagePath;
import io.loadgate.server.auth.Authenticator;
import io.loadgate.server.auth.Role;
import io.loadgate.server.auth.Tokens;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** With the database gone: readiness says so, calls answer 503 DATABASE_UNAVAILABLE, health stays up. */
class DatabaseDownTest {
    @Test
    void anUnreachableDatabaseIs503NotA500() throws Exception {
        int deadPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            deadPort = socket.getLocalPort();
        }
        String token = Tokens.generate();
        try (HikariDataSource pool = ConnectionPool.open("jdbc:postgresql://127.0.0.1:" + deadPort + "/none",
                "postgres", "", 2)) {
            pool.setConnectionTimeout(500);
            Ledger ledger = new Ledger(new Database(pool), new LedgerSettings(
                    List.of(StagePath.parse("/data/loadgate/stage")), LedgerSettings.RecoveryMode.FAIL, 3));
            try (ApiServer server = ApiServer.start(new ApiServer.Wiring(ledger,
                    new Authenticator(Map.of(Role.WORKER, List.of(Tokens.digest(token)))),
                    new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)), "127.0.0.1", 0)) {
                HttpClient http = HttpClient.newHttpClient();
                String base = "http://127.0.0.1:" + server.port();
                assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/healthz")).build(),
                        HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
                var ready = http.send(HttpRequest.newBuilder(URI.create(base + "/readyz")).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(ready.statusCode()).isEqualTo(503);
                var call = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/runs"))
                        .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(call.statusCode()).isEqualTo(503);
                assertThat(call.body()).contains("DATABASE_UNAVAILABLE", "requestId");
            }
        }
    }
}

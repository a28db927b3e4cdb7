package io.loadgate.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
import io.loadgate.ledger.testing.TcpProxy;
import io.loadgate.server.testing.TestLedger;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * With the database gone (nothing listening, or a network that stops passing packets): readiness says so, calls
 * answer 503 DATABASE_UNAVAILABLE rather than hang, health stays up.
 */
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
    @Test
    void aDatabaseThatStopsAnsweringIs503NotAHang() {
        AtomicReference<TcpProxy> made = new AtomicReference<>();
        TestLedger ledger = new TestLedger(new LedgerSettings(List.of(StagePath.parse(TestLedger.STAGE_ROOT)),
                LedgerSettings.RecoveryMode.FAIL, 3), url -> {
            made.set(TcpProxy.inFrontOf(url));
            return made.get().jdbcUrl(url);
        });
        try (TcpProxy proxy = made.get(); ledger) {
            assertThat(ledger.get("/v1/runs").status()).isEqualTo(200);
            proxy.freeze();
            try {
                // TestLedger waits 30 s for an answer: the pool's connection and validation timeouts must end the
                // call first, with the contract's code.
                var frozen = ledger.get("/v1/runs");
                assertThat(frozen.status()).as(frozen.toString()).isEqualTo(503);
                assertThat(frozen.code()).isEqualTo("DATABASE_UNAVAILABLE");
            } finally {
                proxy.restore();
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> ledger.get("/v1/runs").status() == 200);
        }
    }
}

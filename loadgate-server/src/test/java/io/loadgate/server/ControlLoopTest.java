package io.loadgate.server;

import static io.loadgate.server.testing.Runs.create;
import static io.loadgate.server.testing.Runs.manifest;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.loadgate.ledger.testing.TestDatabases;
import io.loadgate.server.auth.Tokens;
import io.loadgate.server.config.ConfigLoader;
import io.loadgate.server.config.LoadgateConfig;
import io.loadgate.server.http.Json;
import io.loadgate.server.testing.Receiver;
import io.loadgate.server.testing.TestLedger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.junit.jupiter.api.Test;

/** The process wiring: a server's API beside a separate {@code loadgate control-loop} on one database. */
class ControlLoopTest {
    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void aStandaloneControlLoopPushesWhatTheServerDecided() throws Exception {
        TestDatabases.TestDatabase db = TestDatabases.create();
        String worker = Tokens.generate();
        Path home = Files.createTempDirectory("loadgate-home");
        Map<String, String> env = new HashMap<>(Map.of(
                "LOADGATE_HOME", home.toString(),
                "LOADGATE_DATABASE__URL", db.jdbcUrl(),
                "LOADGATE_DATABASE__USER", db.user(),
                "LOADGATE_SERVER__HOST", "127.0.0.1",
                "LOADGATE_SERVER__PORT", "0",
                "LOADGATE_AUTH__TOKEN_DIGESTS__WORKER", Tokens.digest(worker),
                "LOADGATE_AUTH__ALLOWED_ROOTS", TestLedger.STAGE_ROOT,
                "LOADGATE_DISPATCH__POLL_INTERVAL", "200ms",
                "LOADGATE_RECOVERY__SWEEPER_INTERVAL", "1s"));
        LoadgateConfig serverConfig = ConfigLoader.load(Optional.empty(), env);
        try (Receiver receiver = new Receiver(); LoadgateServer server = LoadgateServer.start(serverConfig, HadoopFileIO.class)) {
            env.put("LOADGATE_DISPATCH__RECEIVER_URL", receiver.url().toString());
            try (ControlLoop loops = ControlLoop.standalone(ConfigLoader.load(Optional.empty(), env))) {
                assertThat(loops.dispatcher()).isPresent();
                String base = "http://127.0.0.1:" + server.port();
                Map<String, Object> run = create("WIRED", "K");
                run.put("allowEmptySource", true);
                String runId = Json.MAPPER.readTree(post(base + "/v1/runs", run, worker)).get("runId").asText();
                // Every partition empty: the run goes straight to EXTRACTED_VALIDATED with a VALIDATE_RUN dispatch.
                post(base + "/v1/runs/" + runId + "/manifest", manifest(0, 0), worker);

                await().atMost(Duration.ofSeconds(10)).until(() -> !receiver.requests().isEmpty());
                assertThat(receiver.requests().get(0).path()).isEqualTo("/control/validate/WIRED");
                assertThat(receiver.requests().get(0).runIdHeader()).isEqualTo(runId);
            }
        }
    }

    private String post(String url, Object body, String token) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url))
                .header("Authorization", "Bearer " + token)
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(body))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response.body();
    }
}

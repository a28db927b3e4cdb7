package io.loadgate.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.server.config.ConfigLoader;
import io.loadgate.server.config.LoadgateConfig;
import io.loadgate.server.http.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The default ledger: embedded PostgreSQL under $LOADGATE_HOME, tokens made on first start, data kept across restarts. */
class EmbeddedServerTest {
    @TempDir
    Path home;

    private LoadgateConfig config() {
        Path file = new LoadgateHome(home).ensureInitialised();
        return ConfigLoader.load(Optional.of(file), Map.of("LOADGATE_HOME", home.toString(),
                "LOADGATE_SERVER__PORT", "0", "LOADGATE_SERVER__HOST", "127.0.0.1", "LOADGATE_DATABASE__EMBEDDED_PORT", "0"));
    }

    @Test
    void firstStartMakesTokensKeepsOnlyDigestsAndRunsSurviveARestart() throws Exception {
        LoadgateConfig config = config();
        LoadgateHome lgHome = new LoadgateHome(home);
        String worker = lgHome.token("worker").orElseThrow();
        String operator = lgHome.token("operator").orElseThrow();
        assertThat(Files.getPosixFilePermissions(lgHome.tokensFile()))
                .isEqualTo(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE));
        assertThat(Files.readString(lgHome.configFile())).doesNotContain(worker, operator)
                .contains(io.loadgate.server.auth.Tokens.digest(worker));
        assertThat(new LoadgateHome(home).ensureInitialised()).as("a second start keeps the tokens")
                .isEqualTo(lgHome.configFile());
        assertThat(lgHome.token("worker")).contains(worker);

        String runId;
        try (LoadgateServer server = LoadgateServer.start(config, HadoopFileIO.class)) {
            assertThat(server.embedded()).isPresent();
            var created = send(server, worker, "POST", "/v1/runs", Map.of("jobKey", "EMBEDDED", "businessKey", "K",
                    "hdfsRoot", home.resolve("stage").toString(), "stageTablePrefix", "stg_"));
            assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
            runId = Json.MAPPER.readTree(created.body()).get("runId").asText();
        }
        try (LoadgateServer again = LoadgateServer.start(config(), HadoopFileIO.class)) {
            var run = send(again, operator, "GET", "/v1/runs/" + runId, null);
            assertThat(run.statusCode()).isEqualTo(200);
            assertThat(run.body()).contains("\"status\":\"CREATED\"");
        }
        assertThat(Files.isDirectory(home.resolve("pg"))).isTrue();
    }

    @Test
    void aHomeMadeBeforeTheViewerTokenGetsOneOnItsNextStartAndKeepsItsOtherTokens() throws Exception {
        // The home as a first start wrote it before the viewer token existed: a worker and an operator token.
        String worker = io.loadgate.server.auth.Tokens.generate();
        String operator = io.loadgate.server.auth.Tokens.generate();
        LoadgateHome lgHome = new LoadgateHome(home);
        Files.writeString(lgHome.tokensFile(), "worker=" + worker + "\noperator=" + operator + "\n");
        Files.setPosixFilePermissions(lgHome.tokensFile(), Set.of(PosixFilePermission.OWNER_READ,
                PosixFilePermission.OWNER_WRITE));
        Files.writeString(lgHome.configFile(), """
                # Written by loadgate on first start. Tokens are in %s; only their SHA-256 digests are kept here.
                auth:
                  token_digests:
                    worker: ["%s"]
                    operator: ["%s"]
                """.formatted(lgHome.tokensFile(), io.loadgate.server.auth.Tokens.digest(worker),
                io.loadgate.server.auth.Tokens.digest(operator)));

        LoadgateConfig config = config();
        String viewer = lgHome.token("viewer").orElseThrow();
        assertThat(lgHome.token("worker")).contains(worker);
        assertThat(lgHome.token("operator")).contains(operator);
        assertThat(Files.getPosixFilePermissions(lgHome.tokensFile()))
                .isEqualTo(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE));
        assertThat(Files.readString(lgHome.configFile())).doesNotContain(viewer)
                .contains("    operator: [\"" + io.loadgate.server.auth.Tokens.digest(operator) + "\"]\n"
                        + "    viewer: [\"" + io.loadgate.server.auth.Tokens.digest(viewer) + "\"]\n");
        String upgraded = Files.readString(lgHome.configFile());
        new LoadgateHome(home).ensureInitialised();
        assertThat(lgHome.token("viewer")).as("once only").contains(viewer);
        assertThat(Files.readString(lgHome.configFile())).isEqualTo(upgraded);

        try (LoadgateServer server = LoadgateServer.start(config, HadoopFileIO.class)) {
            assertThat(send(server, viewer, "GET", "/v1/runs", null).statusCode()).isEqualTo(200);
            assertThat(send(server, viewer, "POST", "/v1/runs", Map.of()).statusCode()).as("reads only")
                    .isEqualTo(403);
            assertThat(send(server, worker, "GET", "/v1/runs", null).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void aConfigWrittenByHandGetsNoViewerToken() throws Exception {
        LoadgateHome lgHome = new LoadgateHome(home);
        Files.writeString(lgHome.tokensFile(), "worker=lg_mine\n");
        String mine = "auth:\n  token_digests:\n    worker:\n      - \""
                + io.loadgate.server.auth.Tokens.digest("lg_mine") + "\"\n";
        Files.writeString(lgHome.configFile(), mine);
        assertThat(lgHome.ensureInitialised()).isEqualTo(lgHome.configFile());
        assertThat(Files.readString(lgHome.configFile())).isEqualTo(mine);
        assertThat(lgHome.token("viewer")).isEmpty();
    }

    @Test
    void theEmbeddedLedgerDatabaseSyncsEveryCommitToDisk() throws Exception {
        try (LoadgateServer.LedgerDatabase db = LoadgateServer.LedgerDatabase.open(config());
             var c = db.dataSource().getConnection(); var s = c.createStatement()) {
            assertThat(db.embedded()).as("no database.url: the embedded server").isNotNull();
            for (String setting : new String[] {"fsync", "synchronous_commit"}) {
                var rs = s.executeQuery("SHOW " + setting);
                rs.next();
                assertThat(rs.getString(1)).as("an OS crash must not lose what the ledger answered: " + setting)
                        .isEqualTo("on");
            }
        }
    }

    private static HttpResponse<String> send(LoadgateServer server, String token, String method, String path,
                                             Object body) throws Exception {
        var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .header("Authorization", "Bearer " + token)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(Json.write(body)))
                .build();
        return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
    }
}

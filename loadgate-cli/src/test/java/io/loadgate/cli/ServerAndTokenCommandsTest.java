package io.loadgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.server.auth.Tokens;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Start-up refusals and token commands: one line, a non-zero exit, nothing started. */
class ServerAndTokenCommandsTest {
    @TempDir
    Path dir;

    @Test
    void aConfigWithAnUnknownKeyIsRefusedInOneLine() throws Exception {
        Path config = Files.writeString(dir.resolve("bad.yaml"), "server: {port: 8080}\nrecovery: {mood: FAIL}\n");
        var result = OperatorCommandsTest.run("server", "--config", config.toString());
        assertThat(result.exit()).as(result.toString()).isNotZero();
        assertThat(result.errLines()).hasSize(1);
        assertThat(result.err()).contains("recovery.mood").doesNotContain("\tat ");
    }

    @Test
    void staleMustExceedTheExtractQueryTimeout() throws Exception {
        Path config = Files.writeString(dir.resolve("stale.yaml"), "recovery: {stale: 30m, extract_query_timeout: 60m}\n");
        var result = OperatorCommandsTest.run("control-loop", "--config", config.toString());
        assertThat(result.exit()).isNotZero();
        assertThat(result.err()).contains("recovery.stale").contains("extract_query_timeout");
    }

    @Test
    void aMissingConfigFileIsOneLine() {
        var result = OperatorCommandsTest.run("server", "--config", dir.resolve("nope.yaml").toString());
        assertThat(result.exit()).isNotZero();
        assertThat(result.errLines()).hasSize(1);
        assertThat(result.err()).contains("nope.yaml");
    }

    @Test
    void aWorkerRefusesABadCleanupIntervalBeforeItStarts() {
        for (String bad : List.of("5M", "1 h", "500ms", "0s")) {
            var result = OperatorCommandsTest.run("worker", "--ledger", "http://127.0.0.1:1", "--cleanup-every", bad);
            assertThat(result.exit()).as(bad + ": " + result).isEqualTo(2);
            assertThat(result.errLines()).as(bad).hasSize(1);
            assertThat(result.err()).as(bad).contains("--cleanup-every");
        }
    }

    @Test
    void tokenNewPrintsATokenAndItsDigest() {
        var created = OperatorCommandsTest.run("token", "new");
        assertThat(created.exit()).isZero();
        String token = created.out().lines().filter(l -> l.startsWith("token:")).findFirst().orElseThrow()
                .substring(6).trim();
        String digest = created.out().lines().filter(l -> l.startsWith("digest:")).findFirst().orElseThrow()
                .substring(7).trim();
        assertThat(digest).isEqualTo(Tokens.digest(token)).matches("[0-9a-f]{64}");
        var again = OperatorCommandsTest.run("token", "digest", token);
        assertThat(again.out().trim()).isEqualTo(digest);
    }

    @Test
    void anUnknownCommandIsAUsageError() {
        var result = OperatorCommandsTest.run("frobnicate");
        assertThat(result.exit()).isEqualTo(2);
        assertThat(result.err()).contains("frobnicate");
    }
}

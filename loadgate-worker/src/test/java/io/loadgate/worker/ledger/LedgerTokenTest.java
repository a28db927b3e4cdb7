package io.loadgate.worker.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loadgate.server.LoadgateHome;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LedgerTokenTest {
    @TempDir
    Path dir;

    @Test
    void readsEachRoleFromTheTokensFileTheServerWrites() throws Exception {
        LoadgateHome home = new LoadgateHome(dir);
        home.ensureInitialised();

        assertThat(LedgerToken.fromFile(home.tokensFile(), "worker").value()).isEqualTo(home.token("worker").orElseThrow());
        assertThat(LedgerToken.fromFile(home.tokensFile(), "operator").value())
                .isEqualTo(home.token("operator").orElseThrow());
        assertThat(LedgerToken.fromFile(home.tokensFile(), "viewer").value())
                .isEqualTo(home.token("viewer").orElseThrow());
        Path workerOnly = Files.writeString(dir.resolve("worker-only"), "worker=lg_abc\noperator=lg_def\n");
        assertThatThrownBy(() -> LedgerToken.fromFile(workerOnly, "viewer"))
                .hasMessage("token file " + workerOnly + " has no viewer= line");
    }

    @Test
    void aFileWithJustATokenServesEveryRole() throws Exception {
        Path file = Files.writeString(dir.resolve("t"), "# ops token\n\n  lg_abc-DEF_123  \n");
        assertThat(LedgerToken.fromFile(file, "operator").value()).isEqualTo("lg_abc-DEF_123");
        assertThat(LedgerToken.fromFile(file, "worker").value()).isEqualTo("lg_abc-DEF_123");
    }

    @Test
    void missingEmptyOrAmbiguousFilesSayWhy() throws Exception {
        assertThatThrownBy(() -> LedgerToken.fromFile(dir.resolve("nope"), "worker"))
                .isInstanceOf(UncheckedIOException.class).hasMessage("token file " + dir.resolve("nope") + " does not exist");
        Path empty = Files.writeString(dir.resolve("empty"), "\n");
        assertThatThrownBy(() -> LedgerToken.fromFile(empty, "worker")).hasMessageContaining("holds no token");
        Path two = Files.writeString(dir.resolve("two"), "a\nb\n");
        assertThatThrownBy(() -> LedgerToken.fromFile(two, "worker")).hasMessageContaining("holds 2 lines");
    }

    @Test
    void theTokenNeverShowsInToStringOrTheConfig() {
        var token = LedgerToken.of("lg_secret");
        assertThat(token.toString()).doesNotContain("secret");
        assertThat(LedgerClientConfig.builder("http://127.0.0.1:8080", token).build().toString()).doesNotContain("secret");
    }

    @Test
    void configDefaultsAndRefusals() {
        var config = LedgerClientConfig.builder("http://127.0.0.1:8080", LedgerToken.of("t")).build();
        assertThat(config.connectTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(config.requestTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.longPollMargin()).isEqualTo(Duration.ofSeconds(10));
        assertThat(config.retry()).isEqualTo(LedgerClientConfig.Retry.DEFAULT);
        assertThat(LedgerClientConfig.Retry.DEFAULT.window()).isEqualTo(Duration.ofMinutes(2));
        assertThat(LedgerClientConfig.Retry.DEFAULT.backoff(1)).isEqualTo(Duration.ofMillis(250));
        assertThat(LedgerClientConfig.Retry.DEFAULT.backoff(3)).isEqualTo(Duration.ofSeconds(1));
        assertThat(LedgerClientConfig.Retry.DEFAULT.backoff(30)).isEqualTo(Duration.ofSeconds(5));

        assertThatThrownBy(() -> LedgerClientConfig.builder("ftp://host", LedgerToken.of("t")).build())
                .hasMessageContaining("ledger URL must be http:// or https://");
        assertThatThrownBy(() -> LedgerClientConfig.builder("http://h", LedgerToken.of("t"))
                .requestTimeout(Duration.ZERO).build()).hasMessage("requestTimeout must be positive, got PT0S");
        assertThatThrownBy(() -> new LedgerClientConfig.Retry(Duration.ofSeconds(-1), Duration.ofMillis(1),
                Duration.ofMillis(1))).hasMessageContaining("retry.window must not be negative");
    }
}

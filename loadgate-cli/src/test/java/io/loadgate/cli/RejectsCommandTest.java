package io.loadgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.loadgate.server.http.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code loadgate runs rejects}: the rows a run's transforms rejected, counted by rule and shown with reasons. */
@Timeout(180)
class RejectsCommandTest {
    @TempDir
    static Path dir;
    private static JobFixture fixture;

    @BeforeAll
    static void start() throws Exception {
        fixture = new JobFixture(dir);
    }

    @AfterAll
    static void stop() {
        fixture.close();
    }

    @Test
    void showsHowManyRowsEachRuleRejectedAndTheFirstRows() throws Exception {
        // Day 2026-11-27 holds ids 1..1000 with amount = id / 4: above 100 from id 401 on, 600 rows.
        Path job = fixture.job("REJECTS", "rejects");
        Files.writeString(job, Files.readString(job) + """
                transform:
                  max_rejected: 1000
                  steps:
                    - range: {column: amount, max: 100}
                    - match: {column: label, pattern: 'x[0-9]+'}
                """);
        var loaded = fixture.run("run", job.toString(), "--business-key", "2026-11-27");
        assertThat(loaded.exit()).as(loaded.toString()).isZero();
        assertThat(loaded.out()).contains("rejected    600 rows");
        String runId = fixture.ledger.get("/v1/runs?jobKey=REJECTS").body().get(0).get("runId").asText();

        var shown = fixture.run("runs", "rejects", runId, "--limit", "3");

        assertThat(shown.exit()).as(shown.toString()).isZero();
        assertThat(shown.out()).containsPattern("(?m)^600 +range amount$").contains("600 rejected rows in 2 files",
                "The first 3, as the source had them:", "REASON", "label", "range amount: ", " is above 100");
        assertThat(shown.out().lines().filter(l -> l.startsWith("range amount: "))).hasSize(3);

        var json = fixture.run("runs", "rejects", runId, "--limit", "0", "--json");
        JsonNode body = Json.MAPPER.readTree(json.out());
        assertThat(body.get("rejectedCount").asLong()).isEqualTo(600);
        assertThat(body.at("/byRule/range amount").asLong()).isEqualTo(600);
        assertThat(body.get("rows")).isEmpty();

        var bad = fixture.run("runs", "rejects", runId, "--limit", "-1");
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.errLines()).hasSize(1);
    }

    @Test
    void aRunWithoutRejectsSaysSo() throws Exception {
        Path job = fixture.job("NO_REJECTS", "no_rejects");
        assertThat(fixture.run("run", job.toString(), "--business-key", "2026-11-28").exit()).isZero();
        String runId = fixture.ledger.get("/v1/runs?jobKey=NO_REJECTS").body().get(0).get("runId").asText();

        var shown = fixture.run("runs", "rejects", runId);

        assertThat(shown.exit()).isZero();
        assertThat(shown.out()).contains("rejected no rows");
    }
}

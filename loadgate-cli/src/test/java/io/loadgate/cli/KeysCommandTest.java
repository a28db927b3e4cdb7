package io.loadgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.server.testing.Runs;
import io.loadgate.server.testing.TestLedger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the target holds per key: {@code runs list} marks replaced and rolled-back runs, {@code keys} the holder. */
class KeysCommandTest {
    private static TestLedger ledger;
    private static Path tokens;

    @TempDir
    static Path dir;

    @BeforeAll
    static void start() throws Exception {
        ledger = new TestLedger();
        tokens = Files.writeString(dir.resolve("tokens"), "worker=" + ledger.workerToken + "\n");
    }

    @AfterAll
    static void stop() {
        ledger.close();
    }

    private static OperatorCommandsTest.Result cli(String... args) {
        return OperatorCommandsTest.runOn(ledger, tokens, args);
    }

    @Test
    void eachKeyNamesTheRunTheTargetHoldsAndRunsListMarksTheOthers() {
        String replaced = Runs.succeeded(ledger, "SALES", "2026-11-27");
        String current = Runs.succeeded(ledger, "SALES", "2026-11-27");
        String rolledBack = Runs.succeeded(ledger, "SALES", "2026-11-28");
        var rollback = ledger.send("POST", "/v1/runs/" + rolledBack + "/rollback", Map.of("reason",
                "source resent the day", "targetRef", "snapshot-2"), ledger.operatorToken);
        assertThat(rollback.status()).as(rollback.toString()).isEqualTo(200);
        String failed = Runs.failedExtract(ledger, "SALES", "2026-11-29");
        String reloadFailed = Runs.failedExtract(ledger, "SALES", "2026-11-27");

        assertThat(ledger.get("/v1/runs/" + current).text("targetState")).isEqualTo("CURRENT");
        assertThat(ledger.get("/v1/runs/" + replaced).text("targetState")).isEqualTo("REPLACED");
        assertThat(ledger.get("/v1/runs/" + rolledBack).text("targetState")).isEqualTo("ROLLED_BACK");
        assertThat(ledger.get("/v1/runs/" + failed).body().has("targetState")).as("only SUCCESS runs have one")
                .isFalse();

        var list = cli("runs", "list", "--job", "SALES");
        assertThat(list.exit()).as(list.toString()).isZero();
        assertThat(line(list.out(), replaced)).contains("SUCCESS (REPLACED)");
        assertThat(line(list.out(), rolledBack)).contains("SUCCESS (ROLLED_BACK)");
        assertThat(line(list.out(), current)).contains("SUCCESS").doesNotContain("(");

        var keys = cli("keys", "SALES");
        assertThat(keys.exit()).as(keys.toString()).isZero();
        List<String> lines = keys.out().lines().toList();
        assertThat(lines.get(0)).startsWith("BUSINESS_KEY").contains("IN_TARGET", "LAST_RUN", "LAST_STATUS");
        assertThat(line(keys.out(), "2026-11-27")).as(keys.out())
                .contains(current, reloadFailed, "FAILED_EXTRACT");
        assertThat(line(keys.out(), "2026-11-28")).contains("none (rolled back)", rolledBack,
                "SUCCESS (ROLLED_BACK)");
        assertThat(line(keys.out(), "2026-11-29")).contains("none ", failed, "FAILED_EXTRACT");
        assertThat(line(keys.out(), "2026-11-27")).as("the rows the target holds").contains(" 30 ");
        assertThat(cli("keys", "NO_SUCH_JOB").out()).contains("No runs of job NO_SUCH_JOB.");
        var json = cli("keys", "SALES", "--json");
        assertThat(json.exit()).as(json.toString()).isZero();
        assertThat(json.out()).contains("\"inTargetRunId\" : \"" + current + "\"",
                "\"rolledBackRunId\" : \"" + rolledBack + "\"");
    }

    @Test
    void runsHistoryCountsTheLastDaysRunsPerJobAndHour() {
        Runs.succeeded(ledger, "HISTORY_CLI", "2026-11-27");
        String lossy = Runs.succeeded(ledger, "HISTORY_CLI", "2026-11-28");
        Runs.failedExtract(ledger, "HISTORY_CLI", "2026-11-29");
        // In one hour, whatever the clock says now: two runs of 30 rows, one of which published 27.
        ledger.execute("UPDATE loadgate.load_run SET started_at = date_trunc('hour', now()) - interval '2 hours',"
                + " completed_at = date_trunc('hour', now()) - interval '2 hours' + interval '90 seconds'"
                + " WHERE job_key = 'HISTORY_CLI'");
        ledger.execute("UPDATE loadgate.load_run SET target_count = 27 WHERE run_id = '" + lossy + "'");

        var hours = cli("runs", "history", "--job", "HISTORY_CLI");
        assertThat(hours.exit()).as(hours.toString()).isZero();
        assertThat(hours.out().lines().toList().get(0)).startsWith("JOB").contains("HOUR", "OUTCOMES", "LOSS");
        assertThat(line(hours.out(), "HISTORY_CLI")).as(hours.out())
                .contains("SUCCESS 2, FAILED_EXTRACT 1", "5.00%", " 90 ");
        var days = cli("runs", "history", "--job", "HISTORY_CLI", "--bucket", "DAY", "--json");
        assertThat(days.exit()).as(days.toString()).isZero();
        assertThat(days.out()).contains("\"bucket\" : \"day\"", "\"rowsPublished\" : 57");
        assertThat(cli("runs", "history", "--job", "NO_SUCH_JOB").out()).startsWith("No run ended since ");
        var bad = cli("runs", "history", "--job", "lower case");
        assertThat(bad.exit()).as(bad.toString()).isEqualTo(1);
        assertThat(bad.errLines()).hasSize(1);
    }

    private static String line(String out, String containing) {
        return out.lines().filter(l -> l.contains(containing)).findFirst()
                .orElseThrow(() -> new AssertionError(containing + " not in\n" + out));
    }
}

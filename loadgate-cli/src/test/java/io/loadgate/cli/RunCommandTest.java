package io.loadgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code loadgate run} against a ledger and a worker on loopback: exit codes and one-line errors. */
@Timeout(120)
class RunCommandTest {
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

    private static Path job(String name, String sourceSection) throws Exception {
        return fixture.jobReading(name, "sales", sourceSection);
    }

    private static OperatorCommandsTest.Result run(Path job, String businessKey) {
        return fixture.run("run", job.toString(), "--business-key", businessKey);
    }

    @Test
    void aGoodJobLoadsAndExitsZeroWithASummary() throws Exception {
        var result = run(fixture.job("SALES_OK", "sales"), "2026-11-29");
        assertThat(result.exit()).as(result.toString()).isZero();
        assertThat(result.out()).contains("SUCCESS", "rows        source 2,000", "SUM:amount", "PASS");
    }

    @Test
    void anActiveRunForTheKeyIsItsOwnExitCode() throws Exception {
        Path job = fixture.job("SALES_BUSY", "sales");
        fixture.activeRun("SALES_BUSY", "2026-11-29");
        var result = run(job, "2026-11-29");
        assertThat(result.exit()).as(result.toString()).isEqualTo(RunOutcome.ACTIVE_RUN_EXISTS);
        assertThat(result.errLines()).hasSize(1);
        assertThat(result.err()).contains("already has an active run");
    }

    @Test
    void badJobsFailWithOneLineAndExitTwo() throws Exception {
        Map<String, Path> cases = new java.util.LinkedHashMap<>();
        cases.put("unknown key 'colour'", Files.writeString(dir.resolve("unknown.yaml"),
                Files.readString(fixture.job("SALES_A", "sales")) + "colour: red\n"));
        cases.put("nosuch", job("SALES_B", fixture.source("public.nosuch", "id")));
        cases.put("label", job("SALES_C", fixture.source("public.sales", "label")));
        cases.put("missing", job("SALES_D", fixture.source("public.sales", "missing")));
        cases.put("SALES_PASSWORD", fixture.job("SALES_E", "sales", "password_env: SALES_PASSWORD\n"));
        for (var c : cases.entrySet()) {
            var result = run(c.getValue(), "2026-11-29");
            assertThat(result.exit()).as(c.getKey() + "\n" + result).isEqualTo(2);
            assertThat(result.errLines()).as(c.getKey() + "\n" + result).hasSize(1);
            assertThat(result.err()).as(c.getKey()).contains(c.getKey()).doesNotContain("Exception", "\tat ");
        }
        var badKey = run(fixture.job("SALES_G", "sales"), "no spaces allowed");
        assertThat(badKey.exit()).isEqualTo(2);
        assertThat(fixture.ledger.get("/v1/runs?jobKey=SALES_B").body()).isEmpty();
    }

    @Test
    void anUnreachableSourceIsRetryableNotAMistake() throws Exception {
        Path job = job("SALES_DOWN", fixture.source("public.sales", "id").replace(fixture.source.jdbcUrl(),
                "jdbc:postgresql://127.0.0.1:1/none"));
        var result = run(job, "2026-11-29");
        assertThat(result.exit()).as(result.toString()).isEqualTo(RunOutcome.SOURCE_UNAVAILABLE);
        assertThat(result.errLines()).as(result.toString()).hasSize(1);
        assertThat(result.err()).contains("127.0.0.1:1").doesNotContain("Exception", "\tat ");
    }

    @Test
    void aDateKeyWithoutDashesIsRecordedInItsIsoForm() throws Exception {
        Path job = fixture.job("SALES_NODASH", "sales");
        var result = run(job, "20261129");
        assertThat(result.exit()).as(result.toString()).isZero();
        assertThat(result.out()).contains("business key 2026-11-29,");
        var runs = fixture.ledger.get("/v1/runs?jobKey=SALES_NODASH").body();
        assertThat(runs).hasSize(1);
        assertThat(runs.get(0).get("businessKey").asText()).isEqualTo("2026-11-29");
    }

    @Test
    void oneDayGivenInTwoFormsIsOneActiveRun() throws Exception {
        Path job = fixture.job("SALES_TWOFORMS", "sales");
        fixture.activeRun("SALES_TWOFORMS", "2026-11-29");
        var result = run(job, "20261129");
        assertThat(result.exit()).as(result.toString()).isEqualTo(RunOutcome.ACTIVE_RUN_EXISTS);
        assertThat(fixture.ledger.get("/v1/runs?jobKey=SALES_TWOFORMS").body()).hasSize(1);
    }

    @Test
    void aKeyTheColumnCannotHoldIsRefusedBeforeARunExists() throws Exception {
        Path job = fixture.job("SALES_WORDS", "sales");
        for (String key : new String[] {"yesterday", "2026-02-30", "29-11-2026"}) {
            var result = run(job, key);
            assertThat(result.exit()).as(result.toString()).isEqualTo(2);
            assertThat(result.errLines()).as(result.toString()).hasSize(1);
            assertThat(result.err()).contains("business key '" + key + "' is not a date for column day",
                    "YYYY-MM-DD");
        }
        assertThat(fixture.ledger.get("/v1/runs?jobKey=SALES_WORDS").body()).isEmpty();
    }
}

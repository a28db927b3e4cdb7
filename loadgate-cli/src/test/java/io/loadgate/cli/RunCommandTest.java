package io.loadgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.ledger.LedgerSettings;
import io.loadgate.ledger.run.StagePath;
import io.loadgate.ledger.testing.TestDatabases;
import io.loadgate.server.testing.TestLedger;
import io.loadgate.worker.execution.RunContexts;
import io.loadgate.worker.execution.SourceCache;
import io.loadgate.worker.execution.TargetCatalogs;
import io.loadgate.worker.execution.Worker;
import io.loadgate.worker.execution.WorkerContext;
import io.loadgate.worker.ledger.HttpLedgerClient;
import io.loadgate.worker.ledger.LedgerClientConfig;
import io.loadgate.worker.ledger.LedgerToken;
import io.loadgate.worker.metrics.WorkerMetrics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.hadoop.conf.Configuration;
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
    private static TestLedger ledger;
    private static TestDatabases.TestDatabase source;
    private static TestDatabases.TestDatabase lake;
    private static Path tokens;
    private static Worker worker;
    private static ScheduledExecutorService timer;
    private static SourceCache sources;
    private static TargetCatalogs catalogs;

    @BeforeAll
    static void start() throws Exception {
        ledger = new TestLedger(new LedgerSettings(List.of(StagePath.parse(dir.resolve("stage").toUri().toString())),
                LedgerSettings.RecoveryMode.FAIL, 3));
        tokens = Files.writeString(dir.resolve("tokens"), "worker=" + ledger.workerToken + "\n");
        source = TestDatabases.create();
        lake = TestDatabases.create();
        try (Connection c = source.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE sales (id bigint, amount numeric(8,2), label text, day date NOT NULL)");
            s.execute("INSERT INTO sales SELECT g, g / 4.0, 'x' || g, DATE '2026-11-29' FROM generate_series(1, 3000) g");
        }
        var client = HttpLedgerClient.create(LedgerClientConfig.builder(ledger.baseUrl(),
                LedgerToken.of(ledger.workerToken)).build());
        timer = Executors.newSingleThreadScheduledExecutor();
        sources = new SourceCache(Map.of());
        catalogs = new TargetCatalogs(Optional.empty(), dir.resolve("warehouse"));
        worker = Worker.start(new WorkerContext(client, "cli-test", new Configuration(), new WorkerContext.Shared(
                new RunContexts(client), sources, catalogs, timer, WorkerMetrics.off()),
                Duration.ofSeconds(1), Duration.ofSeconds(1)), 2);
    }

    @AfterAll
    static void stop() {
        worker.stop(Duration.ofSeconds(5));
        timer.shutdownNow();
        sources.close();
        catalogs.close();
        ledger.close();
    }

    private static Path job(String name, String sourceSection) throws Exception {
        String yaml = """
                job_key: %s
                source:
                %s
                target:
                  table: lake.sales
                  business_key_column: day
                  catalog: {type: jdbc, uri: "%s", jdbc.user: postgres, warehouse: "%s"}
                staging:
                  root: "%s"
                validation:
                  sum: [amount]
                """.formatted(name, sourceSection.indent(2).stripTrailing(), lake.jdbcUrl(),
                dir.resolve("warehouse"), dir.resolve("stage").toUri());
        return Files.writeString(dir.resolve(name + ".yaml"), yaml);
    }

    private static String source(String table, String split) {
        return """
                jdbc_url: "%s"
                user: postgres
                table: %s
                split_column: %s
                partitions: 2
                filter: "day = CAST(:business_key AS date)"
                """.formatted(source.jdbcUrl(), table, split);
    }

    private static OperatorCommandsTest.Result run(Path job, String businessKey) {
        return OperatorCommandsTest.run("run", job.toString(), "--business-key", businessKey, "--ledger",
                ledger.baseUrl(), "--token-file", tokens.toString());
    }

    @Test
    void aGoodJobLoadsAndExitsZeroWithASummary() throws Exception {
        var result = run(job("SALES_OK", source("public.sales", "id")), "2026-11-29");
        assertThat(result.exit()).as(result.toString()).isZero();
        assertThat(result.out()).contains("SUCCESS", "rows        source 3,000", "SUM:amount", "PASS");
    }

    @Test
    void anActiveRunForTheKeyIsItsOwnExitCode() throws Exception {
        Path job = job("SALES_BUSY", source("public.sales", "id"));
        Map<String, Object> busy = io.loadgate.server.testing.Runs.create("SALES_BUSY", "2026-11-29");
        busy.put("hdfsRoot", dir.resolve("stage").toUri().toString());
        assertThat(ledger.post("/v1/runs", busy).status()).isEqualTo(200);
        var result = run(job, "2026-11-29");
        assertThat(result.exit()).as(result.toString()).isEqualTo(RunOutcome.ACTIVE_RUN_EXISTS);
        assertThat(result.errLines()).hasSize(1);
        assertThat(result.err()).contains("already has an active run");
    }

    @Test
    void badJobsFailWithOneLineAndExitTwo() throws Exception {
        Map<String, Path> cases = new java.util.LinkedHashMap<>();
        cases.put("unknown key 'colour'", Files.writeString(dir.resolve("unknown.yaml"),
                Files.readString(job("SALES_A", source("public.sales", "id"))) + "colour: red\n"));
        cases.put("nosuch", job("SALES_B", source("public.nosuch", "id")));
        cases.put("label", job("SALES_C", source("public.sales", "label")));
        cases.put("missing", job("SALES_D", source("public.sales", "missing")));
        cases.put("SALES_PASSWORD", job("SALES_E", source("public.sales", "id") + "password_env: SALES_PASSWORD\n"));
        for (var c : cases.entrySet()) {
            var result = run(c.getValue(), "2026-11-29");
            assertThat(result.exit()).as(c.getKey() + "\n" + result).isEqualTo(2);
            assertThat(result.errLines()).as(c.getKey() + "\n" + result).hasSize(1);
            assertThat(result.err()).as(c.getKey()).contains(c.getKey()).doesNotContain("Exception", "\tat ");
        }
        var badKey = run(job("SALES_G", source("public.sales", "id")), "no spaces allowed");
        assertThat(badKey.exit()).isEqualTo(2);
        assertThat(ledger.get("/v1/runs?jobKey=SALES_B").body()).isEmpty();
    }

    @Test
    void anUnreachableSourceIsRetryableNotAMistake() throws Exception {
        Path job = job("SALES_DOWN", source("public.sales", "id").replace(source.jdbcUrl(),
                "jdbc:postgresql://127.0.0.1:1/none"));
        var result = run(job, "2026-11-29");
        assertThat(result.exit()).as(result.toString()).isEqualTo(RunOutcome.SOURCE_UNAVAILABLE);
        assertThat(result.errLines()).as(result.toString()).hasSize(1);
        assertThat(result.err()).contains("127.0.0.1:1").doesNotContain("Exception", "\tat ");
    }

    @Test
    void aDateKeyWithoutDashesIsRecordedInItsIsoForm() throws Exception {
        Path job = job("SALES_NODASH", source("public.sales", "id"));
        var result = run(job, "20261129");
        assertThat(result.exit()).as(result.toString()).isZero();
        assertThat(result.out()).contains("business key 2026-11-29,");
        var runs = ledger.get("/v1/runs?jobKey=SALES_NODASH").body();
        assertThat(runs).hasSize(1);
        assertThat(runs.get(0).get("businessKey").asText()).isEqualTo("2026-11-29");
    }

    @Test
    void oneDayGivenInTwoFormsIsOneActiveRun() throws Exception {
        Path job = job("SALES_TWOFORMS", source("public.sales", "id"));
        Map<String, Object> busy = io.loadgate.server.testing.Runs.create("SALES_TWOFORMS", "2026-11-29");
        busy.put("hdfsRoot", dir.resolve("stage").toUri().toString());
        assertThat(ledger.post("/v1/runs", busy).status()).isEqualTo(200);
        var result = run(job, "20261129");
        assertThat(result.exit()).as(result.toString()).isEqualTo(RunOutcome.ACTIVE_RUN_EXISTS);
        assertThat(ledger.get("/v1/runs?jobKey=SALES_TWOFORMS").body()).hasSize(1);
    }

    @Test
    void aKeyTheColumnCannotHoldIsRefusedBeforeARunExists() throws Exception {
        Path job = job("SALES_WORDS", source("public.sales", "id"));
        for (String key : new String[] {"yesterday", "2026-02-30", "29-11-2026"}) {
            var result = run(job, key);
            assertThat(result.exit()).as(result.toString()).isEqualTo(2);
            assertThat(result.errLines()).as(result.toString()).hasSize(1);
            assertThat(result.err()).contains("business key '" + key + "' is not a date for column day",
                    "YYYY-MM-DD");
        }
        assertThat(ledger.get("/v1/runs?jobKey=SALES_WORDS").body()).isEmpty();
    }
}

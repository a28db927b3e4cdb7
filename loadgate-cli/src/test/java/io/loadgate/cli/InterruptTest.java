package io.loadgate.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.loadgate.ledger.db.EmbeddedPostgres;
import io.loadgate.ledger.testing.TestDatabases;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ctrl-C and SIGTERM sent to a real {@code loadgate load} process at a chosen phase. The phase is held still with
 * PostgreSQL advisory locks the test takes in the source database: the source view evaluates {@code gate()} for each
 * row it extracts (the planner reads no such column), and the warehouse publisher waits for the business key's lock.
 * A backend waiting on an advisory lock is how the test knows the child has reached the phase.
 */
@Timeout(600)
class InterruptTest {
    private static final long GATE = 4242;

    @TempDir
    static Path dir;
    private static TestDatabases.TestDatabase db;
    /** One LOADGATE_HOME for the in-process runs: its embedded PostgreSQL is initialised once. */
    private static Path home;

    @BeforeAll
    static void source() throws Exception {
        db = TestDatabases.create();
        home = dir.resolve("home");
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE sales (id bigint, amount numeric(8,2), label text, day date NOT NULL)");
            s.execute("INSERT INTO sales SELECT g, g / 4.0, 'x' || g, DATE '2026-11-01' + (g % 4) FROM"
                    + " generate_series(1, 4000) g");
            // STABLE, so the planner drops it from the queries that do not read label (counts, sums).
            s.execute("CREATE FUNCTION gate(t text) RETURNS text LANGUAGE plpgsql STABLE AS"
                    + " $$ BEGIN PERFORM pg_advisory_xact_lock_shared(" + GATE + "); RETURN t; END $$");
            s.execute("CREATE VIEW gated_sales AS SELECT id, amount, gate(label) AS label, day FROM sales");
        }
    }

    private static Path job(Path stage, String jobKey) throws java.io.IOException {
        String yaml = """
                job_key: %s
                source:
                  jdbc_url: "%s"
                  user: postgres
                  table: public.gated_sales
                  split_column: id
                  partitions: 2
                  filter: "day = CAST(:business_key AS date)"
                target:
                  table: dw.%s
                  business_key_column: day
                  database: {jdbc_url: "%s", user: postgres}
                staging:
                  root: "%s"
                validation:
                  sum: [amount]
                """.formatted(jobKey, db.jdbcUrl(), jobKey.toLowerCase(), db.jdbcUrl(), stage.toUri());
        return Files.writeString(dir.resolve(jobKey + ".yaml"), yaml);
    }

    /** A session holding an advisory lock until closed. */
    private static Connection hold(String lockExpression) throws Exception {
        Connection c = db.connect();
        try (Statement s = c.createStatement()) {
            s.execute("SELECT pg_advisory_lock(" + lockExpression + ")");
        }
        return c;
    }

    /**
     * The lock a publish of the key's first claim (generation 1) takes first, its claim's mark, which it waits for.
     * Not the key's own lock: a publish ends a session holding that one (docs/operations.md, a publisher frozen
     * inside its warehouse transaction).
     */
    private static String firstClaimMark(String table, String businessKey) {
        return "hashtextextended('loadgate-claim:" + table + ":1:" + businessKey + "', 0)";
    }

    private static int waitingOnAdvisoryLocks() throws Exception {
        try (Connection c = db.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                     + " AND wait_event = 'advisory' AND datname = current_database()")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static void awaitBlocked(CliProcess child) {
        await().atMost(Duration.ofSeconds(240)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            assertThat(child.process().isAlive()).as("child alive\n" + child).isTrue();
            assertThat(waitingOnAdvisoryLocks()).as("a backend waits on the test's lock").isPositive();
        });
    }

    /**
     * The job's runs in the ledger on {@code home}, oldest first, each as its status and error message (the ledger's
     * database must have stopped).
     */
    private static List<String> statuses(String jobKey) throws Exception {
        List<String> statuses = new ArrayList<>();
        try (EmbeddedPostgres pg = EmbeddedPostgres.start(home.resolve("pg"), 0);
             Connection c = java.sql.DriverManager.getConnection(pg.jdbcUrl("loadgate"), pg.user(), "");
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT status || coalesce(' ' || error_message, '') FROM loadgate.load_run WHERE job_key = '" + jobKey
                     + "' ORDER BY started_at")) {
            while (rs.next()) {
                statuses.add(rs.getString(1));
            }
        }
        return statuses;
    }

    private static void assertNoStackTrace(CliProcess child) {
        assertThat(child.stderr()).as(child.toString()).doesNotContain("\tat ", "Exception");
    }

    @Test
    void ctrlCWhileExtractingCancelsTheRunAndTheKeyLoadsAgainAtOnce() throws Exception {
        Path job = job(home.resolve("stage"), "SALES_INT_EXTRACT");
        CliProcess child;
        try (Connection gate = hold(Long.toString(GATE))) {
            child = CliProcess.start(dir, home, "load", job.toString(), "--business-key", "20261102");
            awaitBlocked(child);
            child.signal("INT");
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                    assertThat(child.stderr()).as(child.toString()).contains("is cancelled"));
        }
        assertThat(child.exit()).as(child.toString()).isEqualTo(130);
        assertThat(child.stderr()).contains("interrupted (SIGINT)", "ended CANCELLED");
        assertNoStackTrace(child);

        CliProcess again = CliProcess.start(dir, home, "load", job.toString(), "--business-key", "2026-11-02");
        assertThat(again.exit()).as(again.toString()).isZero();
        assertThat(statuses("SALES_INT_EXTRACT")).hasSize(2).last().isEqualTo("SUCCESS");
        assertThat(statuses("SALES_INT_EXTRACT").get(0)).startsWith("CANCELLED").contains(Interruption.REASON);
    }

    @Test
    void sigtermAfterThePublishClaimFinishesThePublishAndExitsWithTheRunsCode() throws Exception {
        Path job = job(home.resolve("stage"), "SALES_INT_PUBLISH");
        CliProcess child;
        try (Connection key = hold(firstClaimMark("dw.sales_int_publish", "2026-11-03"))) {
            child = CliProcess.start(dir, home, "load", job.toString(), "--business-key", "2026-11-03");
            awaitBlocked(child);
            child.signal("TERM");
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                    assertThat(child.stderr()).as(child.toString()).contains("could not be cancelled"));
        }
        assertThat(child.exit()).as(child.toString()).isZero();
        assertThat(child.stdout()).contains("SUCCESS");
        assertNoStackTrace(child);

        CliProcess again = CliProcess.start(dir, home, "load", job.toString(), "--business-key", "2026-11-03");
        assertThat(again.exit()).as(again.toString()).isZero();
        assertThat(statuses("SALES_INT_PUBLISH")).containsExactly("SUCCESS", "SUCCESS");
    }

    @Test
    void withALedgerCtrlCSaysTheRunGoesOnOrCancelsIt() throws Exception {
        try (JobFixture fixture = new JobFixture(Files.createDirectories(dir.resolve("fixture")))) {
            Path job = job(fixture.dir.resolve("stage"), "SALES_INT_REMOTE");
            String ledger = fixture.ledger.baseUrl();
            String tokens = fixture.tokens.toString();
            try (Connection gate = hold(Long.toString(GATE))) {
                CliProcess left = CliProcess.start(dir, dir.resolve("unused-home"), "load", job.toString(), "--business-key",
                        "2026-11-02", "--ledger", ledger, "--token-file", tokens);
                awaitBlocked(left);
                left.signal("INT");
                assertThat(left.exit()).as(left.toString()).isEqualTo(130);
                UUID runId = left.runId();
                assertThat(left.stderr().lines().filter(l -> l.startsWith("loadgate:")).toList()).as(left.toString())
                        .containsExactly("loadgate: interrupted (SIGINT); run " + runId + " goes on without this"
                                + " command (a partition still reading this process's snapshot fails); stop it with:"
                                + " loadgate cancel " + runId + " --reason \"...\"");
                assertThat(fixture.ledger.get("/v1/runs/" + runId).text("status")).isEqualTo("EXTRACTING");
                assertThat(fixture.run("cancel", runId.toString(), "--reason", "test over").exit()).isZero();
            }
            // The cancelled run's partitions let go of the fixture's two worker threads once the gate opens.
            await().atMost(Duration.ofSeconds(60)).until(() -> waitingOnAdvisoryLocks() == 0);
            try (Connection gate = hold(Long.toString(GATE))) {
                CliProcess cancelled = CliProcess.start(dir, dir.resolve("unused-home"), "load", job.toString(), "--business-key",
                        "2026-11-03", "--cancel-on-interrupt", "--ledger", ledger, "--token-file", tokens);
                awaitBlocked(cancelled);
                cancelled.signal("INT");
                assertThat(cancelled.exit()).as(cancelled.toString()).isEqualTo(130);
                UUID second = cancelled.runId();
                assertThat(cancelled.stderr()).contains("run " + second + " is cancelled");
                assertThat(fixture.ledger.get("/v1/runs/" + second).text("status")).isEqualTo("CANCELLED");
                assertNoStackTrace(cancelled);
            }
        }
    }
}

package io.loadgate.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.loadgate.ledger.db.EmbeddedPostgres;
import io.loadgate.ledger.testing.TestDatabases;
import io.loadgate.server.LoadgateHome;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** With {@code loadgate server} running on a LOADGATE_HOME, {@code load} and {@code runs} there use it. */
@Timeout(600)
class ServerOnHomeTest {
    @TempDir
    Path dir;

    @Test
    void loadAndRunsUseTheServerRunningOnTheirHome() throws Exception {
        TestDatabases.TestDatabase db = TestDatabases.create();
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE sales (id bigint, amount numeric(8,2), day date NOT NULL)");
            s.execute("INSERT INTO sales SELECT g, g / 4.0, DATE '2026-11-29' FROM generate_series(1, 500) g");
        }
        Path home = dir.resolve("home");
        Path job = Files.writeString(dir.resolve("job.yaml"), """
                job_key: SALES_SERVED
                source:
                  jdbc_url: "%s"
                  user: postgres
                  table: public.sales
                  split_column: id
                  partitions: 2
                  filter: "day = CAST(:business_key AS date)"
                target:
                  table: lake.sales
                  business_key_column: day
                staging:
                  root: "%s"
                """.formatted(db.jdbcUrl(), home.resolve("stage").toUri()));
        CliProcess server = CliProcess.start(dir, home, Map.of("LOADGATE_SERVER__PORT", "0"), "server");
        try {
            await().atMost(Duration.ofSeconds(240)).untilAsserted(() -> {
                assertThat(server.process().isAlive()).as(server.toString()).isTrue();
                assertThat(new LoadgateHome(home).runningServer()).isPresent();
            });
            String url = new LoadgateHome(home).runningServer().orElseThrow().url();
            assertThat(server.stdout()).as("the banner: where it is bound, the API and the dashboard")
                    .contains("Loadgate ledger listening on ", "API:       " + url + "/v1",
                            "Dashboard: " + url + "/dashboard");
            // What a second ledger on that home would say: the pid it names is PostgreSQL's, not to be killed.
            assertThatThrownBy(() -> EmbeddedPostgres.start(home.resolve("pg"), 0))
                    .hasMessageContaining("in use by another Loadgate process").hasMessageContaining("do not kill");

            CliProcess load = CliProcess.start(dir, home, "load", job.toString(), "--business-key", "20261129");
            assertThat(load.exit()).as(load.toString()).isZero();
            assertThat(load.stderr()).contains("using loadgate server (pid " + server.process().pid() + ") at " + url);
            assertThat(load.stdout()).contains("SUCCESS");

            CliProcess runs = CliProcess.start(dir, home, "runs", "list", "--job", "SALES_SERVED");
            assertThat(runs.exit()).as(runs.toString()).isZero();
            assertThat(runs.stdout()).contains(load.runId().toString(), "SUCCESS", "2026-11-29");

            server.signal("TERM");
            // The JVM's own answer to SIGTERM, once the shutdown hook has stopped the server.
            assertThat(server.exit()).as(server.toString()).isEqualTo(143);
            assertThat(new LoadgateHome(home).runningServer()).isEmpty();
            assertThat(home.resolve(LoadgateHome.SERVER_FILE)).doesNotExist();
        } finally {
            server.process().destroyForcibly();
        }
    }
}

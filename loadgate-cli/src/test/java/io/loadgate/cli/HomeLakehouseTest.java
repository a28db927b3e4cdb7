package io.loadgate.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loadgate.api.RunStatus;
import io.loadgate.ledger.testing.TestDatabases;
import io.loadgate.server.LoadgateHome;
import io.loadgate.server.LoadgateServer;
import io.loadgate.server.config.ConfigLoader;
import io.loadgate.server.config.LoadgateConfig;
import io.loadgate.server.config.ServerConfig;
import io.loadgate.worker.execution.RunContexts;
import io.loadgate.worker.execution.SourceCache;
import io.loadgate.worker.execution.TargetCatalogs;
import io.loadgate.worker.execution.Worker;
import io.loadgate.worker.execution.WorkerContext;
import io.loadgate.worker.job.JobSpecLoader;
import io.loadgate.worker.ledger.HttpLedgerClient;
import io.loadgate.worker.ledger.LedgerClientConfig;
import io.loadgate.worker.ledger.LedgerToken;
import io.loadgate.worker.metrics.WorkerMetrics;
import io.loadgate.worker.publish.CatalogConfig;
import io.loadgate.worker.submit.RunFollower;
import io.loadgate.worker.submit.RunSubmitter;
import io.loadgate.worker.submit.TargetCheckException;
import io.loadgate.worker.submit.TargetChecks;
import io.loadgate.worker.target.Targets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker started as the README shows ({@code loadgate worker --ledger URL --token-file F}, no {@code --catalog})
 * beside a {@code loadgate server} on the same {@code $LOADGATE_HOME} publishes jobs without {@code target.catalog}
 * into that ledger's lakehouse catalog; without any default catalog, the submit is refused before the run.
 */
@Timeout(180)
class HomeLakehouseTest {
    @TempDir
    Path home;

    @Test
    void aWorkerBesideAServerDefaultsToItsLakehouseAndASubmitWithoutOneIsRefused() throws Exception {
        Map<String, String> env = Map.of("LOADGATE_HOME", home.toString(), "LOADGATE_DATABASE__EMBEDDED_PORT", "0");
        Path warehouse = home.resolve("warehouse");
        assertThat(HomeLakehouse.find(env, warehouse)).as("a home without a ledger").isEmpty();
        Path configFile = new LoadgateHome(home).ensureInitialised();
        assertThat(HomeLakehouse.find(env, warehouse)).as("a home whose ledger is not running").isEmpty();

        LoadgateConfig configured = ConfigLoader.load(Optional.of(configFile), env);
        LoadgateConfig config = new LoadgateConfig(new ServerConfig("127.0.0.1", 0, null), configured.database(),
                configured.auth(), configured.recovery(), configured.dispatch(), configured.cleanup(), home);
        var source = TestDatabases.create();
        try (Connection c = source.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE sales (id bigint, amount numeric(8,2), day date NOT NULL)");
            s.execute("INSERT INTO sales SELECT g, g / 4.0, DATE '2026-11-29' FROM generate_series(1, 1200) g");
        }
        String yaml = """
                job_key: HOME_DEFAULT
                source:
                  jdbc_url: "%s"
                  user: postgres
                  table: public.sales
                  split_column: id
                  partitions: 2
                  filter: "day = CAST(:business_key AS date)"
                target:
                  table: lake.home_sales
                  business_key_column: day
                staging:
                  root: "%s"
                """.formatted(source.jdbcUrl(), home.resolve("stage").toUri());
        var job = JobSpecLoader.parse(Path.of("home.yaml"), yaml);
        Files.createDirectories(home.resolve("stage"));
        var timer = Executors.newSingleThreadScheduledExecutor();
        try (LoadgateServer server = LoadgateServer.start(config, LocalLoadgate.LAKEHOUSE_IO)) {
            Optional<CatalogConfig> lakehouse = HomeLakehouse.find(env, warehouse);
            assertThat(lakehouse).as("the running ledger's lakehouse").hasValueSatisfying(c -> assertThat(c.uri())
                    .isEqualTo(server.embedded().orElseThrow().jdbcUrl("lakehouse")));

            String token = Files.readAllLines(new LoadgateHome(home).tokensFile()).stream()
                    .filter(l -> l.startsWith("worker=")).findFirst().orElseThrow().substring("worker=".length());
            var client = HttpLedgerClient.create(LedgerClientConfig.builder("http://127.0.0.1:" + server.port(),
                    LedgerToken.of(token)).build());

            try (TargetCatalogs none = new TargetCatalogs(Optional.empty(), warehouse);
                 SourceCache sources = new SourceCache(Map.of())) {
                assertThatThrownBy(() -> new RunSubmitter(client, sources, Map.of(),
                        new TargetChecks(new Targets(none, Map.of(), new Configuration()))).submit(job, yaml, "2026-11-29"))
                        .isInstanceOf(TargetCheckException.class)
                        .hasMessageContaining("names no target.catalog");
                assertThat(client.listRuns(io.loadgate.api.RunApi.RunFilter.all())).as("no run was created").isEmpty();
            }

            try (TargetCatalogs catalogs = new TargetCatalogs(lakehouse, warehouse);
                 SourceCache workerSources = new SourceCache(Map.of());
                 SourceCache submitterSources = new SourceCache(Map.of())) {
                Worker worker = Worker.start(new WorkerContext(client, "beside-the-server", new Configuration(),
                        new WorkerContext.Shared(new RunContexts(client), workerSources, catalogs, timer,
                                WorkerMetrics.off()), Duration.ofSeconds(1), Duration.ofSeconds(1)), 2);
                try (var submission = new RunSubmitter(client, submitterSources, Map.of(),
                        new TargetChecks(new Targets(catalogs, Map.of(), new Configuration()))).submit(job, yaml, "2026-11-29")) {
                    var end = new RunFollower(client, Duration.ofMillis(200), Duration.ofSeconds(10))
                            .follow(submission.runId(), submission, run -> { });
                    assertThat(end.status()).as("%s", end).isEqualTo(RunStatus.SUCCESS);
                    assertThat(end.targetCount()).isEqualTo(1200L);
                } finally {
                    worker.stop(Duration.ofSeconds(5));
                }
            }
        } finally {
            timer.shutdownNow();
        }
    }
}

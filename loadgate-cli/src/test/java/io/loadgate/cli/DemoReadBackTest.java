package io.loadgate.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.loadgate.server.LoadgateHome;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a new user does after {@code bin/loadgate demo}: loads the demo's job again with {@code load} (the embedded
 * PostgreSQL keeps its port, so the job's source URL still answers), and reads the table from an engine through the
 * Iceberg REST catalog of {@code loadgate server} on the same home, with the home's tokens. Child processes, as
 * bin/loadgate runs them.
 */
@Timeout(900)
class DemoReadBackTest {
    private static final LocalDate DAY = LocalDate.of(2026, 11, 29);
    private static final TableIdentifier ORDERS = TableIdentifier.of("lake", "orders");
    private static final long ROWS = 3000;

    @TempDir
    Path dir;

    @Test
    void theDemoLoadsAgainAndItsTableReadsThroughTheLedgersRestCatalog() throws Exception {
        Path home = dir.resolve("home");
        int pgPort = freePort();
        int apiPort = freePort();
        Map<String, String> env = Map.of("LOADGATE_DATABASE__EMBEDDED_PORT", Integer.toString(pgPort),
                "LOADGATE_SERVER__PORT", Integer.toString(apiPort));
        CliProcess demo = CliProcess.start(dir, home, env, "demo", "--rows", Long.toString(ROWS), "--partitions", "2",
                "--business-key", DAY.toString());
        assertThat(demo.exit()).as(demo.toString()).isZero();
        Path job = home.resolve("demo").resolve("orders.yaml");
        assertThat(Files.readString(job)).contains("jdbc:postgresql://127.0.0.1:" + pgPort + "/demo");
        String catalogUrl = "http://127.0.0.1:" + apiPort + "/iceberg";
        assertThat(demo.stdout()).contains(DemoCommand.closingLines("lake.orders", job, DAY, catalogUrl, home))
                .contains("spark.sql.catalog.lake.type=rest", "load_catalog(\"lake\", type=\"rest\"");

        CliProcess again = CliProcess.start(dir, home, env, "load", job.toString(), "--business-key", DAY.toString());
        assertThat(again.exit()).as(again.toString()).isZero();
        assertThat(again.stdout()).contains("SUCCESS");
        // replay too: its keys are checked against the demo's source once the embedded PostgreSQL runs.
        CliProcess replay = CliProcess.start(dir, home, env, "replay", job.toString(), "--business-key",
                DAY.toString());
        assertThat(replay.exit()).as(replay.toString()).isZero();
        assertThat(replay.stdout()).contains("1 of 1 business keys succeeded");

        CliProcess count = CliProcess.start(dir, home, env, "table", "count", job.toString(), "--json");
        assertThat(count.exit()).as(count.toString()).isZero();
        assertThat(json(count)).isEqualTo("""
                {
                  "table" : "lake.orders",
                  "rows" : %d
                }""".formatted(ROWS));
        CliProcess snapshots = CliProcess.start(dir, home, env, "table", "snapshots", job.toString(), "--json");
        assertThat(snapshots.exit()).as(snapshots.toString()).isZero();

        CliProcess server = CliProcess.start(dir, home, env, "server");
        try {
            await().atMost(Duration.ofSeconds(240)).untilAsserted(() -> {
                assertThat(server.process().isAlive()).as(server.toString()).isTrue();
                assertThat(new LoadgateHome(home).runningServer()).isPresent();
            });
            assertThat(server.stdout()).contains("Iceberg REST catalog (its lakehouse): " + catalogUrl);
            LoadgateHome lgHome = new LoadgateHome(home);
            try (RESTCatalog viewer = rest(catalogUrl, Map.of("token", lgHome.token("viewer").orElseThrow()))) {
                assertThat(viewer.listNamespaces()).containsExactly(Namespace.of("lake"));
                assertThat(viewer.listTables(Namespace.of("lake"))).containsExactly(ORDERS);
                Table table = viewer.loadTable(ORDERS);
                assertThat(count(table)).as("the day replaced, not doubled").isEqualTo(ROWS);
                assertThat(table.snapshots()).as("the demo, load, replay").hasSize(3);
                assertThat(json(snapshots)).isEqualTo(snapshotsJson(table));
                assertThat(table.currentSnapshot().summary()).containsKey(io.loadgate.worker.publish.IcebergPublisher.PUBLISH_TOKEN_PROPERTY);
                assertThatThrownBy(() -> table.updateProperties().set("owner", "viewer").commit())
                        .isInstanceOf(ForbiddenException.class).hasMessageContaining("only a worker may change");
            }
            assertThatThrownBy(() -> rest(catalogUrl, Map.of())).isInstanceOf(NotAuthorizedException.class);
            assertThatThrownBy(() -> rest(catalogUrl, Map.of("token", "lg_not-a-token")))
                    .isInstanceOf(NotAuthorizedException.class);

            // The OAuth2 client-credentials exchange, as engines that take a credential rather than a token use it.
            Map<String, String> credential = Map.of("credential", "loadgate:" + lgHome.token("worker").orElseThrow(),
                    "oauth2-server-uri", catalogUrl + "/v1/oauth/tokens");
            try (RESTCatalog worker = rest(catalogUrl, credential)) {
                worker.loadTable(ORDERS).updateProperties().set("owner", "analytics").commit();
                assertThat(worker.loadTable(ORDERS).properties()).containsEntry("owner", "analytics");
            }
        } finally {
            server.process().destroyForcibly();
            server.process().waitFor();
        }
    }

    @Test
    void aTakenPortIsOneLineAndANonZeroExit() throws Exception {
        try (ServerSocket taken = new ServerSocket(0)) {
            String port = Integer.toString(taken.getLocalPort());
            CliProcess demo = CliProcess.start(dir, dir.resolve("pg-taken"),
                    Map.of("LOADGATE_DATABASE__EMBEDDED_PORT", port), "demo", "--rows", "10");
            assertThat(demo.exit()).as(demo.toString()).isEqualTo(1);
            assertThat(demo.stderr().strip()).isEqualTo("loadgate: port " + port + " for the embedded PostgreSQL is"
                    + " taken by another program: stop it, or set database.embedded_port in"
                    + " $LOADGATE_HOME/loadgate.yaml (or LOADGATE_DATABASE__EMBEDDED_PORT; 0 = any free port)");

            CliProcess server = CliProcess.start(dir, dir.resolve("api-taken"), Map.of("LOADGATE_SERVER__PORT", port),
                    "server");
            assertThat(server.exit()).as(server.toString()).isEqualTo(1);
            assertThat(server.stderr()).contains("loadgate: port " + port + " for the ledger API is taken");
            assertThat(server.stderr().lines().filter(l -> l.startsWith("loadgate:"))).hasSize(1);
        }
    }

    /** The JSON a child printed, after what logback may print first about the test class path's configuration. */
    private static String json(CliProcess child) {
        String out = child.stdout();
        return out.substring(Math.max(0, out.indexOf("{\n"))).strip();
    }

    /** The snapshots {@code loadgate table snapshots --json} prints: the table's, each with its publish's ids. */
    private static String snapshotsJson(Table table) {
        StringBuilder json = new StringBuilder("{\n  \"table\" : \"lake.orders\",\n  \"snapshots\" : [ ");
        String separator = "";
        for (var snapshot : table.snapshots()) {
            var summary = snapshot.summary();
            json.append(separator).append("""
                    {
                        "id" : "%d",
                        "committedAt" : "%s",
                        "operation" : "%s",
                        "runId" : "%s",
                        "publishToken" : "%s",
                        "businessKey" : "2026-11-29",
                        "rows" : %d
                      }""".formatted(snapshot.snapshotId(), java.time.Instant.ofEpochMilli(snapshot.timestampMillis()),
                    snapshot.operation(), summary.get("loadgate.run-id"), summary.get("loadgate.publish-token"), ROWS));
            separator = ", ";
        }
        return json.append(" ]\n}").toString();
    }

    private static RESTCatalog rest(String uri, Map<String, String> auth) {
        RESTCatalog catalog = new RESTCatalog();
        catalog.setConf(new Configuration());
        Map<String, String> properties = new HashMap<>(auth);
        properties.put("uri", uri);
        catalog.initialize("lake", properties);
        return catalog;
    }

    private static long count(Table table) throws IOException {
        long rows = 0;
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            for (Record ignored : records) {
                rows++;
            }
        }
        return rows;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}

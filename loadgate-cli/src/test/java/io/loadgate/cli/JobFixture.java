package io.loadgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.ledger.LedgerSettings;
import io.loadgate.ledger.run.StagePath;
import io.loadgate.ledger.testing.TestDatabases;
import io.loadgate.server.testing.Runs;
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
import io.loadgate.worker.publish.CatalogConfig;
import io.loadgate.worker.publish.TargetCatalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * What the job commands' tests run against: a real ledger on loopback (worker and operator tokens in a token file),
 * two workers, a PostgreSQL source with a {@code sales} table of three days (1,000, 1,500 and 2,000 rows), and an
 * Iceberg JDBC catalog in its own database with the warehouse under {@code dir}.
 */
final class JobFixture implements AutoCloseable {
    static final Map<String, Long> ROWS_BY_DAY = Map.of("2026-11-27", 1000L, "2026-11-28", 1500L, "2026-11-29", 2000L);

    final Path dir;
    final TestLedger ledger;
    final TestDatabases.TestDatabase source;
    final TestDatabases.TestDatabase lake;
    final Path tokens;
    private final Worker worker;
    private final ScheduledExecutorService timer;
    private final SourceCache sources;
    private final TargetCatalogs catalogs;
    private final TargetCatalog catalog;

    JobFixture(Path dir) throws Exception {
        this.dir = dir;
        ledger = new TestLedger(new LedgerSettings(List.of(StagePath.parse(dir.resolve("stage").toUri().toString())),
                LedgerSettings.RecoveryMode.FAIL, 3));
        tokens = Files.writeString(dir.resolve("tokens"), "worker=" + ledger.workerToken + "\noperator="
                + ledger.operatorToken + "\n");
        source = TestDatabases.create();
        lake = TestDatabases.create();
        try (Connection c = source.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE sales (id bigint, amount numeric(8,2), label text, day date NOT NULL)");
            long first = 1;
            for (var day : new TreeMap<>(ROWS_BY_DAY).entrySet()) {
                s.execute("INSERT INTO sales SELECT g, g / 4.0, 'x' || g, DATE '" + day.getKey() + "' FROM"
                        + " generate_series(" + first + ", " + (first + day.getValue() - 1) + ") g");
                first += day.getValue();
            }
        }
        var client = HttpLedgerClient.create(LedgerClientConfig.builder(ledger.baseUrl(),
                LedgerToken.of(ledger.workerToken)).build());
        timer = Executors.newSingleThreadScheduledExecutor();
        sources = new SourceCache(Map.of());
        catalogs = new TargetCatalogs(Optional.empty(), dir.resolve("warehouse"));
        worker = Worker.start(new WorkerContext(client, "cli-test", new Configuration(), new WorkerContext.Shared(
                new RunContexts(client), sources, catalogs, timer, WorkerMetrics.off()),
                Duration.ofSeconds(1), Duration.ofSeconds(1)), 2);
        catalog = TargetCatalog.open(CatalogConfig.fromProperties(catalogProperties(), dir.resolve("warehouse")));
    }

    private Map<String, String> catalogProperties() {
        return Map.of("type", "jdbc", "uri", lake.jdbcUrl(), "jdbc.user", "postgres",
                "warehouse", dir.resolve("warehouse").toString());
    }

    /** A job on the {@code sales} table loading into {@code lake.<table>}; {@code sourceExtra} adds source keys. */
    Path job(String jobKey, String table, String sourceExtra) throws Exception {
        return jobReading(jobKey, table, source("public.sales", "id") + sourceExtra);
    }

    /** The source section of a job reading {@code table} of the source database, split on {@code splitColumn}. */
    String source(String table, String splitColumn) {
        return """
                jdbc_url: "%s"
                user: postgres
                table: %s
                split_column: %s
                partitions: 2
                filter: "day = CAST(:business_key AS date)"
                """.formatted(source.jdbcUrl(), table, splitColumn);
    }

    /** A job with {@code sourceSection} as its source's keys, loading into {@code lake.<table>} by day. */
    Path jobReading(String jobKey, String table, String sourceSection) throws Exception {
        String yaml = """
                job_key: %s
                source:
                %s
                target:
                  table: lake.%s
                  business_key_column: day
                  catalog: {type: jdbc, uri: "%s", jdbc.user: postgres, warehouse: "%s"}
                staging:
                  root: "%s"
                validation:
                  sum: [amount]
                """.formatted(jobKey, sourceSection.indent(2).stripTrailing(), table, lake.jdbcUrl(),
                dir.resolve("warehouse"), dir.resolve("stage").toUri());
        return Files.writeString(dir.resolve(jobKey + ".yaml"), yaml);
    }

    Path job(String jobKey, String table) throws Exception {
        return job(jobKey, table, "");
    }

    /**
     * A file job (NDJSON {@code {"id": n}} lines in Camus directories under {@code root}, grouped by hour) loading into
     * {@code lake.<table>}, the hour in its derived {@code load_key} column.
     */
    Path fileJob(String jobKey, String table, Path root) throws Exception {
        String yaml = """
                job_key: %s
                source:
                  files:
                    root: "%s"
                    format: ndjson
                    group_by: hour
                    columns:
                      - {name: id, type: bigint}
                target:
                  table: lake.%s
                  business_key_column: load_key
                  catalog: {type: jdbc, uri: "%s", jdbc.user: postgres, warehouse: "%s"}
                staging:
                  root: "%s"
                transform:
                  max_rejected: 1
                """.formatted(jobKey, root.toUri(), table, lake.jdbcUrl(), dir.resolve("warehouse"),
                dir.resolve("stage").toUri());
        return Files.writeString(dir.resolve(jobKey + ".yaml"), yaml);
    }

    /** Rows per value of {@code column} (a string column) in the table's current snapshot. */
    Map<String, Long> rowsBy(String table, String column) throws Exception {
        Map<String, Long> rows = new TreeMap<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table(table)).build()) {
            for (Record r : records) {
                rows.merge(String.valueOf(r.getField(column)), 1L, Long::sum);
            }
        }
        return rows;
    }

    /** The same job publishing into the warehouse table {@code dw.<table>} of the {@code lake} database. */
    Path warehouseJob(String jobKey, String table) throws Exception {
        return warehouseJob(jobKey, table, "");
    }

    /** {@link #warehouseJob(String, String)} with {@code sourceExtra} added to the source's keys. */
    Path warehouseJob(String jobKey, String table, String sourceExtra) throws Exception {
        String yaml = Files.readString(job(jobKey, table, sourceExtra))
                .replace("  table: lake." + table + "\n", "  table: dw." + table + "\n")
                .replaceAll("  catalog: \\{[^\n]*\\}\n", "  database: {jdbc_url: \"" + lake.jdbcUrl() + "\", user: postgres}\n");
        return Files.writeString(dir.resolve(jobKey + ".yaml"), yaml);
    }

    /** Rows per business day in warehouse table {@code dw.<table>}. */
    Map<String, Long> warehouseRowsByDay(String table) throws Exception {
        Map<String, Long> rows = new TreeMap<>();
        try (Connection c = lake.connect(); Statement s = c.createStatement();
             var rs = s.executeQuery("SELECT day, count(*) FROM dw." + table + " GROUP BY day")) {
            while (rs.next()) {
                rows.put(rs.getDate(1).toLocalDate().toString(), rs.getLong(2));
            }
        }
        return rows;
    }

    /** The runs of {@code jobKey} the ledger holds, only those matching {@code andWhere} ("AND ..." SQL) if given. */
    long runs(String jobKey, String andWhere) {
        return ledger.count("SELECT count(*) FROM loadgate.load_run WHERE job_key = '" + jobKey + "'" + andWhere);
    }

    long runs(String jobKey) {
        return runs(jobKey, "");
    }

    /** Creates a run of the key that stays CREATED (it has no manifest, so no worker takes it): an active run. */
    String activeRun(String jobKey, String businessKey) {
        Map<String, Object> busy = Runs.create(jobKey, businessKey);
        busy.put("hdfsRoot", dir.resolve("stage").toUri().toString());
        var created = ledger.post("/v1/runs", busy);
        assertThat(created.status()).as(created.toString()).isEqualTo(200);
        return created.text("runId");
    }

    /** The command with the fixture's {@code --ledger} and {@code --token-file} appended. */
    OperatorCommandsTest.Result run(String... args) {
        return OperatorCommandsTest.runOn(ledger, tokens, args);
    }

    /** The table as the catalog has it now, or null when it does not exist. */
    Table table(String table) {
        TableIdentifier id = TableIdentifier.of("lake", table);
        return catalog.catalog().tableExists(id) ? catalog.loadTable(id) : null;
    }

    /** Rows per business day in the table's current snapshot. */
    Map<String, Long> rowsByDay(String table) throws Exception {
        Map<String, Long> rows = new TreeMap<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table(table)).build()) {
            for (Record r : records) {
                rows.merge(((LocalDate) r.getField("day")).toString(), 1L, Long::sum);
            }
        }
        return rows;
    }

    @Override
    public void close() {
        worker.stop(Duration.ofSeconds(5));
        timer.shutdownNow();
        sources.close();
        catalogs.close();
        catalog.close();
        ledger.close();
    }
}

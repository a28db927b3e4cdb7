package io.loadgate.worker.execution;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.api.BusinessKey;
import io.loadgate.api.RunApi;
import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunStatus;
import io.loadgate.ledger.LedgerSettings.RecoveryMode;
import io.loadgate.ledger.testing.TestDatabases;
import io.loadgate.worker.submit.RunSubmitter;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Camus directory drops loaded end to end: real files on the local file system (a gzip file, a malformed line),
 * the ledger, workers, and an Iceberg table or a PostgreSQL warehouse table as the target.
 */
@Timeout(180)
class FileLoadEndToEndTest {
    private static final String HOUR = "2026/11/30/14";
    private static final String KEY = "2026-11-30T14";

    @TempDir
    Path dir;
    private Path drops;
    private LoadHarness harness;

    @BeforeEach
    void start() throws Exception {
        drops = dir.resolve("drops");
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        writeDrops(drops);
    }

    /**
     * Camus drops of hour {@link #KEY}: ids 0..399 in a plain file ending in a malformed line, 400..699 gzipped, and
     * ids 5,000..5,049 of the next hour. Also the Hive target's end-to-end test's.
     */
    static void writeDrops(Path drops) throws IOException {
        lines(drops, "d_20261130-1400/part-0.json", 0, 400);
        Files.writeString(drops.resolve("d_20261130-1400/part-0.json"), "{\"id\": 9999, \"amount\": \"x\n",
                StandardOpenOption.APPEND);
        gzipLines(drops, "d_20261130-1410/part-0.json.gz", 400, 300);
        lines(drops, "d_20261130-1500/part-0.json", 5_000, 50);
    }

    @AfterEach
    void stop() {
        if (harness != null) {
            harness.close();
        }
    }

    private static final String COLUMNS = """
            - {name: id, type: bigint}
            - {name: user_name, type: string, from: /user/name}
            - {name: amount, type: "decimal(10,2)"}""";

    private String job(String target) {
        return job(target, COLUMNS, "");
    }

    /** The job over the drops, with {@code columns} and the {@code transform} section's lines besides max_rejected. */
    private String job(String target, String columns, String transform) {
        return """
                job_key: EVENTS
                source:
                  files:
                    root: "%s"
                    format: ndjson
                    group_by: hour
                    partitions: 2
                    columns:
                %starget:
                %sstaging:
                  root: "%s"
                  rows_per_chunk: 250
                transform:
                  max_rejected: 1
                %svalidation:
                  sum: [amount]
                  null_count: [user_name]
                """.formatted(drops.toUri(), columns.indent(6), target.indent(2), harness.stage.toUri(),
                transform.indent(2));
    }

    /**
     * Thrive's mapper.py on Hadoop Streaming, as a job's mapper: each event gives two TSV rows (ids 2n and 2n+1), a
     * test event (id ending in 07) none, with a reason, and a line that is not JSON one row that cannot be typed.
     */
    private String mappedJob(String script) throws IOException {
        Path mapper = Files.writeString(dir.resolve("mapper.py"), script);
        return job(ICEBERG, """
                - {name: id, type: bigint}
                - {name: user_name, type: string}
                - {name: amount, type: "decimal(10,2)"}""", """
                steps:
                  - mapper: {command: [python3, "%s"], output: tsv, timeout: 60s}
                  - require: [id]""".formatted(mapper));
    }

    private static final String FAN_OUT = """
            import json, sys
            for line in sys.stdin:
                try:
                    event = json.loads(line)
                except ValueError:
                    print("not-json\\t\\\\N\\t0")
                    print("\\x1e")
                    continue
                if event["id"] % 100 == 7:
                    print("\\x1etest event")
                    continue
                name = event["user"]["name"] or "\\\\N"
                for half in (0, 1):
                    print("%d\\t%s\\t%s" % (event["id"] * 2 + half, name, event["amount"]))
                print("\\x1e")
            """;

    private static final String ICEBERG = """
              table: lake.events
              business_key_column: load_key""";

    @Test
    void loadsAnHourIntoIcebergWithItsRejectAndALateDirectoryReplacesTheHour() throws Exception {
        harness.startWorker(2);

        RunView first = harness.follow(harness.submit(job(ICEBERG), HOUR));

        assertThat(first.status()).as(first.errorMessage()).isEqualTo(RunStatus.SUCCESS);
        assertThat(first.businessKey()).isEqualTo(BusinessKey.of(KEY));
        assertThat(first.rejectedCount()).as("the malformed line").isEqualTo(1);
        assertThat(first.targetCount()).isEqualTo(700);
        assertThat(icebergIds()).hasSize(700).doesNotContain(5_000L, 9_999L);

        lines(drops, "d_20261130-1450/part-0.json", 10_000, 20);
        RunView again = harness.follow(harness.submit(job(ICEBERG), HOUR));

        assertThat(again.status()).as(again.errorMessage()).isEqualTo(RunStatus.SUCCESS);
        assertThat(icebergIds()).as("the hour replaced, with the late directory").hasSize(720).contains(10_019L);
        assertThat(harness.client.validations(again.runId())).allSatisfy(v ->
                assertThat(v.judgedResult().name()).as(v.metricName()).isEqualTo("PASS"));
    }

    @Test
    void loadsAnHourThroughAMapperThatFansOutAndSkipsWithTheCountsReconciled() throws Exception {
        harness.startWorker(2);

        RunView run = harness.follow(harness.submit(mappedJob(FAN_OUT), HOUR));

        // 701 lines (700 events and the malformed one); 7 test events skipped; 693 x 2 rows + 1 that is rejected.
        assertThat(run.status()).as(run.errorMessage()).isEqualTo(RunStatus.SUCCESS);
        assertThat(run.sourceCount()).as("the lines counted at planning").isEqualTo(701);
        assertThat(run.extractedCount()).as("the rows the mapper emitted").isEqualTo(1_387);
        assertThat(run.rejectedCount()).isEqualTo(1);
        assertThat(run.targetCount()).isEqualTo(1_386);
        List<Long> ids = icebergIds();
        assertThat(ids).hasSize(1_386).doesNotHaveDuplicates().contains(0L, 1L, 1_398L, 1_399L)
                .doesNotContain(14L, 15L, 10_000L);
        long[] mapped = new long[3];
        for (RunApi.Event event : harness.client.allEvents(run.runId())) {
            if ("SUCCESS".equals(event.toStatus()) && event.partitionId() != null) {
                mapped[0] += ((Number) event.details().get("linesRead")).longValue();
                mapped[1] += ((Number) event.details().get("linesSkipped")).longValue();
                mapped[2] += ((Number) event.details().get("rowsEmitted")).longValue();
            }
        }
        assertThat(mapped).as("lines read, skipped, rows emitted over the partitions").containsExactly(701, 7, 1_387);
        RunView shown = harness.client.getRun(run.runId());
        assertThat(shown.partitions()).allSatisfy(p -> assertThat(p.rowsEmitted()).isEqualTo(p.actualRowCount()));
        assertThat(shown.partitions().stream().mapToLong(RunApi.PartitionView::linesRead).sum()).isEqualTo(701);
        assertThat(harness.client.validations(run.runId())).allSatisfy(v ->
                assertThat(v.judgedResult().name()).as(v.metricName()).isEqualTo("PASS"));
    }

    /** Keeps only the events of the gzipped file (ids 400 and up): every line of the plain file is skipped. */
    private static final String SKIPS_A_FILE = """
            import json, sys
            for line in sys.stdin:
                try:
                    event = json.loads(line)
                except ValueError:
                    print("\\x1enot json")
                    continue
                if event["id"] < 400:
                    print("\\x1ebefore 400")
                    continue
                print("%d\\t\\\\N\\t%s" % (event["id"], event["amount"]))
                print("\\x1e")
            """;

    @Test
    void aMapperPartitionWhoseEveryLineIsSkippedSucceedsWithNoRowStaged() throws Exception {
        harness.startWorker(2);

        RunView run = harness.follow(harness.submit(mappedJob(SKIPS_A_FILE), HOUR));

        assertThat(run.status()).as(run.errorMessage()).isEqualTo(RunStatus.SUCCESS);
        assertThat(run.sourceCount()).isEqualTo(701);
        assertThat(run.targetCount()).isEqualTo(300);
        assertThat(icebergIds()).hasSize(300).allMatch(id -> id >= 400);
        RunView shown = harness.client.getRun(run.runId());
        assertThat(shown.partitions()).hasSize(2).anySatisfy(p -> {
            assertThat(p.linesRead()).as("the plain file's lines").isEqualTo(401);
            assertThat(p.linesSkipped()).isEqualTo(401);
            assertThat(p.rowsEmitted()).isZero();
            assertThat(p.actualRowCount()).isZero();
            assertThat(p.fileCount()).as("one empty rejects chunk").isEqualTo(1);
        });
        assertThat(harness.client.validations(run.runId())).allSatisfy(v ->
                assertThat(v.judgedResult().name()).as(v.metricName()).isEqualTo("PASS"));
    }

    @Test
    void aMapperThatExitsNonZeroOrHangsFailsItsPartitionAndTheRunAndNothingIsPublished() throws Exception {
        harness.startWorker(2);

        RunView run = harness.follow(harness.submit(mappedJob("""
                import sys
                sys.stdin.readline()
                sys.exit(1)
                """), HOUR));

        assertThat(run.status()).isEqualTo(RunStatus.FAILED_EXTRACT);
        assertThat(run.errorCode()).isEqualTo("MAPPER_EXIT");
        assertThat(run.errorMessage()).contains("exited with code 1");

        RunView hung = harness.follow(harness.submit(mappedJob("""
                import sys, time
                sys.stdin.readline()
                time.sleep(600)
                """).replace("timeout: 60s", "timeout: 2s"), HOUR));

        assertThat(hung.status()).isEqualTo(RunStatus.FAILED_EXTRACT);
        assertThat(hung.errorCode()).isEqualTo("MAPPER_TIMEOUT");
        assertThat(harness.catalog.catalog().tableExists(TableIdentifier.parse("lake.events")))
                .as("nothing published").isFalse();
    }

    @Test
    void aFileAppendedToAfterPlanningFailsTheRunAndNothingIsPublished() throws Exception {
        RunSubmitter.Submission submission = harness.submit(job(ICEBERG), HOUR);
        lines(drops, "d_20261130-1400/part-0.json", 20_000, 1);
        harness.startWorker(2);

        RunView run = harness.follow(submission);

        assertThat(run.status()).as(run.errorMessage()).isNotEqualTo(RunStatus.SUCCESS);
        assertThat(run.status().isTerminal()).isTrue();
        assertThat(harness.catalog.catalog().tableExists(TableIdentifier.parse("lake.events")))
                .as("nothing published").isFalse();
    }

    @Test
    void loadsAnHourIntoAPostgresWarehouseTable() throws Exception {
        TestDatabases.TestDatabase warehouse = TestDatabases.create();
        harness.startWorker(2);

        RunView run = harness.follow(harness.submit(job("""
                  table: dw.events
                  business_key_column: load_key
                  database:
                    jdbc_url: "%s"
                    user: %s""".formatted(warehouse.jdbcUrl(), warehouse.user())), HOUR));

        assertThat(run.status()).as(run.errorMessage()).isEqualTo(RunStatus.SUCCESS);
        try (Connection c = warehouse.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*), count(DISTINCT id), min(dt)::text, min(hr), max(hr),"
                     + " min(load_key) FROM dw.events")) {
            rs.next();
            assertThat(rs.getLong(1)).isEqualTo(700);
            assertThat(rs.getLong(2)).isEqualTo(700);
            assertThat(rs.getString(3)).isEqualTo("2026-11-30");
            assertThat(rs.getInt(4)).isEqualTo(14);
            assertThat(rs.getInt(5)).isEqualTo(14);
            assertThat(rs.getString(6)).isEqualTo(KEY);
        }
    }

    private List<Long> icebergIds() throws IOException {
        Table table = harness.catalog.loadTable(TableIdentifier.parse("lake.events"));
        table.refresh();
        List<Long> ids = new ArrayList<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table)
                .where(Expressions.equal("load_key", KEY)).build()) {
            for (Record r : records) {
                ids.add((Long) r.getField("id"));
            }
        }
        return ids;
    }

    /** Appends ndjson events {@code first..first+count-1} to {@code path} under {@code drops}. */
    static void lines(Path drops, String path, int first, int count) throws IOException {
        Path file = drops.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, events(first, count), StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    private static void gzipLines(Path drops, String path, int first, int count) throws IOException {
        Path file = drops.resolve(path);
        Files.createDirectories(file.getParent());
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file))) {
            out.write(events(first, count).getBytes(StandardCharsets.UTF_8));
        }
    }

    private static String events(int first, int count) {
        StringBuilder text = new StringBuilder();
        for (int id = first; id < first + count; id++) {
            text.append("{\"id\": ").append(id).append(", \"user\": {\"name\": ")
                    .append(id % 9 == 0 ? "null" : "\"u" + id + "\"").append("}, \"amount\": ")
                    .append(id % 100).append('.').append(id % 7).append("}\n");
        }
        return text.toString();
    }
}

package io.loadgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.loadgate.worker.ledger.HttpLedgerClient;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code loadgate table} reads the same job's table alike for an Iceberg and a warehouse target, through the target:
 * after two days loaded and one loaded again, the table's rows, not the stage's.
 */
@Timeout(300)
class TableCommandTest {
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
    void anIcebergTargetIsReadThroughItsCatalog() throws Exception {
        Path job = fixture.job("TABLE_ICEBERG", "table_read");
        List<String> runs = load(job);
        assertShown(job, "lake.table_read", "long", "decimal(8, 2)", "string");
        assertCountsAndSample(job, "lake.table_read");
        JsonNode snapshots = json(table("snapshots", job));
        assertThat(snapshots.get("table").asText()).isEqualTo("lake.table_read");
        assertThat(runIds(snapshots)).isEqualTo(runs);
        assertThat(snapshots.get("snapshots").get(0).get("id").asText())
                .isEqualTo(Long.toString(fixture.table("table_read").history().get(0).snapshotId()));
        assertThat(snapshots.get("snapshots").get(2).get("operation").asText()).isEqualTo("overwrite");
        assertThat(json(table("history", job, "--limit", "1")).get("snapshots").get(0).get("id").asText())
                .isEqualTo(Long.toString(fixture.table("table_read").currentSnapshot().snapshotId()));
    }

    @Test
    void aWarehouseTargetIsReadInItsDatabase() throws Exception {
        Path job = fixture.warehouseJob("TABLE_DW", "table_read");
        List<String> runs = load(job);
        assertShown(job, "dw.table_read", "int8", "numeric", "text");
        assertCountsAndSample(job, "dw.table_read");
        JsonNode snapshots = json(table("snapshots", job));
        assertThat(runIds(snapshots)).isEqualTo(runs);
        assertThat(snapshots.get("snapshots").get(0).has("id")).as("a marker has no snapshot id").isFalse();
        assertThat(snapshots.get("snapshots").get(0).get("operation").asText()).isEqualTo("replace");
        assertThat(snapshots.get("snapshots").get(0).get("rows").asLong()).isEqualTo(1500);
    }

    @Test
    void aTableNotYetLoadedIsOneLine() throws Exception {
        var missing = table("count", fixture.job("TABLE_NONE", "table_none"));
        assertThat(missing.exit()).isEqualTo(LedgerOptions.EXIT_REFUSED);
        assertThat(missing.err().strip()).isEqualTo("loadgate: table lake.table_none does not exist (no run of the job"
                + " has published yet)");
    }

    /** 2026-11-28, then 2026-11-29 twice (the second replaces the first): the runs' ids in that order. */
    private static List<String> load(Path job) {
        List<String> runs = new ArrayList<>();
        for (String day : List.of("2026-11-28", "2026-11-29", "20261129")) {
            var loaded = fixture.run("load", job.toString(), "--business-key", day);
            assertThat(loaded.exit()).as(loaded.toString()).isZero();
            var m = java.util.regex.Pattern.compile("Run ([0-9a-f-]{36}):").matcher(loaded.out());
            assertThat(m.find()).as(loaded.out()).isTrue();
            runs.add(m.group(1));
        }
        return runs;
    }

    /** 'table show' of what {@link #load} loaded, the columns' types as the target names them. */
    private static void assertShown(Path job, String name, String idType, String amountType, String labelType) {
        assertThat(table("show", job).out().strip()).isEqualTo("""
                {
                  "table" : "%s",
                  "businessKeyColumn" : "day",
                  "columns" : [ {
                    "name" : "id",
                    "type" : "%s"
                  }, {
                    "name" : "amount",
                    "type" : "%s"
                  }, {
                    "name" : "label",
                    "type" : "%s"
                  }, {
                    "name" : "day",
                    "type" : "date"
                  } ],
                  "partitions" : [ {
                    "businessKey" : "2026-11-28",
                    "rows" : 1500
                  }, {
                    "businessKey" : "2026-11-29",
                    "rows" : 2000
                  } ],
                  "rows" : 3500
                }""".formatted(name, idType, amountType, labelType));
    }

    private static void assertCountsAndSample(Path job, String name) throws Exception {
        assertThat(table("count", job).out().strip()).isEqualTo("""
                {
                  "table" : "%s",
                  "rows" : 3500
                }""".formatted(name));
        assertThat(table("count", job, "--business-key", "20261128").out().strip()).isEqualTo("""
                {
                  "table" : "%s",
                  "businessKey" : "2026-11-28",
                  "rows" : 1500
                }""".formatted(name));
        JsonNode sample = json(table("sample", job, "--business-key", "2026-11-28", "--limit", "3"));
        assertThat(sample.get("rows")).hasSize(3).allSatisfy(row -> {
            assertThat(row.get("day").asText()).isEqualTo("2026-11-28");
            assertThat(iterable(row.fieldNames())).containsExactly("id", "amount", "label", "day");
        });
        var text = OperatorCommandsTest.run("table", "count", job.toString());
        assertThat(text.out().strip()).isEqualTo("3,500 rows in " + name);
    }

    private static List<String> runIds(JsonNode snapshots) {
        List<String> ids = new ArrayList<>();
        snapshots.get("snapshots").forEach(s -> {
            assertThat(s.get("publishToken").asText()).hasSize(36);
            ids.add(s.get("runId").asText());
        });
        return ids;
    }

    private static <T> List<T> iterable(java.util.Iterator<T> it) {
        List<T> all = new ArrayList<>();
        it.forEachRemaining(all::add);
        return all;
    }

    private static OperatorCommandsTest.Result table(String what, Path job, String... more) {
        List<String> args = new ArrayList<>(List.of("table", what, job.toString(), "--json"));
        args.addAll(List.of(more));
        return OperatorCommandsTest.run(args.toArray(String[]::new));
    }

    private static JsonNode json(OperatorCommandsTest.Result result) throws Exception {
        assertThat(result.exit()).as(result.toString()).isZero();
        return HttpLedgerClient.JSON.readTree(result.out());
    }
}

package io.loadgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code loadgate setup}: checks the source and creates the target table once; the table is the one a load needs. */
@Timeout(120)
class SetupCommandTest {
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
    void setupCreatesTheTableOnceAndALoadFillsIt() throws Exception {
        Path job = fixture.job("SETUP_OK", "setup_ok");
        assertThat(fixture.table("setup_ok")).isNull();

        var first = OperatorCommandsTest.run("setup", job.toString());
        assertThat(first.exit()).as(first.toString()).isZero();
        assertThat(first.out()).contains("public.sales: 4 columns", "split on id", "amount: present",
                "lake.setup_ok: created", "partitioned by day", "loadgate load");
        Table created = fixture.table("setup_ok");
        assertThat(created).isNotNull();
        assertThat(created.spec().fields()).hasSize(1);
        assertThat(created.spec().fields().get(0).name()).isEqualTo("day");
        assertThat(created.schema().columns()).extracting(c -> c.name()).containsExactly("id", "amount", "label", "day");
        assertThat(created.currentSnapshot()).isNull();
        String metadata = ((HasTableOperations) created).operations().current().metadataFileLocation();

        var second = OperatorCommandsTest.run("setup", job.toString());
        assertThat(second.exit()).as(second.toString()).isZero();
        assertThat(second.out()).contains("exists with the job's schema", "changed nothing")
                .doesNotContain("created");
        Table after = fixture.table("setup_ok");
        assertThat(((HasTableOperations) after).operations().current().metadataFileLocation())
                .as("the second setup wrote no new table metadata").isEqualTo(metadata);

        // 'load' is 'run' under its phase's name, and publishes into the table setup made.
        var load = fixture.run("load", job.toString(), "--business-key", "2026-11-28");
        assertThat(load.exit()).as(load.toString()).isZero();
        assertThat(fixture.rowsByDay("setup_ok")).containsExactly(Map.entry("2026-11-28", 1500L));
    }

    @Test
    void setupCreatesAFileJobsTableFromItsColumnsAndTheDerivedOnesAndALoadOfAnHourFillsIt() throws Exception {
        Path drops = dir.resolve("drops");
        Files.createDirectories(drops.resolve("d_20261130-1400"));
        Files.writeString(drops.resolve("d_20261130-1400/part-0.json"), "{\"id\": 1, \"amount\": 2.5}\n"
                + "{\"id\": 2, \"amount\": 3}\n");
        String yaml = Files.readString(fixture.job("SETUP_FILES", "setup_files"))
                .replaceAll("(?s)source:\n.*?\ntarget:", """
                        source:
                          files:
                            root: "%s"
                            format: ndjson
                            group_by: hour
                            columns: [{name: id, type: bigint}, {name: amount, type: "decimal(8,2)"}]
                        target:""".formatted(drops.toUri()))
                .replace("business_key_column: day", "business_key_column: load_key");
        Path job = Files.writeString(dir.resolve("SETUP_FILES_files.yaml"), yaml);

        var setup = OperatorCommandsTest.run("setup", job.toString());

        assertThat(setup.exit()).as(setup.toString()).isZero();
        assertThat(setup.out()).contains("5 columns", "one business key per hour of camus directories",
                "lake.setup_files: created", "partitioned by load_key");
        Table created = fixture.table("setup_files");
        assertThat(created.schema().columns()).extracting(c -> c.name())
                .containsExactly("id", "amount", "load_key", "dt", "hr");
        assertThat(created.spec().fields().get(0).name()).isEqualTo("load_key");

        var load = fixture.run("load", job.toString(), "--business-key", "2026/11/30/14");
        assertThat(load.exit()).as(load.toString()).isZero();
        created.refresh();
        assertThat(created.currentSnapshot().summary()).containsEntry("total-records", "2");
    }

    /** The fixture's job with {@code from} replaced by {@code to}. */
    private static Path variant(String jobKey, String table, String from, String to) throws Exception {
        String yaml = Files.readString(fixture.job(jobKey, table));
        return Files.writeString(dir.resolve(jobKey + "_variant.yaml"), yaml.replace(from, to));
    }

    @Test
    void aSourceThatDoesNotFitTheJobStopsSetupWithOneLineAndNoTable() throws Exception {
        Map<String, Path> cases = new LinkedHashMap<>();
        cases.put("missing", variant("SETUP_SPLIT", "setup_split", "split_column: id", "split_column: missing"));
        cases.put("nosuch", variant("SETUP_TABLE", "setup_table", "public.sales", "public.nosuch"));
        cases.put("region", variant("SETUP_KEY", "setup_key", "business_key_column: day", "business_key_column: region"));
        cases.put("unknown key 'colour'", variant("SETUP_COLOUR", "setup_colour", "validation:", "colour: red\nvalidation:"));
        cases.put("transform.steps[0]: upper applies to text columns; amount is decimal(8, 2)", variant("SETUP_STEP",
                "setup_step", "validation:\n  sum: [amount]", "transform:\n  steps:\n    - upper: [amount]\nvalidation:\n  null_count: [label]"));
        for (var c : cases.entrySet()) {
            var result = OperatorCommandsTest.run("setup", c.getValue().toString());
            assertThat(result.exit()).as(c.getKey() + "\n" + result).isEqualTo(2);
            assertThat(result.errLines()).as(c.getKey() + "\n" + result).hasSize(1);
            assertThat(result.err()).as(c.getKey()).contains(c.getKey()).doesNotContain("Exception", "\tat ");
        }
        for (String table : List.of("setup_split", "setup_table", "setup_key", "setup_colour", "setup_step")) {
            assertThat(fixture.table(table)).as(table).isNull();
        }
    }
}

package io.loadgate.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code loadgate load} checks the target before it creates a run: what used to fail the publish after the whole
 * extraction (a target that refuses the connection, a table without the source's new columns) fails first, in one
 * line, and leaves no run behind.
 */
@Timeout(240)
class LoadPrechecksTest {
    private static final String MARIADB = "jdbc:mariadb://127.0.0.1:3306/test";

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

    private static Path withTarget(Path job, String from, String to) throws Exception {
        String yaml = Files.readString(job);
        assertThat(yaml).contains(from);
        return Files.writeString(job, yaml.replace(from, to));
    }

    /** Loads 2026-11-29: exit 2, one line naming {@code words}, no run of {@code jobKey} created; that line. */
    private static String assertRefusedBeforeTheRun(Path job, String jobKey, String... words) {
        var result = fixture.run("load", job.toString(), "--business-key", "2026-11-29");
        assertThat(result.exit()).as(result.toString()).isEqualTo(2);
        assertThat(result.errLines()).as(result.toString()).singleElement().asString().contains(words);
        assertThat(fixture.runs(jobKey)).as("no run was created").isZero();
        return result.errLines().get(0);
    }

    @Test
    void anIcebergCatalogThatRefusesTheCredentialsStopsTheLoadBeforeTheRun() throws Exception {
        Path job = withTarget(fixture.job("PRE_CATALOG", "pre_catalog"), "jdbc.user: postgres",
                "jdbc.user: no_such_role");
        assertRefusedBeforeTheRun(job, "PRE_CATALOG", "catalog", "lake.pre_catalog", "no_such_role");
    }

    @Test
    void aWarehouseThatRefusesTheLoginStopsTheLoadBeforeTheRun() throws Exception {
        Path job = withTarget(fixture.warehouseJob("PRE_DW_LOGIN", "pre_login"), "user: postgres}",
                "user: no_such_role}");
        assertRefusedBeforeTheRun(job, "PRE_DW_LOGIN", "warehouse", "dw.pre_login", "no_such_role");
    }

    @Test
    void aMariaDbWarehouseWithAWrongPasswordStopsTheLoadBeforeTheRun() throws Exception {
        assumeTrue(mariaDbAnswers(), "no MariaDB at " + MARIADB);
        // root has no password there, so any set variable holds a wrong one.
        assumeTrue(System.getenv("PATH") != null, "PATH is not set");
        Path job = fixture.warehouseJob("PRE_DW_PASSWORD", "pre_password");
        String yaml = Files.readString(job).replaceAll("database: \\{[^\n]*\\}",
                "database: {jdbc_url: \"" + MARIADB + "\", user: root, password_env: PATH}");
        Files.writeString(job, yaml);
        assertThat(assertRefusedBeforeTheRun(job, "PRE_DW_PASSWORD", "warehouse", "Access denied"))
                .doesNotContain(System.getenv("PATH"));
    }

    @Test
    void aNewSourceColumnIsNamedBeforeTheRunAndAddedWhenTheJobAllowsIt() throws Exception {
        Path exact = fixture.job("PRE_NEW_COLUMN", "new_column");
        var first = fixture.run("load", exact.toString(), "--business-key", "2026-11-28");
        assertThat(first.exit()).as(first.toString()).isZero();
        Path warehouse = fixture.warehouseJob("PRE_NEW_COLUMN_DW", "new_column");
        var firstDw = fixture.run("load", warehouse.toString(), "--business-key", "2026-11-28");
        assertThat(firstDw.exit()).as(firstDw.toString()).isZero();
        try (Connection c = fixture.source.connect(); Statement s = c.createStatement()) {
            s.execute("ALTER TABLE sales ADD COLUMN channel text, ADD COLUMN weight integer");
            s.execute("UPDATE sales SET channel = 'web', weight = 1 WHERE day = DATE '2026-11-29'");
        }
        try {
            for (Path job : new Path[] {exact, warehouse}) {
                var refused = fixture.run("load", job.toString(), "--business-key", "2026-11-29");
                assertThat(refused.exit()).as(refused.toString()).isEqualTo(2);
                assertThat(refused.errLines()).as(refused.toString()).singleElement().asString()
                        .contains("lacks the source's new columns [channel, weight]", "target.schema: add_columns");
            }
            assertThat(fixture.runs("PRE_NEW_COLUMN") + fixture.runs("PRE_NEW_COLUMN_DW"))
                    .as("only the first loads ran").isEqualTo(2);

            var setupRefused = OperatorCommandsTest.run("setup", exact.toString());
            assertThat(setupRefused.exit()).as(setupRefused.toString()).isEqualTo(2);
            assertThat(setupRefused.err()).contains("lacks the source's new columns [channel, weight]");

            for (Path job : new Path[] {exact, warehouse}) {
                withTarget(job, "  business_key_column: day\n", "  business_key_column: day\n  schema: add_columns\n");
            }
            // The Iceberg table gets them from the load's check, the warehouse table from setup.
            var evolved = fixture.run("load", exact.toString(), "--business-key", "2026-11-29");
            assertThat(evolved.exit()).as(evolved.toString()).isZero();
            assertThat(evolved.out()).contains("Added the source's new columns [channel, weight]", "SUCCESS");
            var setup = OperatorCommandsTest.run("setup", warehouse.toString());
            assertThat(setup.exit()).as(setup.toString()).isZero();
            assertThat(setup.out()).contains("added the source's new columns [channel, weight]");
            var loadedDw = fixture.run("load", warehouse.toString(), "--business-key", "2026-11-29");
            assertThat(loadedDw.exit()).as(loadedDw.toString()).isZero();
            assertThat(loadedDw.out()).contains("SUCCESS").doesNotContain("Added the source's new columns");
            var columns = fixture.table("new_column").schema().columns();
            assertThat(columns).extracting(Types.NestedField::name)
                    .containsExactly("id", "amount", "label", "day", "channel", "weight");
            assertThat(fixture.rowsByDay("new_column")).isEqualTo(Map.of("2026-11-28", 1500L, "2026-11-29", 2000L));
            assertThat(fixture.warehouseRowsByDay("new_column"))
                    .isEqualTo(Map.of("2026-11-28", 1500L, "2026-11-29", 2000L));
            try (Connection c = fixture.lake.connect(); Statement s = c.createStatement();
                 var rs = s.executeQuery("SELECT count(*) FILTER (WHERE channel = 'web'),"
                         + " count(*) FILTER (WHERE channel IS NULL) FROM dw.new_column")) {
                rs.next();
                assertThat(rs.getLong(1)).as("the new day's rows carry the new column").isEqualTo(2000);
                assertThat(rs.getLong(2)).as("older rows read it as null").isEqualTo(1500);
            }

            // Checked again, the table fits: nothing more is added.
            var again = fixture.run("load", exact.toString(), "--business-key", "2026-11-29");
            assertThat(again.exit()).as(again.toString()).isZero();
            assertThat(again.out()).doesNotContain("Added the source's new columns");
        } finally {
            try (Connection c = fixture.source.connect(); Statement s = c.createStatement()) {
                s.execute("ALTER TABLE sales DROP COLUMN channel, DROP COLUMN weight");
            }
        }
    }

    @Test
    void aDefaultCatalogWithoutALedgerIsRefusedNotIgnored() throws Exception {
        Path job = fixture.job("PRE_LOCAL_CATALOG", "pre_local");
        var result = OperatorCommandsTest.run("load", job.toString(), "--business-key", "2026-11-29", "--catalog",
                "type=hadoop");
        assertThat(result.exit()).as(result.toString()).isEqualTo(2);
        assertThat(result.errLines()).as(result.toString()).singleElement().asString().contains("--catalog", "--ledger");
    }

    private static boolean mariaDbAnswers() {
        DriverManager.setLoginTimeout(2);
        try (Connection c = DriverManager.getConnection(MARIADB, "root", "")) {
            return c.isValid(2);
        } catch (SQLException e) {
            return false;
        }
    }
}

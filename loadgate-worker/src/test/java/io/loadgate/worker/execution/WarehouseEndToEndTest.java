package io.loadgate.worker.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunStatus;
import io.loadgate.ledger.LedgerSettings.RecoveryMode;
import io.loadgate.ledger.testing.TestDatabases;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A load into a warehouse table instead of Iceberg, in PostgreSQL and in MariaDB (skipped where none runs at
 * 127.0.0.1:3306): same ledger, same steps, the rows copied in.
 */
@Timeout(180)
class WarehouseEndToEndTest {
    private static final LocalDate DAY = LocalDate.of(2026, 11, 29);
    private static final LocalDate OTHER_DAY = LocalDate.of(2026, 11, 28);
    private static final String MARIADB = "jdbc:mariadb://127.0.0.1:3306/test";

    @TempDir
    Path dir;
    private LoadHarness harness;
    private String mariaDbSchema;

    @AfterEach
    void stop() throws SQLException {
        if (harness != null) {
            harness.close();
        }
        if (mariaDbSchema != null) {
            try (Connection c = DriverManager.getConnection(MARIADB, "root", ""); Statement s = c.createStatement()) {
                s.execute("DROP DATABASE IF EXISTS " + mariaDbSchema);
            }
        }
    }

    /** Where the rows go: a JDBC URL and user, and how the test reads them back. */
    private record Warehouse(String jdbcUrl, String user, String table, ConnectionSource source) {
    }

    @FunctionalInterface
    private interface ConnectionSource {
        Connection connect() throws SQLException;
    }

    private String job(Warehouse warehouse) {
        return harness.jobYaml("ITEMS_DW", 3)
                .replace("  table: " + LoadHarness.TABLE + "\n", "  table: " + warehouse.table() + "\n")
                .replace("  business_key_column: day\n", """
                          business_key_column: day
                          database:
                            jdbc_url: "%s"
                            user: %s
                        """.formatted(warehouse.jdbcUrl(), warehouse.user()));
    }

    @Test
    void everySourceRowLandsInTheWarehouseOnceAndARunReplacesItsBusinessKey() throws Exception {
        TestDatabases.TestDatabase database = TestDatabases.create();
        loadsOnceAndReplaces(new Warehouse(database.jdbcUrl(), database.user(), "dw.items", database::connect));
    }

    @Test
    void everySourceRowLandsInAMariaDbWarehouseOnceAndARunReplacesItsBusinessKey() throws Exception {
        DriverManager.setLoginTimeout(2);
        boolean answers;
        try (Connection c = DriverManager.getConnection(MARIADB, "root", "")) {
            answers = c.isValid(2);
        } catch (SQLException e) {
            answers = false;
        }
        assumeTrue(answers, "no MariaDB at " + MARIADB);
        mariaDbSchema = "lg_e2e_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        loadsOnceAndReplaces(new Warehouse(MARIADB, "root", mariaDbSchema + ".items",
                () -> DriverManager.getConnection(MARIADB, "root", "")));
    }

    private void loadsOnceAndReplaces(Warehouse warehouse) throws Exception {
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        harness.addRows(DAY, 1, 6_000);
        harness.addRows(OTHER_DAY, 100_001, 700);
        harness.startWorker(3);

        RunView first = harness.follow(harness.submit(job(warehouse), DAY));
        RunView other = harness.follow(harness.submit(job(warehouse), OTHER_DAY));
        harness.addRows(DAY, 200_001, 500);
        RunView again = harness.follow(harness.submit(job(warehouse), DAY));

        assertThat(first.status()).as(first.errorMessage()).isEqualTo(RunStatus.SUCCESS);
        assertThat(other.status()).as(other.errorMessage()).isEqualTo(RunStatus.SUCCESS);
        assertThat(again.status()).as(again.errorMessage()).isEqualTo(RunStatus.SUCCESS);
        assertThat(again.targetCount()).isEqualTo(6_500);
        assertThat(Long.parseLong(again.targetRef())).as("the publishing transaction, or marker row").isPositive();
        assertThat(warehouseRows(warehouse, DAY)).isEqualTo(harness.sourceRows(DAY));
        assertThat(warehouseRows(warehouse, OTHER_DAY)).isEqualTo(harness.sourceRows(OTHER_DAY));
        assertThat(harness.client.validations(again.runId())).allSatisfy(v ->
                assertThat(v.judgedResult().name()).as(v.metricName()).isEqualTo("PASS"));
        assertThat(harness.catalog.catalog().tableExists(TableIdentifier.parse(LoadHarness.TABLE)))
                .as("nothing went to Iceberg").isFalse();
    }

    private static List<String> warehouseRows(Warehouse warehouse, LocalDate day) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = warehouse.source().connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id, grp, amount, note, day FROM " + warehouse.table()
                     + " WHERE day = DATE '" + day + "'")) {
            while (rs.next()) {
                BigDecimal amount = rs.getBigDecimal(3);
                rows.add(rs.getObject(1) + "|" + rs.getObject(2) + "|" + (amount == null ? null : amount.toPlainString())
                        + "|" + rs.getString(4) + "|" + rs.getDate(5).toLocalDate());
            }
        }
        Collections.sort(rows);
        return rows;
    }
}

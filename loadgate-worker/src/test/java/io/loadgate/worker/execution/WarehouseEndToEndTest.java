package io.loadgate.worker.execution;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.ledger.LedgerSettings.RecoveryMode;
import io.loadgate.ledger.testing.TestDatabases;
import io.loadgate.worker.ledger.RunApi.RunView;
import io.loadgate.worker.ledger.RunStatus;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A load into a PostgreSQL warehouse table instead of Iceberg: same ledger, same steps, the rows copied in. */
@Timeout(180)
class WarehouseEndToEndTest {
    private static final LocalDate DAY = LocalDate.of(2026, 11, 29);
    private static final LocalDate OTHER_DAY = LocalDate.of(2026, 11, 28);

    @TempDir
    Path dir;
    private LoadHarness harness;
    private TestDatabases.TestDatabase warehouse;

    @AfterEach
    void stop() {
        if (harness != null) {
            harness.close();
        }
    }

    private String job() {
        return harness.jobYaml("ITEMS_DW", 3)
                .replace("  table: " + LoadHarness.TABLE + "\n", "  table: dw.items\n")
                .replace("  business_key_column: day\n", """
                          business_key_column: day
                          database:
                            jdbc_url: "%s"
                            user: %s
                        """.formatted(warehouse.jdbcUrl(), warehouse.user()));
    }

    @Test
    void everySourceRowLandsInTheWarehouseOnceAndARunReplacesItsBusinessKey() throws Exception {
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        warehouse = TestDatabases.create();
        harness.addRows(DAY, 1, 6_000);
        harness.addRows(OTHER_DAY, 100_001, 700);
        harness.startWorker(3);

        RunView first = harness.follow(harness.submit(job(), DAY));
        RunView other = harness.follow(harness.submit(job(), OTHER_DAY));
        harness.addRows(DAY, 200_001, 500);
        RunView again = harness.follow(harness.submit(job(), DAY));

        assertThat(first.status()).as(first.errorMessage()).isEqualTo(RunStatus.SUCCESS);
        assertThat(other.status()).as(other.errorMessage()).isEqualTo(RunStatus.SUCCESS);
        assertThat(again.status()).as(again.errorMessage()).isEqualTo(RunStatus.SUCCESS);
        assertThat(again.targetCount()).isEqualTo(6_500);
        assertThat(Long.parseLong(again.targetRef())).as("the publishing transaction").isPositive();
        assertThat(warehouseRows(DAY)).isEqualTo(harness.sourceRows(DAY));
        assertThat(warehouseRows(OTHER_DAY)).isEqualTo(harness.sourceRows(OTHER_DAY));
        assertThat(harness.client.validations(again.runId())).allSatisfy(v ->
                assertThat(v.judgedResult().name()).as(v.metricName()).isEqualTo("PASS"));
        assertThat(harness.catalog.catalog().tableExists(TableIdentifier.parse(LoadHarness.TABLE)))
                .as("nothing went to Iceberg").isFalse();
    }

    private List<String> warehouseRows(LocalDate day) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = warehouse.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id, grp, amount, note, day FROM dw.items WHERE day = DATE '" + day + "'")) {
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

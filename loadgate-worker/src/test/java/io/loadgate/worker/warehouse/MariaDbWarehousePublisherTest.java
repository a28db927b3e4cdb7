package io.loadgate.worker.warehouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.loadgate.worker.job.WarehouseSpec;
import io.loadgate.worker.publish.PublishOutcome;
import io.loadgate.worker.publish.PublishOutcome.ErrorCode;
import io.loadgate.worker.publish.PublishOutcome.Status;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The warehouse contract against the MariaDB at 127.0.0.1:3306 (root, no password), each test in a database of its
 * own; skipped where there is none. Plus what only MariaDB needs: NaN refused, InnoDB required, jdbc:mysql: URLs.
 */
class MariaDbWarehousePublisherTest extends WarehousePublisherContract {
    static final String URL = "jdbc:mariadb://127.0.0.1:3306/test";
    private static final LocalDate DAY = LocalDate.of(2026, 11, 28);

    private final String schema = "lg_dw_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

    @BeforeAll
    static void requireMariaDb() {
        assumeTrue(answers(), "no MariaDB at " + URL);
    }

    static boolean answers() {
        DriverManager.setLoginTimeout(2);
        try (Connection c = DriverManager.getConnection(URL, "root", "")) {
            return c.isValid(2);
        } catch (SQLException e) {
            return false;
        }
    }

    @AfterEach
    void dropSchema() throws SQLException {
        try (Connection c = DriverManager.getConnection(URL, "root", ""); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + schema);
        }
    }

    @Override
    WarehouseConnector warehouse(String schema) {
        return new WarehouseConnector(WarehouseDialect.of(URL), () -> DriverManager.getConnection(URL, "root", ""));
    }

    @Override
    String schema() {
        return schema;
    }

    @Override
    boolean storesNaN() {
        return false;
    }

    /** What MariaDB Connector/J reports on a socket error (MySQL's drivers say 08S01): class 08 either way. */
    @Override
    String sessionsWaitingForALock() {
        return "SELECT count(*) FROM information_schema.PROCESSLIST WHERE STATE = 'User lock'";
    }

    @Override
    String connectionLostState() {
        return "08000";
    }

    @Test
    void aNaNOrInfinityIsRefusedAndNothingChanges() throws Exception {
        List<Record> before = rows(DAY, 1, 30);
        assertThat(publish(connector(), DAY, List.of(write(before))).status()).isEqualTo(Status.PUBLISHED);
        for (double bad : new double[] {Double.NaN, Double.POSITIVE_INFINITY}) {
            List<Record> rows = rows(DAY, 1_000, 2_500);
            rows.get(2_400).setField("ratio", bad);

            PublishOutcome outcome = publish(connector(), DAY, List.of(write(rows)));

            assertThat(outcome.status()).isEqualTo(Status.FAILED_PUBLISH);
            assertThat(outcome.errorCode()).isEqualTo(ErrorCode.NOT_COMMITTED);
            assertThat(outcome.message()).isEqualTo("nothing was committed to `" + schema + "`.`orders`: MariaDB cannot"
                    + " store " + bad + ", which column ratio holds in row 2401 of the staged files");
        }
        assertThat(tableRows(DAY)).isEqualTo(lines(before));
        assertThat(count("SELECT count(*) FROM " + schema + ".loadgate_publish")).isEqualTo(1);
    }

    @Test
    void aTableThatIsNotInnoDbIsRefusedWhateverItsColumns() throws Exception {
        assertThat(publish(connector(), DAY, List.of(write(rows(DAY, 1, 5)))).status()).isEqualTo(Status.PUBLISHED);
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("ALTER TABLE " + orders + " ENGINE=MyISAM");
        }

        PublishOutcome outcome = publish(connector(), DAY, List.of(write(rows(DAY, 100, 5))));

        assertThat(outcome.status()).isEqualTo(Status.FAILED_PUBLISH);
        assertThat(outcome.errorCode()).isEqualTo(ErrorCode.TARGET_MISMATCH);
        assertThat(outcome.message()).isEqualTo("table `" + schema + "`.`orders` uses engine MyISAM, not InnoDB: its"
                + " rows would not be part of the publish's transaction");
        assertThat(count("SELECT count(*) FROM " + orders)).isEqualTo(5);
    }

    @Test
    void aMysqlUrlReachesTheServerThroughTheMariaDbDriver() throws Exception {
        WarehouseConnector mysql = WarehouseConnector.of(new WarehouseSpec(URL.replace("jdbc:mariadb:", "jdbc:mysql:"),
                "root", null), Map.of());

        assertThat(mysql.dialect()).isInstanceOf(MariaDbDialect.class);
        try (Connection c = mysql.connect()) {
            assertThat(c.isValid(2)).isTrue();
        }
    }
}

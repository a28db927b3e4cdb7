package io.loadgate.worker.source.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.loadgate.worker.job.Compression;
import io.loadgate.worker.job.SourceMetricsTiming;
import io.loadgate.worker.job.SourceSpec;
import io.loadgate.worker.job.StagingSpec;
import io.loadgate.worker.job.ValidationSpec;
import io.loadgate.worker.source.Partition;
import io.loadgate.worker.source.PartitionRows;
import io.loadgate.worker.source.SnapshotExpiredException;
import io.loadgate.worker.source.SnapshotHolder;
import io.loadgate.worker.source.SourcePlan;
import io.loadgate.worker.staging.SourceSchemas;
import io.loadgate.worker.staging.StagedChunk;
import io.loadgate.worker.validation.StagedFilesReader;
import java.net.URI;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs against the MariaDB at 127.0.0.1:3306 (root, no password, database test); skipped where there is none. */
class MariaDbSnapshotSourceTest {
    private static final String URL = "jdbc:mariadb://127.0.0.1:3306/test";
    private static final String TABLE = "lg_events_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    private static final ValidationSpec VALIDATION = new ValidationSpec(List.of("price", "id"), List.of("label", "created"),
            List.of("label", "created"), List.of("id", "label"), List.of("row_id"));

    @TempDir
    Path staging;

    @BeforeAll
    static void createSource() throws SQLException {
        DriverManager.setLoginTimeout(2);
        boolean answers;
        try (Connection c = DriverManager.getConnection(URL, "root", "")) {
            answers = c.isValid(2);
        } catch (SQLException e) {
            answers = false;
        }
        assumeTrue(answers, "no MariaDB at " + URL);
        execute("CREATE TABLE " + TABLE + " (row_id int NOT NULL PRIMARY KEY, id bigint, label varchar(40) CHARACTER SET utf8mb4,"
                + " price decimal(10,2), created datetime(6), flag tinyint(1)) ENGINE=InnoDB");
        // seq_1_to_20000 is MariaDB's Sequence engine: a table of the numbers 1..20000.
        execute("INSERT INTO " + TABLE
                + " SELECT n, IF(n % 10 = 0, NULL, n * 3 - 1000), IF(n % 7 = 0, NULL, CONCAT('label-', n, IF(n % 3 = 0, ' é😀', ''))),"
                + " (n % 1000) / 4, TIMESTAMP('2021-03-01 00:00:00') + INTERVAL n * 61 SECOND + INTERVAL 250 MICROSECOND, n % 2"
                + " FROM (SELECT CAST(seq AS SIGNED) AS n FROM seq_1_to_20000) g");
    }

    @AfterAll
    static void dropSource() throws SQLException {
        execute("DROP TABLE IF EXISTS " + TABLE);
    }

    @Test
    void stagesTheRowsAtTheSnapshotWhileOthersCommitChanges() throws Exception {
        MariaDbSnapshotSource source = new MariaDbSnapshotSource(spec(), VALIDATION, Map.of(), 2);
        List<Record> before;
        try (Connection c = DriverManager.getConnection(URL, "root", "")) {
            before = Staging.sourceRows(c, "SELECT * FROM " + TABLE + " ORDER BY row_id");
        }
        StagingSpec stagingSpec = new StagingSpec(staging.toUri(), 4_000, Compression.ZSTD);

        List<URI> files = new ArrayList<>();
        SourcePlan plan;
        try (SnapshotHolder holder = source.openSnapshot("any")) {
            plan = holder.plan();
            assertThat(plan.partitions()).extracting(Partition::partitionId).containsExactly("0000", "0001", "0002", "0003", "NULL");
            execute("INSERT INTO " + TABLE + " SELECT row_id + 100000, id, 'new', 1, created, flag FROM " + TABLE + " WHERE row_id <= 500");
            execute("UPDATE " + TABLE + " SET label = 'changed', id = NULL WHERE row_id % 40 = 1");
            execute("DELETE FROM " + TABLE + " WHERE row_id % 40 = 2");
            // Five partitions share two connections, read by four threads at once.
            ExecutorService workers = Executors.newFixedThreadPool(4);
            try {
                List<Future<List<StagedChunk>>> results = new ArrayList<>();
                for (Partition partition : plan.partitions()) {
                    results.add(workers.submit(() -> Staging.stage(source, plan, partition, stagingSpec, "any")));
                }
                for (int i = 0; i < results.size(); i++) {
                    List<StagedChunk> chunks = results.get(i).get();
                    assertThat(chunks.stream().mapToLong(StagedChunk::recordCount).sum())
                            .as("rows of %s", plan.partitions().get(i).partitionId()).isEqualTo(plan.partitions().get(i).expectedRowCount());
                    chunks.forEach(chunk -> files.add(chunk.path()));
                }
            } finally {
                workers.shutdownNow();
            }
        }

        Schema schema = SourceSchemas.toIceberg(plan.columns());
        List<Record> staged = Staging.sortedByRowId(Staging.read(schema, files));
        assertThat(staged).hasSize(20_000);
        assertThat(Staging.checksum(staged)).as("checksum of the rows at the snapshot").isEqualTo(Staging.checksum(before));
        assertThat(new StagedFilesReader(Staging.HADOOP).metrics(schema, files, VALIDATION).differences(plan.sourceMetrics().orElseThrow()))
                .as("staged vs source metrics").isEmpty();
    }

    @Test
    void aMysqlUrlReadsTheSameServer() {
        SourceSpec mysql = new SourceSpec(URL.replace("jdbc:mariadb:", "jdbc:mysql:"), "root", null, TABLE, null, null,
                "id", 4, null, 1_000);
        MariaDbSnapshotSource source = new MariaDbSnapshotSource(mysql, ValidationSpec.COUNT_ONLY, Map.of(), 1);
        try (SnapshotHolder holder = source.openSnapshot("any")) {
            SourcePlan plan = holder.plan();
            assertThat(plan.split().rowCount()).isPositive();
            try (PartitionRows rows = source.readPartition(plan.snapshotRef(), plan.partitions().get(0), "any")) {
                assertThat(rows.next()).isTrue();
            }
        }
    }

    @Test
    void aReleasedOrForeignSnapshotCannotBeRead() {
        MariaDbSnapshotSource source = new MariaDbSnapshotSource(spec(), ValidationSpec.COUNT_ONLY, Map.of(), 1);
        SnapshotHolder holder = source.openSnapshot("any");
        SourcePlan plan = holder.plan();
        try (PartitionRows rows = source.readPartition(plan.snapshotRef(), plan.partitions().get(0), "any")) {
            assertThat(rows.next()).isTrue();
        }

        holder.close();

        assertThat(holder.isAlive()).isFalse();
        assertThatThrownBy(() -> source.readPartition(plan.snapshotRef(), plan.partitions().get(1), "any"))
                .isInstanceOf(SnapshotExpiredException.class)
                .hasMessageContaining("is not held in this process");
    }

    @Test
    void measuresTheMetricsLaterAtTheSnapshotOnConnectionsOfTheirOwn() throws Exception {
        String table = TABLE + "_later";
        execute("CREATE TABLE " + table + " LIKE " + TABLE);
        execute("INSERT INTO " + table + " SELECT * FROM " + TABLE);
        try {
            // One reader connection: a partition holds it while the metrics are measured.
            MariaDbSnapshotSource source = new MariaDbSnapshotSource(spec(table), VALIDATION, Map.of(), 1);
            Map<String, String> planned;
            try (SnapshotHolder holder = source.openSnapshot("any", SourceMetricsTiming.WHILE_PLANNING)) {
                planned = holder.plan().sourceMetrics().orElseThrow().values();
            }
            try (SnapshotHolder holder = source.openSnapshot("any", SourceMetricsTiming.DURING_EXTRACTION)) {
                SourcePlan plan = holder.plan();
                assertThat(plan.sourceMetrics()).isEmpty();
                execute("INSERT INTO " + table + " SELECT row_id + 200000, id, 'new', 1, created, flag FROM " + table
                        + " WHERE row_id <= 500");
                execute("UPDATE " + table + " SET label = 'changed', price = price + 1 WHERE row_id % 40 = 1");
                try (PartitionRows rows = source.readPartition(plan.snapshotRef(), plan.partitions().get(0), "any")) {
                    assertThat(rows.next()).isTrue();
                    assertThat(holder.sourceMetrics().values()).as("the same SQL at the same snapshot").isEqualTo(planned);
                }
                assertThat(holder.sourceMetrics().values()).as("measured once").isEqualTo(planned);
            }
            try (SnapshotHolder holder = source.openSnapshot("any", SourceMetricsTiming.WHILE_PLANNING)) {
                assertThat(holder.plan().sourceMetrics().orElseThrow().values()).as("after the commits")
                        .isNotEqualTo(planned);
            }
        } finally {
            execute("DROP TABLE IF EXISTS " + table);
        }
    }

    @Test
    void metricsLeftForLaterCannotBeMeasuredOnceTheSnapshotIsReleased() {
        SnapshotHolder holder = new MariaDbSnapshotSource(spec(), VALIDATION, Map.of(), 1)
                .openSnapshot("any", SourceMetricsTiming.DURING_EXTRACTION);
        holder.close();

        assertThatThrownBy(holder::sourceMetrics).isInstanceOf(SnapshotExpiredException.class)
                .hasMessageContaining("released before the source's metrics were measured");
    }

    @Test
    void autoMeasuresTheMetricsWhilePlanningFromAServerOnThisHost() {
        try (SnapshotHolder holder = new MariaDbSnapshotSource(spec(), VALIDATION, Map.of(), 1)
                .openSnapshot("any", SourceMetricsTiming.AUTO)) {
            assertThat(holder.plan().sourceMetrics()).as("the test server listens on 127.0.0.1").isPresent();
        }
        assertThat(MariaDbSnapshotSource.onThisHost("jdbc:mariadb://127.0.0.1:3306/test")).isTrue();
        assertThat(MariaDbSnapshotSource.onThisHost("jdbc:mysql://localhost/test?useSSL=false")).isTrue();
        assertThat(MariaDbSnapshotSource.onThisHost("jdbc:mariadb://[::1]:3306/test")).isTrue();
        assertThat(MariaDbSnapshotSource.onThisHost("jdbc:mariadb://198.51.100.254:3306/test")).isFalse();
        assertThat(MariaDbSnapshotSource.onThisHost("jdbc:mariadb://127.0.0.1,127.0.0.2/test")).as("several hosts")
                .isFalse();
        assertThat(MariaDbSnapshotSource.onThisHost("jdbc:mariadb:replication://127.0.0.1/test")).isFalse();
    }

    private static SourceSpec spec() {
        return spec(TABLE);
    }

    private static SourceSpec spec(String table) {
        return new SourceSpec(URL, "root", null, table, null, null, "id", 4, null, 1_000);
    }

    private static void execute(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(URL, "root", ""); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }
}

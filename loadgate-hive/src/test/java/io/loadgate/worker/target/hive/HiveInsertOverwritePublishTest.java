package io.loadgate.worker.target.hive;

import static io.loadgate.worker.publish.IcebergPublisher.PUBLISH_TOKEN_PROPERTY;
import static io.loadgate.worker.publish.IcebergPublisher.RUN_ID_PROPERTY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loadgate.worker.job.Compression;
import io.loadgate.worker.job.HivePartitioning;
import io.loadgate.worker.job.HivePublishMode;
import io.loadgate.worker.job.HiveServer2Spec;
import io.loadgate.worker.job.HiveSpec;
import io.loadgate.worker.job.SchemaPolicy;
import io.loadgate.worker.job.StagingSpec;
import io.loadgate.worker.job.TargetSpec;
import io.loadgate.worker.publish.ProbeResult;
import io.loadgate.worker.publish.PublishFence;
import io.loadgate.worker.publish.PublishOutcome;
import io.loadgate.worker.publish.PublishOutcome.ErrorCode;
import io.loadgate.worker.publish.PublishOutcome.Status;
import io.loadgate.worker.publish.StagedFile;
import io.loadgate.worker.staging.ChunkNaming;
import io.loadgate.worker.staging.ChunkWriter;
import io.loadgate.worker.staging.StagedChunk;
import io.loadgate.worker.target.Publication;
import io.loadgate.worker.target.TargetException;
import io.loadgate.worker.testing.Fences;
import io.loadgate.worker.testing.StagedRuns;
import java.net.URI;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.IMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.conf.MetastoreConf;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code publish: insert_overwrite} against a real HiveServer2 4.0.1 in a JVM of its own ({@link HiveServer2Fixture},
 * one for the class) that uses the test metastore ({@link HiveMetastoreFixture}), with staging on its HDFS; the
 * target reaches HiveServer2 through {@code hive-jdbc-4.0.1-standalone.jar} in its own class loader, as a job names
 * it. Aborted, with the reason printed, only when that JVM cannot start.
 */
@Timeout(900)
class HiveInsertOverwritePublishTest {
    private static final LocalDate DAY = LocalDate.of(2026, 12, 1);
    private static final AtomicInteger TABLES = new AtomicInteger();
    private static HiveMetastoreFixture metastore;
    private static HiveServer2Fixture hs2;
    private static String unavailable;
    private static IMetaStoreClient admin;

    @BeforeAll
    static void start() throws Exception {
        metastore = HiveMetastoreFixture.shared();
        org.apache.hadoop.conf.Configuration c = MetastoreConf.newMetastoreConf(metastore.hadoop);
        MetastoreConf.setVar(c, MetastoreConf.ConfVars.THRIFT_URIS, metastore.metastoreUri);
        admin = new HiveMetaStoreClient(c);
        try {
            hs2 = HiveServer2Fixture.start(Files.createTempDirectory("loadgate-hs2"), metastore.metastoreUri);
            System.out.println("HiveServer2 on the test metastore serving after " + hs2.startup.toMillis() + " ms");
        } catch (HiveServer2Fixture.Unavailable e) {
            unavailable = e.getMessage();
            System.out.println("HiveInsertOverwritePublishTest skipped: " + unavailable);
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (hs2 != null) {
            hs2.close();
        }
        if (admin != null) {
            admin.close();
        }
    }

    @BeforeEach
    void requireHiveServer2() {
        Assumptions.assumeTrue(unavailable == null, () -> "HiveServer2 cannot start here: " + unavailable);
    }

    private record Setup(HiveTarget target, String table, String stageRoot) {
    }

    private static Setup target(String table, int port) {
        return target(table, port, "");
    }

    /**
     * A target of table {@code loader.<table>} reaching HiveServer2 on {@code port} (the server's, or a proxy's), with
     * {@code sessionSettings} ({@code ?key=value;...}) for its sessions.
     */
    private static Setup target(String table, int port, String sessionSettings) {
        HiveServer2Spec server = new HiveServer2Spec("jdbc:hive2://127.0.0.1:" + port + "/default;auth=noSasl"
                + sessionSettings,
                "loadgate", null, hs2.standaloneDriver.toString());
        TargetSpec spec = new TargetSpec("loader." + table, "order_date", null, null, SchemaPolicy.EXACT,
                new HiveSpec(metastore.metastoreUri, Map.of(), HivePartitioning.DT, HivePublishMode.INSERT_OVERWRITE,
                        server));
        HiveTarget target = new HiveTarget("job-" + table, spec, MetastoreConnector.of(spec.hive(), metastore.hadoop),
                metastore.hadoop, Set.of(), HiveServer2Connector.of(server, Map.of()));
        return new Setup(target, table, metastore.hdfsUri() + "/stage/job-" + table);
    }

    private static Setup target() {
        return target("managed_orders_" + TABLES.incrementAndGet(), hs2.port);
    }

    /** A run's chunks on HDFS and, with {@code seed}, a zombie attempt's chunk, a _tmp, a rejects and a .crc file. */
    private record Staged(String runId, List<StagedFile> files) {
    }

    private static Staged stage(Setup setup, long firstId, int rows, boolean seed) throws Exception {
        String runId = UUID.randomUUID().toString();
        URI directory = URI.create(setup.stageRoot() + "/run_id=" + runId);
        List<StagedChunk> chunks = write(directory, firstId, rows, 2);
        if (seed) {
            // The third seed: a directory that also holds what a reader of the directory would take for data.
            List<StagedChunk> zombie = write(directory, firstId, rows, 1);
            FileSystem fs = new Path(directory).getFileSystem(metastore.hadoop);
            Path aChunk = new Path(chunks.get(0).path());
            FileUtil.copy(fs, aChunk, fs, new Path(new Path(directory), "_tmp.000005_1"), false, metastore.hadoop);
            FileUtil.copy(fs, new Path(zombie.get(0).path()), fs,
                    new Path(new Path(directory), "part-0000-rejects-a2-0badf00d.parquet"), false, metastore.hadoop);
            try (FSDataOutputStream crc = fs.create(new Path(new Path(directory), "." + aChunk.getName() + ".crc"))) {
                crc.write(new byte[] {1, 2, 3});
            }
        }
        return new Staged(runId, chunks.stream()
                .map(c -> new StagedFile(c.path().toString(), c.recordCount(), c.byteCount())).toList());
    }

    private static List<StagedChunk> write(URI directory, long firstId, int rows, int attempt) {
        ChunkWriter writer = new ChunkWriter(metastore.hadoop, directory, StagedRuns.ORDERS,
                new StagingSpec(directory, 400, Compression.ZSTD));
        return writer.writePartition(new ChunkNaming("0000", attempt, UUID.randomUUID()),
                StagedRuns.orders(DAY, firstId, rows).iterator());
    }

    private static Publication publication(Staged staged, UUID token, PublishFence fence) {
        return new Publication(staged.runId(), DAY.toString(), token, fence, staged.files(), () -> StagedRuns.ORDERS);
    }

    /**
     * count(*), count(DISTINCT id), min(id), max(id) of the table, whose only partition is the key's, as Hive reads
     * it. Without a partition filter: the test metastore cannot evaluate one (its expression proxy is the standalone
     * metastore's, which answers UnsupportedOperationException).
     */
    private static List<Long> hiveCounts(String table) throws Exception {
        assertThat(admin.listPartitionNames("loader", table, (short) -1)).containsExactly("dt=" + DAY);
        try (Connection c = hs2.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*), count(DISTINCT id), min(id), max(id) FROM loader."
                     + table)) {
            assertThat(rs.next()).isTrue();
            return List.of(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4));
        }
    }

    private static Partition partition(String table) throws Exception {
        return admin.getPartition("loader", table, new ArrayList<>(List.of(DAY.toString())));
    }

    private static String stagingTable(String runId) {
        return "loadgate_stage_" + runId.replace("-", "");
    }

    @Test
    void aLoadPublishesEachStagedRowOnceAndAReplaceOverwritesThePartitionThroughHiveServer2() throws Exception {
        Setup setup = target();
        assertThat(setup.target().setUp(StagedRuns.ORDERS)).as("created through HiveServer2").isTrue();
        System.out.println("table made by HiveServer2: " + admin.getTable("loader", setup.table()).getTableType()
                + " " + admin.getTable("loader", setup.table()).getParameters());

        Staged first = stage(setup, 0, 1_000, true);
        UUID firstToken = UUID.randomUUID();
        PublishFence firstFence = Fences.next();
        PublishOutcome published = setup.target().publish(publication(first, firstToken, firstFence));

        assertThat(published.status()).as(published.message()).isEqualTo(Status.PUBLISHED);
        assertThat(published.targetRef()).isEqualTo(Long.toString(firstFence.generation()));
        assertThat(published.message()).containsPattern("HiveServer2 query id [^( ]+");
        assertThat(hiveCounts(setup.table())).as("each staged row once: no zombie, _tmp, rejects or .crc row")
                .containsExactly(1_000L, 1_000L, 0L, 999L);
        Map<String, String> parameters = partition(setup.table()).getParameters();
        assertThat(parameters).containsEntry(RUN_ID_PROPERTY, first.runId())
                .containsEntry(PUBLISH_TOKEN_PROPERTY, firstToken.toString())
                .containsKey(InsertOverwritePublisher.QUERY_ID_PROPERTY);
        assertThat(admin.tableExists("loader", stagingTable(first.runId()))).as("staging table dropped").isFalse();
        ProbeResult probe = setup.target().probe(first.runId(), firstToken);
        assertThat(probe.status()).isEqualTo(ProbeResult.Status.PUBLISHED);
        assertThat(probe.snapshotId()).isEqualTo(firstFence.generation());

        Staged second = stage(setup, 5_000, 300, false);
        UUID secondToken = UUID.randomUUID();
        PublishOutcome replaced = setup.target().publish(publication(second, secondToken, Fences.next()));

        assertThat(replaced.status()).as(replaced.message()).isEqualTo(Status.PUBLISHED);
        assertThat(hiveCounts(setup.table())).as("replaced").containsExactly(300L, 300L, 5_000L, 5_299L);
        assertThat(partition(setup.table()).getParameters()).containsEntry(RUN_ID_PROPERTY, second.runId())
                .containsEntry(PUBLISH_TOKEN_PROPERTY, secondToken.toString());
        assertThat(setup.target().probe(second.runId(), secondToken).status()).isEqualTo(ProbeResult.Status.PUBLISHED);
        assertThatThrownBy(() -> setup.target().probe(first.runId(), firstToken))
                .as("a replaced token is not evidence that the first run never landed")
                .isInstanceOf(TargetException.class).hasMessageContaining("Resolve the run by hand");
    }

    @Test
    void aLostAnswerIsPublishUnknownWithTheQueryIdAndTheProbeLeavesItToTheOperator() throws Exception {
        Setup direct = target();
        direct.target().setUp(StagedRuns.ORDERS);
        Staged earlier = stage(direct, 0, 100, false);
        UUID earlierToken = UUID.randomUUID();
        assertThat(direct.target().publish(publication(earlier, earlierToken, Fences.next())).status())
                .isEqualTo(Status.PUBLISHED);

        try (CuttingProxy proxy = new CuttingProxy(hs2.port,
                List.of("INSERT OVERWRITE TABLE", "GetQueryId", "GetOperationStatus"))) {
            Setup cut = target(direct.table(), proxy.port());
            Staged run = stage(cut, 1_000, 1_000, true);
            UUID token = UUID.randomUUID();
            long started = System.nanoTime();
            PublishOutcome outcome = cut.target().publish(publication(run, token, Fences.next()));
            System.out.println("lost answer after " + (System.nanoTime() - started) / 1_000_000 + " ms: "
                    + outcome.message());

            assertThat(proxy.didCut()).isTrue();
            assertThat(outcome.status()).as(outcome.message()).isEqualTo(Status.PUBLISH_UNKNOWN);
            assertThat(outcome.errorCode()).isEqualTo(ErrorCode.COMMIT_INTERRUPTED);
            assertThat(outcome.message()).containsPattern("HiveServer2 query id [^( ;]+;")
                    .contains("never sent again", stagingTable(run.runId()));
            assertThat(admin.tableExists("loader", stagingTable(run.runId())))
                    .as("kept: the statement may still be reading it").isTrue();
            assertThatThrownBy(() -> cut.target().probe(run.runId(), token))
                    .as("the partition names the earlier run, whatever the statement did")
                    .isInstanceOf(TargetException.class)
                    .hasMessageContaining("Resolve the run by hand")
                    .hasMessageContaining("loadgate resolve " + run.runId());
            assertThat(partition(direct.table()).getParameters()).as("nothing recorded without a confirmed success")
                    .containsEntry(RUN_ID_PROPERTY, earlier.runId());
        }
    }

    @Test
    void aStatementHiveServer2RefusesWhileCompilingIsFailedPublishAndDropsItsStagingTable() throws Exception {
        Setup made = target();
        made.target().setUp(StagedRuns.ORDERS);
        // A session setting under which Hive's compiler refuses any insert into the (metastore-translated) external
        // table: a refusal that comes after the staging table was made, before anything ran.
        Setup setup = target(made.table(), hs2.port, "?hive.insert.into.external.tables=false");
        Staged run = stage(setup, 0, 10, false);
        PublishOutcome outcome = setup.target().publish(publication(run, UUID.randomUUID(), Fences.next()));
        System.out.println("refused: " + outcome.message());

        assertThat(outcome.status()).as(outcome.message()).isEqualTo(Status.FAILED_PUBLISH);
        assertThat(outcome.errorCode()).isEqualTo(ErrorCode.NOT_COMMITTED);
        assertThat(outcome.message()).contains("refused the INSERT OVERWRITE", "before running it", "SQLState 42");
        assertThat(admin.tableExists("loader", stagingTable(run.runId()))).isFalse();
        assertThat(admin.listPartitionNames("loader", made.table(), (short) -1)).as("no partition written").isEmpty();
    }
}

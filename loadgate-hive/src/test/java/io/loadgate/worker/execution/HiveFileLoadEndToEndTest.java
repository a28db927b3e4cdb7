package io.loadgate.worker.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.loadgate.api.BusinessKey;
import io.loadgate.api.ChunkKind;
import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunId;
import io.loadgate.api.RunStatus;
import io.loadgate.api.StepApi.StagedFile;
import io.loadgate.ledger.LedgerSettings.RecoveryMode;
import io.loadgate.worker.cleanup.Cleaner;
import io.loadgate.worker.cleanup.CleanupMode;
import io.loadgate.worker.cleanup.RunCleanup;
import io.loadgate.worker.staging.ForcedFiles;
import io.loadgate.worker.target.hive.HiveMetastoreFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.IMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.conf.MetastoreConf;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Camus directory drops loaded end to end into a Hive table partitioned {@code dt_hr}: the ledger behind its HTTP API
 * and the workers in this JVM, the Hive Metastore 4.0.1 in its own ({@link HiveMetastoreFixture}), real files on the
 * local disk, the partition's files read back with parquet-java at the location the metastore returns; then the real
 * {@link Cleaner} over both runs once past retention.
 */
@Timeout(300)
class HiveFileLoadEndToEndTest {
    private static final String HOUR = "2026/11/30/14";
    private static final String KEY = "2026-11-30T14";
    private static final List<String> VALUES = List.of("2026-11-30", "14");
    private static final AtomicInteger TABLES = new AtomicInteger();

    @TempDir
    Path dir;
    private Path drops;
    private LoadHarness harness;
    private HiveMetastoreFixture metastore;
    private IMetaStoreClient admin;

    @BeforeEach
    void start() throws Exception {
        metastore = HiveMetastoreFixture.shared();
        Configuration conf = MetastoreConf.newMetastoreConf(new Configuration(metastore.hadoop));
        MetastoreConf.setVar(conf, MetastoreConf.ConfVars.THRIFT_URIS, metastore.metastoreUri);
        admin = new HiveMetaStoreClient(conf);
        drops = dir.resolve("drops");
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        FileLoadEndToEndTest.writeDrops(drops);
    }

    @AfterEach
    void stop() {
        if (harness != null) {
            harness.close();
        }
        if (admin != null) {
            admin.close();
        }
    }

    /** The file source's job of FileLoadEndToEndTest, into a Hive table partitioned by the key's day and hour. */
    private String job(String table) {
        return """
                job_key: EVENTS_HIVE
                source:
                  files:
                    root: "%s"
                    format: ndjson
                    group_by: hour
                    partitions: 2
                    columns:
                      - {name: id, type: bigint}
                      - {name: user_name, type: string, from: /user/name}
                      - {name: amount, type: "decimal(10,2)"}
                target:
                  table: loader.%s
                  business_key_column: load_key
                  hive:
                    metastore_uri: "%s"
                    partitioning: dt_hr
                staging:
                  root: "%s"
                  rows_per_chunk: 250
                transform:
                  max_rejected: 1
                validation:
                  sum: [amount]
                  null_count: [user_name]
                """.formatted(drops.toUri(), table, metastore.metastoreUri, harness.stage.toUri());
    }

    @Test
    void anHourLoadsIntoItsDtHrPartitionAReloadReplacesItAndCleanupKeepsWhatThePartitionPointsAt() throws Exception {
        String table = "events_" + TABLES.incrementAndGet();
        harness.startWorker(2);

        List<RunView> runs = new ArrayList<>();
        List<String> forced = ForcedFiles.during(() -> runs.add(harness.follow(harness.submit(job(table), HOUR))));

        RunView first = runs.get(0);
        assertThat(first.status()).as(first.errorMessage()).isEqualTo(RunStatus.SUCCESS);
        assertThat(first.businessKey()).isEqualTo(BusinessKey.of(KEY));
        assertThat(first.rejectedCount()).as("the malformed line").isEqualTo(1);
        assertThat(first.targetCount()).isEqualTo(700);
        assertThat(admin.listPartitionNames("loader", table, (short) -1)).as("the 15:00 directory is another hour")
                .containsExactly("dt=2026-11-30/hr=14");
        org.apache.hadoop.hive.metastore.api.Table hive = admin.getTable("loader", table);
        assertThat(hive.getPartitionKeys()).extracting(FieldSchema::getName, FieldSchema::getType)
                .containsExactly(tuple("dt", "string"), tuple("hr", "string"));
        assertThat(hive.getSd().getCols()).as("the derived dt and hr are the partition's values")
                .extracting(FieldSchema::getName).containsExactly("id", "user_name", "amount", "load_key");
        Partition firstPartition = partition(table);
        assertThat(firstPartition.getParameters()).containsEntry("loadgate.run-id", first.runId().toString())
                .containsEntry("loadgate.business-key", KEY);
        Path links = local(firstPartition.getSd().getLocation());
        assertThat(forced).as("the hard links' directory and its entry, forced before the partition pointed at it")
                .contains(links.toString(), links.getParent().toString());
        assertThat(fileNames(firstPartition)).as("exactly the ledger's data files of the run")
                .containsExactlyInAnyOrderElementsOf(dataFileNames(first.runId()));
        assertThat(ids(firstPartition)).hasSize(700).doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(range(0, 700));
        assertThat(harness.client.validations(first.runId())).allSatisfy(v ->
                assertThat(v.judgedResult().name()).as(v.metricName()).isEqualTo("PASS"));

        FileLoadEndToEndTest.lines(drops, "d_20261130-1450/part-0.json", 10_000, 20);
        RunView again = harness.follow(harness.submit(job(table), HOUR));

        assertThat(again.status()).as(again.errorMessage()).isEqualTo(RunStatus.SUCCESS);
        Partition replaced = partition(table);
        assertThat(replaced.getSd().getLocation()).isNotEqualTo(firstPartition.getSd().getLocation());
        assertThat(replaced.getParameters()).containsEntry("loadgate.run-id", again.runId().toString());
        assertThat(fileNames(replaced)).containsExactlyInAnyOrderElementsOf(dataFileNames(again.runId()));
        List<Long> expected = new ArrayList<>(range(0, 700));
        expected.addAll(range(10_000, 20));
        assertThat(ids(replaced)).as("the hour replaced, with the late directory")
                .containsExactlyInAnyOrderElementsOf(expected);
        assertThat(harness.client.validations(again.runId())).allSatisfy(v ->
                assertThat(v.judgedResult().name()).as(v.metricName()).isEqualTo("PASS"));
        Path replacedDirectory = local(firstPartition.getSd().getLocation());
        assertThat(replacedDirectory).as("the replaced publish's directory stays for readers until cleanup")
                .isDirectory();

        harness.ledger.execute("UPDATE loadgate.load_run SET completed_at = now() - interval '30 days' WHERE run_id IN ('"
                + first.runId() + "', '" + again.runId() + "')");
        List<RunCleanup> cleaned = new Cleaner(harness.client, new RunContexts(harness.client),
                TargetCatalogs.withDefault(harness.catalog, dir.resolve("warehouse")), new Configuration())
                .clean(CleanupMode.DELETE);

        Map<RunId, RunCleanup> byRun = cleaned.stream().collect(Collectors.toMap(RunCleanup::runId, r -> r));
        assertThat(byRun.keySet()).containsExactlyInAnyOrder(first.runId(), again.runId());
        assertThat(byRun.values()).allSatisfy(r -> assertThat(r.outcome()).as("%s", r)
                .isEqualTo(RunCleanup.Outcome.CLEANED));
        Partition current = partition(table);
        assertThat(current.getSd().getLocation()).isEqualTo(replaced.getSd().getLocation());
        assertThat(byRun.get(again.runId()).kept()).as("every file the partition points at is kept")
                .containsAll(qualifiedFiles(current));
        assertThat(ids(current)).as("and still reads whole").containsExactlyInAnyOrderElementsOf(expected);
        assertThat(replacedDirectory).as("the replaced run's partition directory, past retention").doesNotExist();
        assertThat(byRun.get(first.runId()).deleted()).hasSizeGreaterThanOrEqualTo(2 * dataFileNames(first.runId()).size());
        List<String> rejects = harness.client.files(first.runId()).stream()
                .filter(f -> f.kind() == ChunkKind.REJECTS).map(f -> local(f.hdfsPath()).getFileName().toString())
                .toList();
        try (var left = Files.walk(replacedDirectory.getParent())) {
            assertThat(left.filter(Files::isRegularFile).map(p -> p.getFileName().toString()))
                    .as("of the replaced run, only its rejected rows are left").containsExactlyInAnyOrderElementsOf(rejects);
        }
        assertThat(rejects).isNotEmpty();
    }

    private Partition partition(String table) throws Exception {
        return admin.getPartition("loader", table, new ArrayList<>(VALUES));
    }

    private List<String> dataFileNames(RunId runId) {
        return harness.client.files(runId).stream().filter(f -> f.kind() == ChunkKind.DATA)
                .map(StagedFile::hdfsPath).map(p -> local(p).getFileName().toString()).toList();
    }

    private List<String> fileNames(Partition partition) throws IOException {
        return dataFiles(partition).stream().map(s -> s.getPath().getName()).toList();
    }

    private List<String> qualifiedFiles(Partition partition) throws IOException {
        return dataFiles(partition).stream().map(s -> s.getPath().toString()).toList();
    }

    /** The files Hive reads at the partition's location (it skips names starting with _ or .). */
    private List<FileStatus> dataFiles(Partition partition) throws IOException {
        org.apache.hadoop.fs.Path location = new org.apache.hadoop.fs.Path(partition.getSd().getLocation());
        List<FileStatus> files = new ArrayList<>();
        for (FileStatus status : location.getFileSystem(metastore.hadoop).listStatus(location)) {
            String name = status.getPath().getName();
            if (status.isFile() && !name.startsWith("_") && !name.startsWith(".")) {
                files.add(status);
            }
        }
        return files;
    }

    /** Every id in the partition's files, read with parquet-java (no Loadgate code). */
    private List<Long> ids(Partition partition) throws IOException {
        List<Long> ids = new ArrayList<>();
        for (FileStatus file : dataFiles(partition)) {
            try (ParquetReader<Group> reader = ParquetReader.builder(new GroupReadSupport(), file.getPath())
                    .withConf(metastore.hadoop).build()) {
                for (Group row = reader.read(); row != null; row = reader.read()) {
                    ids.add(row.getLong("id", 0));
                }
            }
        }
        return ids;
    }

    private static Path local(String location) {
        return Path.of(new org.apache.hadoop.fs.Path(location).toUri().getPath());
    }

    private static List<Long> range(long first, int count) {
        List<Long> ids = new ArrayList<>();
        for (long id = first; id < first + count; id++) {
            ids.add(id);
        }
        return ids;
    }
}

package io.loadgate.worker.target.hive;

import static io.loadgate.worker.publish.IcebergPublisher.PUBLISH_TOKEN_PROPERTY;
import static io.loadgate.worker.publish.IcebergPublisher.RUN_ID_PROPERTY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.loadgate.worker.job.Compression;
import io.loadgate.worker.job.HivePartitioning;
import io.loadgate.worker.job.HiveSpec;
import io.loadgate.worker.job.SchemaPolicy;
import io.loadgate.worker.job.StagingSpec;
import io.loadgate.worker.job.TargetSpec;
import io.loadgate.worker.job.ValidationSpec;
import io.loadgate.worker.publish.ProbeResult;
import io.loadgate.worker.publish.PublishFence;
import io.loadgate.worker.publish.PublishOutcome;
import io.loadgate.worker.publish.PublishOutcome.ErrorCode;
import io.loadgate.worker.publish.PublishOutcome.Status;
import io.loadgate.worker.publish.StagedFile;
import io.loadgate.worker.publish.TargetMismatchException;
import io.loadgate.worker.staging.ChunkNaming;
import io.loadgate.worker.staging.ChunkWriter;
import io.loadgate.worker.staging.StagedChunk;
import io.loadgate.worker.target.PendingRollback;
import io.loadgate.worker.target.Publication;
import io.loadgate.worker.target.TableOverview;
import io.loadgate.worker.target.TableSnapshot;
import io.loadgate.worker.target.TargetException;
import io.loadgate.worker.testing.Fences;
import io.loadgate.worker.testing.StagedRuns;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.IMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.conf.MetastoreConf;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Hive target against a real Hive Metastore 4.0.1 (Thrift, schema on PostgreSQL) with staging and tables on an
 * in-process HDFS; files are staged by the worker's own {@link ChunkWriter}, and read back independently with
 * parquet-java at the locations the metastore returns.
 */
class HiveTargetTest {
    private static final LocalDate DAY = LocalDate.of(2026, 12, 1);
    private static final AtomicInteger TABLES = new AtomicInteger();
    private static HiveMetastoreFixture fixture;
    private static IMetaStoreClient admin;

    @BeforeAll
    static void start() throws Exception {
        fixture = HiveMetastoreFixture.shared();
        org.apache.hadoop.conf.Configuration c = MetastoreConf.newMetastoreConf(fixture.hadoop);
        MetastoreConf.setVar(c, MetastoreConf.ConfVars.THRIFT_URIS, fixture.metastoreUri);
        admin = new HiveMetaStoreClient(c);
        System.out.println("metastore and HDFS started in " + fixture.startup.toMillis() + " ms");
    }

    @AfterAll
    static void close() {
        if (admin != null) {
            admin.close();
        }
    }

    /** A target on a table of its own, whose metastore client {@code faults} may wrap. */
    private record Setup(HiveTarget target, String database, String table, String stageRoot) {
    }

    private static Setup target(Function<IMetaStoreClient, IMetaStoreClient> faults) {
        return target("orders_" + TABLES.incrementAndGet(), "order_date", HivePartitioning.DT, SchemaPolicy.EXACT,
                faults);
    }

    /** A target on table {@code loader.<table>}, which another target of the test may share. */
    private static Setup target(String table, String keyColumn, HivePartitioning partitioning, SchemaPolicy schema,
                                Function<IMetaStoreClient, IMetaStoreClient> faults) {
        TargetSpec spec = new TargetSpec("loader." + table, keyColumn, null, null, schema,
                new HiveSpec(fixture.metastoreUri, Map.of(), partitioning));
        MetastoreConnector plain = MetastoreConnector.of(spec.hive(), fixture.hadoop);
        HiveTarget target = new HiveTarget("job-" + table, spec, () -> faults.apply(plain.open()), fixture.hadoop,
                Set.of());
        return new Setup(target, "loader", table, fixture.hdfsUri() + "/stage/job-" + table);
    }

    private static Setup target() {
        return target(Function.identity());
    }

    /** A run's staged chunks, written by the worker's writer into its run directory on HDFS. */
    private record Staged(String runId, LocalDate day, URI directory, List<StagedChunk> chunks) {
        List<StagedFile> files() {
            return chunks.stream().map(c -> new StagedFile(c.path().toString(), c.recordCount(), c.byteCount()))
                    .toList();
        }
    }

    private static Staged stage(Setup setup, long firstId, int rows, int attempt) {
        return stage(setup, DAY, firstId, rows, attempt);
    }

    /** A run of business key {@code day}: its rows' order_date is {@code day}. */
    private static Staged stage(Setup setup, LocalDate day, long firstId, int rows, int attempt) {
        String runId = UUID.randomUUID().toString();
        URI directory = URI.create(setup.stageRoot() + "/run_id=" + runId);
        return new Staged(runId, day, directory, write(directory, day, firstId, rows, attempt));
    }

    private static List<StagedChunk> write(URI directory, LocalDate day, long firstId, int rows, int attempt) {
        List<Record> records = StagedRuns.orders(day, firstId, rows);
        ChunkWriter writer = new ChunkWriter(fixture.hadoop, directory, StagedRuns.ORDERS,
                new StagingSpec(directory, 400, Compression.ZSTD));
        return writer.writePartition(new ChunkNaming("0000", attempt, UUID.randomUUID()), records.iterator());
    }

    private static Publication publication(Staged staged, PublishFence fence) {
        return new Publication(staged.runId(), staged.day().toString(), UUID.randomUUID(), fence, staged.files(),
                () -> StagedRuns.ORDERS);
    }

    private static Partition partition(Setup setup) throws Exception {
        return admin.getPartition(setup.database(), setup.table(), new ArrayList<>(List.of(DAY.toString())));
    }

    /** Every id in the files of the partition's location, read with parquet-java (no Loadgate or Iceberg code). */
    private static List<Long> idsAtLocation(Setup setup) throws Exception {
        return column(partition(setup).getSd().getLocation(), "id").stream().map(Long.class::cast).toList();
    }

    /**
     * {@code column} of every row in the data files at {@code location} (null where a file lacks the column), read
     * with parquet-java.
     */
    private static List<Object> column(String location, String column) throws Exception {
        Path directory = new Path(location);
        FileSystem fs = directory.getFileSystem(fixture.hadoop);
        List<Object> values = new ArrayList<>();
        for (var status : fs.listStatus(directory)) {
            String name = status.getPath().getName();
            if (name.startsWith("_") || name.startsWith(".")) {
                continue;
            }
            try (ParquetReader<Group> reader = ParquetReader.builder(new GroupReadSupport(), status.getPath())
                    .withConf(fixture.hadoop).build()) {
                for (Group row = reader.read(); row != null; row = reader.read()) {
                    if (!row.getType().containsField(column) || row.getFieldRepetitionCount(column) == 0) {
                        values.add(null);
                    } else if (column.equals("id")) {
                        values.add(row.getLong(column, 0));
                    } else {
                        values.add(row.getString(column, 0));
                    }
                }
            }
        }
        return values;
    }

    private static List<Long> range(long first, int count) {
        List<Long> ids = new ArrayList<>();
        for (long id = first; id < first + count; id++) {
            ids.add(id);
        }
        return ids;
    }

    @Test
    void setUpCreatesAnExternalParquetTablePartitionedByDtAndChecksItAfterwards() throws Exception {
        Setup setup = target();

        assertThat(setup.target().setUp(StagedRuns.ORDERS)).as("created").isTrue();
        assertThat(setup.target().setUp(StagedRuns.ORDERS)).as("exists: checked, not created").isFalse();

        Table table = admin.getTable(setup.database(), setup.table());
        assertThat(table.getTableType()).isEqualTo("EXTERNAL_TABLE");
        assertThat(table.getSd().getSerdeInfo().getSerializationLib()).isEqualTo(HiveTable.SERDE);
        assertThat(table.getSd().getCols()).extracting(FieldSchema::getName, FieldSchema::getType)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("id", "bigint"),
                        org.assertj.core.groups.Tuple.tuple("amount", "decimal(12,2)"),
                        org.assertj.core.groups.Tuple.tuple("order_date", "date"));
        assertThat(table.getPartitionKeys()).extracting(FieldSchema::getName).containsExactly("dt");
        assertThat(setup.target().columns()).get().extracting(Schema::asStruct)
                .isEqualTo(StagedRuns.ORDERS.asStruct());
        Schema narrower = new Schema(Types.NestedField.optional(1, "id", Types.IntegerType.get()),
                Types.NestedField.optional(2, "amount", Types.DecimalType.of(12, 2)),
                Types.NestedField.optional(3, "order_date", Types.DateType.get()));
        assertThatThrownBy(() -> setup.target().check(narrower)).isInstanceOf(TargetMismatchException.class)
                .hasMessageContaining("id is bigint, staged int");
    }

    @Test
    void aTypeHiveCannotHoldIsRefusedByName() {
        Setup setup = target();
        Schema withZone = new Schema(Types.NestedField.optional(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "created_at", Types.TimestampType.withZone()),
                Types.NestedField.optional(3, "order_date", Types.DateType.get()));

        assertThatThrownBy(() -> setup.target().setUp(withZone)).isInstanceOf(TargetMismatchException.class)
                .hasMessageContaining("created_at (timestamptz)");
        assertThat(setup.target().columns()).as("nothing created").isEmpty();
    }

    @Test
    void publishPointsThePartitionAtTheRunsFilesAndAReplaceSwapsIt() throws Exception {
        Setup setup = target();
        Staged first = stage(setup, 0, 1_000, 1);

        PublishOutcome published = setup.target().publish(publication(first, Fences.next()));

        assertThat(published.status()).as(published.message()).isEqualTo(Status.PUBLISHED);
        Partition partition = partition(setup);
        assertThat(partition.getSd().getLocation()).startsWith(first.directory().toString() + "/hive-g");
        assertThat(partition.getParameters()).containsEntry(RUN_ID_PROPERTY, first.runId())
                .containsEntry(HivePublisher.SEQUENCE_PROPERTY, published.targetRef());
        assertThat(idsAtLocation(setup)).containsExactlyInAnyOrderElementsOf(range(0, 1_000));
        var reading = setup.target().reading(DAY.toString(), ValidationSpec.COUNT_ONLY, () -> StagedRuns.ORDERS).get();
        assertThat(reading.get("COUNT")).isEqualTo("1000");

        Staged second = stage(setup, 5_000, 700, 1);
        PublishOutcome replaced = setup.target().publish(publication(second, Fences.next()));

        assertThat(replaced.status()).as(replaced.message()).isEqualTo(Status.PUBLISHED);
        assertThat(Long.parseLong(replaced.targetRef())).isGreaterThan(Long.parseLong(published.targetRef()));
        assertThat(idsAtLocation(setup)).containsExactlyInAnyOrderElementsOf(range(5_000, 700));
        FileSystem fs = FileSystem.get(first.directory(), fixture.hadoop);
        assertThat(fs.exists(new Path(partition.getSd().getLocation())))
                .as("the replaced directory stays for queries still reading it, until cleanup").isTrue();
        Set<String> referenced = setup.target().referencedFiles().orElseThrow();
        assertThat(referenced).anyMatch(f -> f.startsWith(second.directory().toString()))
                .noneMatch(f -> f.startsWith(first.directory().toString()));
    }

    /**
     * {@code loadgate table}: what the metastore points at after a publish of two keys and a replace of one, counted
     * from the files at the partitions' locations (the replaced run's files stay in the stage and never count).
     */
    @Test
    void overviewSampleAndSnapshotsReadWhatTheMetastorePointsAtAfterAPublishAndAReplace() throws Exception {
        Setup setup = target();
        assertThat(setup.target().overview()).as("no table yet").isEmpty();
        assertThat(setup.target().sample(Optional.empty(), 10)).isEmpty();
        assertThat(setup.target().snapshots()).isEmpty();
        LocalDate nextDay = DAY.plusDays(1);
        Instant before = Instant.now();
        Staged first = stage(setup, DAY, 0, 1_000, 1);
        assertThat(setup.target().publish(publication(first, Fences.next())).status()).isEqualTo(Status.PUBLISHED);
        Staged other = stage(setup, nextDay, 20_000, 300, 1);
        Publication otherPublication = publication(other, Fences.next());
        PublishOutcome otherOutcome = setup.target().publish(otherPublication);
        assertThat(otherOutcome.status()).as(otherOutcome.message()).isEqualTo(Status.PUBLISHED);
        Staged replacement = stage(setup, DAY, 5_000, 700, 1);
        Publication replacing = publication(replacement, Fences.next());
        PublishOutcome replaced = setup.target().publish(replacing);
        assertThat(replaced.status()).as(replaced.message()).isEqualTo(Status.PUBLISHED);
        // A column added after the files were written: Hive reads Parquet by name, so it reads as null.
        Table hive = admin.getTable(setup.database(), setup.table());
        hive.getSd().getCols().add(new FieldSchema("note", "string", null));
        admin.alter_table(setup.database(), setup.table(), hive);

        TableOverview overview = setup.target().overview().orElseThrow();

        assertThat(overview.businessKeyColumn()).isEqualTo("order_date");
        assertThat(overview.columns()).extracting(TableOverview.Column::name, TableOverview.Column::type)
                .containsExactly(tuple("id", "bigint"), tuple("amount", "decimal(12,2)"), tuple("order_date", "date"),
                        tuple("note", "string"), tuple("dt", "string"));
        assertThat(overview.partitions()).containsExactly(new TableOverview.Partition(DAY.toString(), 700),
                new TableOverview.Partition(nextDay.toString(), 300));
        assertThat(overview.rows()).isEqualTo(1_000);

        List<Map<String, String>> sample = setup.target().sample(Optional.of(DAY.toString()), 5);
        assertThat(sample).hasSize(5).allSatisfy(row -> {
            assertThat(row.keySet()).containsExactly("id", "amount", "order_date", "note", "dt");
            long id = Long.parseLong(row.get("id"));
            assertThat(id).as("the replacement's rows only").isBetween(5_000L, 5_699L);
            assertThat(row).containsEntry("amount", java.math.BigDecimal.valueOf(id * 37 % 100_000, 2).toString())
                    .containsEntry("order_date", DAY.toString()).containsEntry("note", null)
                    .containsEntry("dt", DAY.toString());
        });
        List<Long> all = setup.target().sample(Optional.empty(), 5_000).stream()
                .map(row -> Long.parseLong(row.get("id"))).toList();
        List<Long> expected = new ArrayList<>(range(5_000, 700));
        expected.addAll(range(20_000, 300));
        assertThat(all).as("every row the partitions hold, in business-key order").hasSize(1_000)
                .containsExactlyInAnyOrderElementsOf(expected);
        assertThat(all.subList(0, 700)).allMatch(id -> id < 20_000);
        assertThat(setup.target().sample(Optional.empty(), 3)).hasSize(3);
        assertThat(setup.target().sample(Optional.of(DAY.plusDays(9).toString()), 5)).as("no such partition").isEmpty();

        List<TableSnapshot> snapshots = setup.target().snapshots();

        assertThat(snapshots).as("one per partition, oldest first; the replaced publish is gone")
                .extracting(TableSnapshot::id, TableSnapshot::operation, TableSnapshot::businessKey,
                        TableSnapshot::runId, TableSnapshot::publishToken, TableSnapshot::rows)
                .containsExactly(
                        tuple(otherOutcome.targetRef(), "publish", nextDay.toString(), other.runId(),
                                otherPublication.publishToken().toString(), 300L),
                        tuple(replaced.targetRef(), "publish", DAY.toString(), replacement.runId(),
                                replacing.publishToken().toString(), 700L));
        assertThat(snapshots).allSatisfy(s -> assertThat(s.committedAt()).isBetween(before, Instant.now()));
        assertThat(setup.target().history()).as("the metastore keeps no history").isEqualTo(snapshots);
    }

    @Test
    void partitionValuesMapBackToTheirBusinessKey() {
        assertThat(HivePartitioning.DT.businessKey(List.of("2026-12-01"))).contains("2026-12-01");
        assertThat(HivePartitioning.DT_HR.businessKey(List.of("2026-12-01", "05"))).contains("2026-12-01T05:00:00");
        assertThat(HivePartitioning.YEAR_MONTH_DAY_HOUR.businessKey(List.of("2026", "12", "01", "05")))
                .contains("2026-12-01T05:00:00");
        assertThat(HivePartitioning.DT_HR.businessKey(List.of("2026-12-01", "5"))).as("not as Loadgate spells it")
                .isEmpty();
        assertThat(HivePartitioning.DT.businessKey(List.of("latest"))).isEmpty();
    }

    /** Staged rows of an hourly source: its business-key column is a timestamp on the hour. */
    private static final Schema HOURLY = new Schema(Types.NestedField.optional(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "event_hour", Types.TimestampType.withoutZone()));

    /** A run of {@code rows} rows of {@code schema} ({@code fill} sets each record's other columns) for {@code key}. */
    private static Staged stage(Setup setup, Schema schema, long firstId, int rows,
                                java.util.function.BiConsumer<Record, Long> fill) {
        String runId = UUID.randomUUID().toString();
        URI directory = URI.create(setup.stageRoot() + "/run_id=" + runId);
        List<Record> records = new ArrayList<>();
        for (long id = firstId; id < firstId + rows; id++) {
            Record record = org.apache.iceberg.data.GenericRecord.create(schema);
            record.setField("id", id);
            fill.accept(record, id);
            records.add(record);
        }
        ChunkWriter writer = new ChunkWriter(fixture.hadoop, directory, schema,
                new StagingSpec(directory, 400, Compression.ZSTD));
        return new Staged(runId, DAY, directory,
                writer.writePartition(new ChunkNaming("0000", 1, UUID.randomUUID()), records.iterator()));
    }

    private static Publication publication(Staged staged, String businessKey, Schema schema) {
        return new Publication(staged.runId(), businessKey, UUID.randomUUID(), Fences.next(), staged.files(),
                () -> schema);
    }

    /**
     * Both hour layouts on a real table: the table is partitioned by the layout's string columns, each hour key
     * (a timestamp source's {@code 2026-12-01T05:00:00} and a file source's {@code 2026-12-01T06}) is a partition of
     * its own holding exactly its run's rows, a replace of one hour leaves the other alone, and each partition maps
     * back to its key as the ledger spells it.
     */
    @Test
    void hourKeysBecomeRealDtHrAndYearMonthDayHourPartitions() throws Exception {
        Map<HivePartitioning, List<String>> names = Map.of(
                HivePartitioning.DT_HR, List.of("dt=2026-12-01/hr=05", "dt=2026-12-01/hr=06"),
                HivePartitioning.YEAR_MONTH_DAY_HOUR, List.of("year=2026/month=12/day=01/hour=05",
                        "year=2026/month=12/day=01/hour=06"));
        for (HivePartitioning partitioning : List.of(HivePartitioning.DT_HR, HivePartitioning.YEAR_MONTH_DAY_HOUR)) {
            Setup setup = target("hourly_" + TABLES.incrementAndGet(), "event_hour", partitioning, SchemaPolicy.EXACT,
                    Function.identity());
            String five = "2026-12-01T05:00:00";
            String six = "2026-12-01T06";
            Staged fifth = stage(setup, HOURLY, 0, 300, (r, id) -> r.setField("event_hour", DAY.atTime(5, 0)));
            Staged sixth = stage(setup, HOURLY, 1_000, 200, (r, id) -> r.setField("event_hour", DAY.atTime(6, 0)));

            PublishOutcome p5 = setup.target().publish(publication(fifth, five, HOURLY));
            PublishOutcome p6 = setup.target().publish(publication(sixth, six, HOURLY));

            assertThat(p5.status()).as(p5.message()).isEqualTo(Status.PUBLISHED);
            assertThat(p6.status()).as(p6.message()).isEqualTo(Status.PUBLISHED);
            Table table = admin.getTable(setup.database(), setup.table());
            assertThat(table.getPartitionKeys()).extracting(FieldSchema::getName, FieldSchema::getType)
                    .containsExactlyElementsOf(partitioning.columns().stream().map(c -> tuple(c, "string")).toList());
            assertThat(table.getSd().getCols()).extracting(FieldSchema::getName, FieldSchema::getType)
                    .containsExactly(tuple("id", "bigint"), tuple("event_hour", "timestamp"));
            assertThat(admin.listPartitionNames(setup.database(), setup.table(), (short) -1))
                    .as(partitioning.name()).containsExactlyInAnyOrderElementsOf(names.get(partitioning));
            List<String> fiveValues = partitioning.values(five);
            List<String> sixValues = partitioning.values(six);
            String fiveLocation = admin.getPartition(setup.database(), setup.table(), new ArrayList<>(fiveValues))
                    .getSd().getLocation();
            String sixLocation = admin.getPartition(setup.database(), setup.table(), new ArrayList<>(sixValues))
                    .getSd().getLocation();
            assertThat(column(fiveLocation, "id")).containsExactlyInAnyOrderElementsOf(range(0, 300));
            assertThat(column(sixLocation, "id")).containsExactlyInAnyOrderElementsOf(range(1_000, 200));

            Staged again = stage(setup, HOURLY, 5_000, 120, (r, id) -> r.setField("event_hour", DAY.atTime(5, 0)));
            PublishOutcome replaced = setup.target().publish(publication(again, five, HOURLY));

            assertThat(replaced.status()).as(replaced.message()).isEqualTo(Status.PUBLISHED);
            String replacedLocation = admin.getPartition(setup.database(), setup.table(),
                    new ArrayList<>(fiveValues)).getSd().getLocation();
            assertThat(replacedLocation).isNotEqualTo(fiveLocation);
            assertThat(column(replacedLocation, "id")).containsExactlyInAnyOrderElementsOf(range(5_000, 120));
            assertThat(admin.getPartition(setup.database(), setup.table(), new ArrayList<>(sixValues))
                    .getSd().getLocation()).as("the other hour untouched").isEqualTo(sixLocation);
            assertThat(setup.target().snapshots()).extracting(TableSnapshot::businessKey, TableSnapshot::runId,
                            TableSnapshot::rows)
                    .containsExactlyInAnyOrder(tuple(five, again.runId(), 120L), tuple(six, sixth.runId(), 200L));
            assertThat(setup.target().overview()).get().extracting(TableOverview::partitions)
                    .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.list(TableOverview.Partition.class))
                    .containsExactly(new TableOverview.Partition(five, 120), new TableOverview.Partition(six, 200));
            assertThat(setup.target().rollback(six).orElseThrow().rows()).isEqualTo(200);
            assertThat(setup.target().referencedFiles()).get()
                    .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.collection(String.class))
                    .contains(replacedLocation, sixLocation).doesNotContain(fiveLocation);
        }
    }

    /**
     * {@code target.schema: add_columns} on a real Hive table: a staged column the table lacks is refused under the
     * default policy with the table unchanged, and added (nullable, at the end) under add_columns; the partition
     * published before keeps its files, which lack the column and read as null; a staged set missing a table column
     * is refused under either.
     */
    @Test
    void addColumnsWidensARealHiveTableAndTheOlderPartitionReadsTheNewColumnAsNull() throws Exception {
        String name = "widening_" + TABLES.incrementAndGet();
        Setup exact = target(name, "order_date", HivePartitioning.DT, SchemaPolicy.EXACT, Function.identity());
        Setup adding = target(name, "order_date", HivePartitioning.DT, SchemaPolicy.ADD_COLUMNS, Function.identity());
        Staged old = stage(exact, 0, 150, 1);
        assertThat(exact.target().publish(publication(old, Fences.next())).status()).isEqualTo(Status.PUBLISHED);
        Schema wider = new Schema(Types.NestedField.optional(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "amount", Types.DecimalType.of(12, 2)),
                Types.NestedField.optional(3, "order_date", Types.DateType.get()),
                Types.NestedField.optional(4, "channel", Types.StringType.get()));
        LocalDate nextDay = DAY.plusDays(1);
        Staged widened = stage(exact, wider, 1_000, 80, (r, id) -> {
            r.setField("amount", java.math.BigDecimal.valueOf(id, 2));
            r.setField("order_date", nextDay);
            r.setField("channel", "c" + id % 3);
        });

        PublishOutcome refused = exact.target().publish(publication(widened, nextDay.toString(), wider));

        assertThat(refused.errorCode()).as(refused.message()).isEqualTo(ErrorCode.TARGET_MISMATCH);
        assertThat(refused.message()).contains("channel");
        assertThat(admin.getTable(exact.database(), name).getSd().getCols()).extracting(FieldSchema::getName)
                .containsExactly("id", "amount", "order_date");
        assertThat(admin.listPartitionNames(exact.database(), name, (short) -1)).containsExactly("dt=" + DAY);

        PublishOutcome added = adding.target().publish(publication(widened, nextDay.toString(), wider));

        assertThat(added.status()).as(added.message()).isEqualTo(Status.PUBLISHED);
        assertThat(admin.getTable(exact.database(), name).getSd().getCols())
                .extracting(FieldSchema::getName, FieldSchema::getType)
                .containsExactly(tuple("id", "bigint"), tuple("amount", "decimal(12,2)"), tuple("order_date", "date"),
                        tuple("channel", "string"));
        assertThat(column(partition(exact).getSd().getLocation(), "channel")).as("the older partition's own files")
                .hasSize(150).containsOnlyNulls();
        String newLocation = admin.getPartition(exact.database(), name, new ArrayList<>(List.of(nextDay.toString())))
                .getSd().getLocation();
        assertThat(column(newLocation, "channel")).hasSize(80).containsOnly("c0", "c1", "c2");
        assertThat(adding.target().sample(Optional.of(DAY.toString()), 500)).hasSize(150)
                .allSatisfy(row -> assertThat(row).containsEntry("channel", null));
        assertThat(adding.target().sample(Optional.of(nextDay.toString()), 500)).hasSize(80)
                .allSatisfy(row -> assertThat(row.get("channel")).startsWith("c"));
        assertThat(exact.target().check(wider)).as("nothing left to add").isEmpty();
        assertThatThrownBy(() -> adding.target().check(StagedRuns.ORDERS)).isInstanceOf(TargetMismatchException.class)
                .hasMessageContaining("channel is not among the staged columns");
    }

    /**
     * The third seed: the run directory also holds a zombie attempt's chunk, a speculative task's {@code _tmp} file,
     * the rejects file and a {@code .crc}; the partition holds each source row exactly once.
     */
    @Test
    void thirdSeedTheDirectoryOfAnotherAttemptsOutputIsNeverPublished() throws Exception {
        Setup setup = target();
        Staged staged = stage(setup, 0, 1_000, 2);
        FileSystem fs = FileSystem.get(staged.directory(), fixture.hadoop);
        // A zombie attempt (attempt 1) wrote the same rows under its own names, and is in no ledger list.
        List<StagedChunk> zombie = write(staged.directory(), DAY, 0, 1_000, 1);
        Path aChunk = new Path(staged.chunks().get(0).path());
        FileUtil.copy(fs, aChunk, fs, new Path(new Path(staged.directory()), "_tmp.000005_1"), false, fixture.hadoop);
        FileUtil.copy(fs, aChunk, fs, new Path(new Path(staged.directory()), "part-0000-rejects-a2-0badf00d.parquet"),
                false, fixture.hadoop);
        try (FSDataOutputStream crc = fs.create(new Path(new Path(staged.directory()), "." + aChunk.getName() + ".crc"))) {
            crc.write(new byte[] {1, 2, 3});
        }
        assertThat(fs.listStatus(new Path(staged.directory()))).as("the seed's directory")
                .hasSize(staged.chunks().size() + zombie.size() + 3);

        PublishOutcome outcome = setup.target().publish(publication(staged, Fences.next()));

        assertThat(outcome.status()).as(outcome.message()).isEqualTo(Status.PUBLISHED);
        List<Long> ids = idsAtLocation(setup);
        assertThat(ids).as("each source row exactly once").hasSize(1_000).doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(range(0, 1_000));
        assertThat(fs.listStatus(new Path(partition(setup).getSd().getLocation())))
                .extracting(s -> s.getPath().getName())
                .containsExactlyInAnyOrderElementsOf(staged.chunks().stream().map(c -> new Path(c.path()).getName())
                        .toList());
    }

    @Test
    void aLostAnswerIsUnknownAndTheProbeSettlesItFromThePartitionsParameters() throws Exception {
        // The swap reaches the metastore; its answer is lost on the way back.
        Setup setup = target(client -> answerLost(client, "add_partition"));
        setup.target().setUp(StagedRuns.ORDERS);
        Staged staged = stage(setup, 0, 300, 1);
        Publication publication = publication(staged, Fences.next());

        PublishOutcome outcome = setup.target().publish(publication);

        assertThat(outcome.status()).as(outcome.message()).isEqualTo(Status.PUBLISH_UNKNOWN);
        assertThat(outcome.errorCode()).isEqualTo(ErrorCode.COMMIT_INTERRUPTED);
        ProbeResult probe = setup.target().probe(staged.runId(), publication.publishToken());
        assertThat(probe.status()).as(probe.evidence()).isEqualTo(ProbeResult.Status.PUBLISHED);
        assertThat(probe.evidence()).contains("dt=2026-12-01");
        assertThat(setup.target().probe(staged.runId(), UUID.randomUUID()).status())
                .isEqualTo(ProbeResult.Status.NOT_FOUND);
        assertThatThrownBy(() -> setup.target().probe("another-run", publication.publishToken()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("another-run");
    }

    @Test
    void aStaleGenerationAndAPassedDeadlineAreFencedAndLeaveThePartitionAsItWas() throws Exception {
        Setup setup = target();
        PublishFence older = Fences.next();
        PublishFence newer = Fences.next();
        Staged current = stage(setup, 0, 200, 1);
        assertThat(setup.target().publish(publication(current, newer)).status()).isEqualTo(Status.PUBLISHED);

        PublishOutcome stale = setup.target().publish(publication(stage(setup, 900, 200, 1), older));
        PublishOutcome late = setup.target().publish(publication(stage(setup, 900, 200, 1),
                new PublishFence(Fences.next().generation(), Instant.now().minusSeconds(1))));

        assertThat(stale.errorCode()).as(stale.message()).isEqualTo(ErrorCode.PUBLISH_FENCED);
        assertThat(stale.message()).contains("generation " + newer.generation());
        assertThat(late.errorCode()).as(late.message()).isEqualTo(ErrorCode.PUBLISH_FENCED);
        assertThat(partition(setup).getParameters()).containsEntry(RUN_ID_PROPERTY, current.runId());
        assertThat(idsAtLocation(setup)).containsExactlyInAnyOrderElementsOf(range(0, 200));
    }

    /** Two publishers of one key at once: the higher generation ends in the partition, whichever sends first. */
    @Test
    void racingPublishersOfOneKeyEndWithTheHigherGeneration() throws Exception {
        Setup setup = target();
        setup.target().setUp(StagedRuns.ORDERS);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 2; round++) {
                Staged low = stage(setup, round * 10_000L, 100, 1);
                Staged high = stage(setup, round * 10_000L + 5_000, 100, 1);
                PublishFence lowFence = Fences.next();
                PublishFence highFence = Fences.next();
                CountDownLatch go = new CountDownLatch(1);
                Future<PublishOutcome> lowOutcome = pool.submit(() -> {
                    go.await();
                    return setup.target().publish(publication(low, lowFence));
                });
                Future<PublishOutcome> highOutcome = pool.submit(() -> {
                    go.await();
                    return setup.target().publish(publication(high, highFence));
                });
                go.countDown();
                PublishOutcome h = highOutcome.get();
                PublishOutcome l = lowOutcome.get();

                assertThat(h.status()).as(h.message()).isEqualTo(Status.PUBLISHED);
                if (l.status() == Status.PUBLISHED) {
                    assertThat(Long.parseLong(l.targetRef())).as("the lower landed first")
                            .isLessThan(Long.parseLong(h.targetRef()));
                } else {
                    assertThat(l.errorCode()).as(l.message()).isEqualTo(ErrorCode.PUBLISH_FENCED);
                }
                assertThat(partition(setup).getParameters()).containsEntry(RUN_ID_PROPERTY, high.runId());
                assertThat(idsAtLocation(setup)).containsExactlyInAnyOrderElementsOf(range(round * 10_000L + 5_000, 100));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void rollbackDropsThePartitionKeepsItsFilesAndRefusesWhenARunPublishedMeanwhile() throws Exception {
        Setup setup = target();
        Staged first = stage(setup, 0, 250, 1);
        setup.target().publish(publication(first, Fences.next()));
        PendingRollback found = setup.target().rollback(DAY.toString()).orElseThrow();
        assertThat(found.rows()).isEqualTo(250);

        Staged second = stage(setup, 1_000, 120, 1);
        assertThat(setup.target().publish(publication(second, Fences.next())).status()).isEqualTo(Status.PUBLISHED);
        assertThatThrownBy(() -> found.commit(first.runId(), "wrong rows"))
                .isInstanceOf(TargetException.class).hasMessageContaining("nothing removed");
        assertThat(partition(setup).getParameters()).containsEntry(RUN_ID_PROPERTY, second.runId());

        PendingRollback again = setup.target().rollback(DAY.toString()).orElseThrow();
        assertThat(again.rows()).isEqualTo(120);
        String location = partition(setup).getSd().getLocation();
        PendingRollback.RolledBack rolledBack = again.commit(second.runId(), "wrong rows");

        assertThat(rolledBack.committedAs()).contains("kept for cleanup");
        assertThatThrownBy(() -> partition(setup)).hasMessageContaining("partition");
        assertThat(FileSystem.get(second.directory(), fixture.hadoop).listStatus(new Path(location)))
                .as("the dropped partition's files stay for cleanup").isNotEmpty();
        assertThat(setup.target().referencedFiles()).get().asInstanceOf(
                org.assertj.core.api.InstanceOfAssertFactories.collection(String.class)).isEmpty();
        assertThat(setup.target().rollback(DAY.toString()).orElseThrow().rows()).as("nothing left").isZero();
    }

    /** A rollback and a publish of one key at once: never a rollback that reports success over the newer publish. */
    @Test
    void aRacingRollbackAndPublishOfOneKeyAreSerialised() throws Exception {
        Setup setup = target();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 2; round++) {
                Staged old = stage(setup, round * 10_000L, 50, 1);
                assertThat(setup.target().publish(publication(old, Fences.next())).status()).isEqualTo(Status.PUBLISHED);
                PendingRollback found = setup.target().rollback(DAY.toString()).orElseThrow();
                Staged next = stage(setup, round * 10_000L + 5_000, 60, 1);
                PublishFence fence = Fences.next();
                CountDownLatch go = new CountDownLatch(1);
                Future<Object> rollback = pool.submit(() -> {
                    go.await();
                    try {
                        return found.commit(old.runId(), "race");
                    } catch (TargetException e) {
                        return e;
                    }
                });
                Future<PublishOutcome> publish = pool.submit(() -> {
                    go.await();
                    return setup.target().publish(publication(next, fence));
                });
                go.countDown();
                PublishOutcome published = publish.get();
                Object rolled = rollback.get();

                assertThat(published.status()).as(published.message()).isEqualTo(Status.PUBLISHED);
                if (rolled instanceof PendingRollback.RolledBack done) {
                    assertThat(Long.parseLong(done.ref())).as("the rollback went first")
                            .isLessThan(Long.parseLong(published.targetRef()));
                } else {
                    assertThat((TargetException) rolled).hasMessageContaining("nothing removed");
                }
                assertThat(partition(setup).getParameters()).as("the publish is never rolled back by a stale find")
                        .containsEntry(RUN_ID_PROPERTY, next.runId());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** A client whose {@code method} is applied by the metastore but whose answer never arrives. */
    private static IMetaStoreClient answerLost(IMetaStoreClient client, String method) {
        return (IMetaStoreClient) Proxy.newProxyInstance(IMetaStoreClient.class.getClassLoader(),
                new Class<?>[] {IMetaStoreClient.class}, (proxy, m, args) -> {
                    Object result;
                    try {
                        result = m.invoke(client, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (m.getName().equals(method)) {
                        throw new TTransportException(TTransportException.TIMED_OUT, "answer lost (injected)");
                    }
                    return result;
                });
    }
}

package io.loadgate.worker.target.hive;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.job.FileGrouping;
import io.loadgate.worker.job.FilesSpec;
import io.loadgate.worker.job.HivePublishMode;
import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.job.SchemaPolicy;
import io.loadgate.worker.job.TargetSpec;
import io.loadgate.worker.job.ValidationSpec;
import io.loadgate.worker.publish.IcebergPublisher;
import io.loadgate.worker.publish.ProbeResult;
import io.loadgate.worker.publish.PublishOutcome;
import io.loadgate.worker.publish.TargetMismatchException;
import io.loadgate.worker.target.PendingRollback;
import io.loadgate.worker.target.Publication;
import io.loadgate.worker.target.SnapshotExpiry;
import io.loadgate.worker.target.TableOverview;
import io.loadgate.worker.target.TableSnapshot;
import io.loadgate.worker.target.Target;
import io.loadgate.worker.target.TargetException;
import io.loadgate.worker.validation.MetricSet;
import io.loadgate.worker.validation.ParquetFiles;
import io.loadgate.worker.validation.StagedFilesReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hive.metastore.IMetaStoreClient;
import org.apache.hadoop.hive.metastore.Warehouse;
import org.apache.hadoop.hive.metastore.api.AlreadyExistsException;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.hive_metastoreConstants;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.thrift.TException;

/**
 * A Hive table in a Hive Metastore ({@code target.hive}): EXTERNAL, Parquet, partitioned by the business key's
 * {@link io.loadgate.worker.job.HivePartitioning}. A publish points the key's partition at a directory holding
 * exactly the run's data files ({@link PublishDirectory}), fenced as {@link HivePublisher} says; a rollback drops the
 * partition and keeps its files for cleanup; cleanup keeps every file a partition points at. With {@code publish:
 * insert_overwrite} the table may be any Hive table with the partitioning, and a publish is one {@code INSERT
 * OVERWRITE} through HiveServer2 ({@link InsertOverwritePublisher}).
 */
final class HiveTarget implements Target {
    private final String jobKey;
    private final TargetSpec spec;
    private final HiveTable table;
    private final MetastoreConnector metastore;
    private final Configuration hadoop;
    private final Set<String> keyDerived;
    /** Null unless the job publishes with {@link HivePublishMode#INSERT_OVERWRITE}. */
    private final HiveServer2Connector hiveServer2;

    /**
     * @param keyDerived staged columns that hold, in every row, what the partition column of the same name holds
     *     (the file source's day and hour of its key, {@link #keyDerived}): the partition's values stand for them
     */
    HiveTarget(String jobKey, TargetSpec spec, MetastoreConnector metastore, Configuration hadoop,
               Set<String> keyDerived) {
        this(jobKey, spec, metastore, hadoop, keyDerived, null);
    }

    /** @param hiveServer2 the HiveServer2 of {@code publish: insert_overwrite}; null for {@code publish: directory} */
    HiveTarget(String jobKey, TargetSpec spec, MetastoreConnector metastore, Configuration hadoop,
               Set<String> keyDerived, HiveServer2Connector hiveServer2) {
        this.jobKey = requireNonNull(jobKey, "jobKey is null");
        this.spec = requireNonNull(spec, "spec is null");
        this.table = HiveTable.of(spec.table(), spec.hive().partitioning());
        this.metastore = requireNonNull(metastore, "metastore is null");
        this.hadoop = requireNonNull(hadoop, "hadoop is null");
        this.keyDerived = Set.copyOf(keyDerived);
        if ((spec.hive().publish() == HivePublishMode.INSERT_OVERWRITE) != (hiveServer2 != null)) {
            throw new IllegalArgumentException("a HiveServer2 is given exactly for publish insert_overwrite");
        }
        this.hiveServer2 = hiveServer2;
    }

    private boolean insertOverwrite() {
        return hiveServer2 != null;
    }

    /**
     * The file source's derived columns that have the name of a partition column of {@code partitioning} and its
     * meaning: the key's day ({@code dt}) and hour ({@code hr}, {@code hour}). With the file source's default names
     * ({@code dt}, {@code hr}) and {@code partitioning: dt_hr}, both; a column of another source named so is the
     * source's own and stays refused.
     */
    static Set<String> keyDerived(JobSpec job) {
        FilesSpec files = job.source().files();
        if (files == null || !job.target().isHive()) {
            return Set.of();
        }
        List<String> columns = job.target().hive().partitioning().columns();
        Set<String> derived = new HashSet<>();
        String date = files.partitionColumns().date().toLowerCase(Locale.ROOT);
        if (date.equals("dt") && columns.contains("dt")) {
            derived.add(date);
        }
        String hour = files.groupBy() == FileGrouping.HOUR ? files.partitionColumns().hour().toLowerCase(Locale.ROOT)
                : null;
        if (hour != null && (hour.equals("hr") || hour.equals("hour")) && columns.contains(hour)) {
            derived.add(hour);
        }
        return derived;
    }

    @Override
    public String table() {
        return table.toString();
    }

    @Override
    public boolean setUp(Schema columns) {
        List<FieldSchema> hiveColumns = HiveTypes.columns(dataColumns(columns), table.toString());
        try (IMetaStoreClient client = open()) {
            if (existing(client).isPresent()) {
                check(columns);
                return false;
            }
            try {
                client.createDatabase(new Database(table.database(), "", null, new java.util.HashMap<>()));
            } catch (AlreadyExistsException e) {
                // The database is shared by the tables of many jobs.
            }
            try {
                if (insertOverwrite()) {
                    createThroughHiveServer2(hiveColumns);
                } else {
                    client.createTable(table.newTable(hiveColumns));
                }
                return true;
            } catch (AlreadyExistsException e) {
                check(columns);
                return false;
            }
        } catch (TException e) {
            throw new TargetException("the metastore refused the creation of Hive table " + table + ": "
                    + TargetException.oneLine(e), e);
        }
    }

    /**
     * {@code publish: insert_overwrite} makes the table as Hive makes one (managed, and transactional where Hive's
     * settings make managed tables so), with the publish sequence a rollback advances.
     */
    private void createThroughHiveServer2(List<FieldSchema> columns) throws AlreadyExistsException {
        String ddl = "CREATE TABLE `" + table.database() + "`.`" + table.name() + "` (" + String.join(", ",
                columns.stream().map(c -> "`" + c.getName() + "` " + c.getType()).toList()) + ") PARTITIONED BY ("
                + String.join(", ", table.partitioning().columns().stream().map(c -> "`" + c + "` string").toList())
                + ") STORED AS PARQUET TBLPROPERTIES ('" + HiveTable.SEQUENCE + "'='0')";
        try (Connection connection = hiveServer2.open(); Statement statement = connection.createStatement()) {
            statement.execute(ddl);
        } catch (SQLException e) {
            if (String.valueOf(e.getMessage()).contains("AlreadyExistsException")) {
                throw new AlreadyExistsException(e.getMessage());
            }
            throw new TargetException("HiveServer2 refused the creation of Hive table " + table + ": "
                    + TargetException.oneLine(e), e);
        }
    }

    /** HiveServer2 takes a connection: its driver loads and the credentials are accepted. */
    private void checkHiveServer2() {
        try (Connection connection = hiveServer2.open()) {
            connection.isValid(10);
        } catch (SQLException | RuntimeException e) {
            throw new TargetException("target.hive.hiveserver2 " + spec.hive().hiveserver2().redactedUrl()
                    + " cannot be used: " + TargetException.oneLine(e), e);
        }
    }

    @Override
    public Optional<Schema> columns() {
        try (IMetaStoreClient client = open()) {
            return existing(client).map(found -> {
                List<Types.NestedField> fields = new ArrayList<>();
                for (FieldSchema column : found.getSd().getCols()) {
                    Type type = HiveTypes.stagedType(column.getType());
                    if (type == null) {
                        throw new TargetMismatchException("column " + column.getName() + " of Hive table " + table
                                + " is " + column.getType() + ", which Loadgate never stages");
                    }
                    fields.add(Types.NestedField.optional(fields.size() + 1, column.getName(), type));
                }
                return new Schema(fields);
            });
        } catch (TException e) {
            throw new TargetException("cannot read Hive table " + table + ": " + TargetException.oneLine(e), e);
        }
    }

    @Override
    public List<String> check(Schema columns) {
        List<FieldSchema> wanted = HiveTypes.columns(dataColumns(columns), table.toString());
        if (insertOverwrite()) {
            checkHiveServer2();
        }
        try (IMetaStoreClient client = open()) {
            Optional<Table> found = existing(client);
            if (found.isEmpty()) {
                return List.of();
            }
            Table current = found.get();
            String misfit = table.misfit(current, spec.hive().publish());
            if (misfit != null) {
                throw new TargetMismatchException("Hive table " + table + " " + misfit);
            }
            List<FieldSchema> have = current.getSd().getCols();
            List<String> differing = new ArrayList<>();
            List<FieldSchema> added = new ArrayList<>();
            for (FieldSchema column : wanted) {
                Optional<FieldSchema> same = have.stream().filter(c -> c.getName().equals(column.getName())).findFirst();
                if (same.isEmpty()) {
                    added.add(column);
                } else if (!same.get().getType().replace(" ", "").equalsIgnoreCase(column.getType())) {
                    differing.add(column.getName() + " is " + same.get().getType() + ", staged " + column.getType());
                }
            }
            have.stream().filter(c -> wanted.stream().noneMatch(w -> w.getName().equals(c.getName())))
                    .forEach(c -> differing.add(c.getName() + " is not among the staged columns"));
            if (!differing.isEmpty()) {
                throw new TargetMismatchException("Hive table " + table + " does not fit the staged columns: "
                        + differing);
            }
            List<String> names = added.stream().map(FieldSchema::getName).toList();
            if (added.isEmpty()) {
                return List.of();
            }
            if (spec.schema() != SchemaPolicy.ADD_COLUMNS) {
                throw TargetMismatchException.newColumns(table.toString(), names);
            }
            // Parquet is read by column name, so partitions published before read the new columns as null.
            current.getSd().getCols().addAll(added);
            client.alter_table(table.database(), table.name(), current);
            return names;
        } catch (TException e) {
            throw new TargetException("the metastore refused the check of Hive table " + table + ": "
                    + TargetException.oneLine(e), e);
        }
    }

    @Override
    public PublishOutcome publish(Publication publication) {
        if (insertOverwrite()) {
            return publishInsertOverwrite(publication);
        }
        HivePublisher.Swap swap;
        IMetaStoreClient client;
        try {
            List<String> values = table.partitioning().values(publication.businessKey());
            if (publication.files().isEmpty()) {
                return PublishOutcome.failed(PublishOutcome.ErrorCode.NOT_COMMITTED, "run " + publication.runId()
                        + " staged no rows: a Hive partition cannot be emptied by a publish; roll the key back instead");
            }
            setUp(publication.stagedColumns().get());
            String location = PublishDirectory.build(publication.files(), publication.fence().generation(), hadoop);
            swap = new HivePublisher.Swap(publication.runId(), jobKey, publication.businessKey(),
                    publication.publishToken(), publication.fence(), values, location);
            client = open();
        } catch (TargetMismatchException e) {
            return PublishOutcome.failed(PublishOutcome.ErrorCode.TARGET_MISMATCH, e.getMessage());
        } catch (IOException | RuntimeException e) {
            // Nothing was sent to the partition: the swap is the last thing a publish does.
            return PublishOutcome.failed(PublishOutcome.ErrorCode.NOT_COMMITTED, "publish of run "
                    + publication.runId() + " to Hive table " + table + " not started: " + TargetException.oneLine(e));
        }
        try (client) {
            return new HivePublisher(client, table).publish(swap);
        }
    }

    private PublishOutcome publishInsertOverwrite(Publication publication) {
        InsertOverwritePublisher.Insert insert;
        try {
            List<String> values = table.partitioning().values(publication.businessKey());
            if (publication.files().isEmpty()) {
                return PublishOutcome.failed(PublishOutcome.ErrorCode.NOT_COMMITTED, "run " + publication.runId()
                        + " staged no rows: an INSERT OVERWRITE from no files would empty the partition; roll the key"
                        + " back instead");
            }
            Schema staged = publication.stagedColumns().get();
            setUp(staged);
            String location = PublishDirectory.build(publication.files(), publication.fence().generation(), hadoop);
            insert = new InsertOverwritePublisher.Insert(new HivePublisher.Swap(publication.runId(), jobKey,
                    publication.businessKey(), publication.publishToken(), publication.fence(), values, location),
                    HiveTypes.columns(staged, table.toString()));
        } catch (TargetMismatchException e) {
            return PublishOutcome.failed(PublishOutcome.ErrorCode.TARGET_MISMATCH, e.getMessage());
        } catch (IOException | RuntimeException e) {
            return PublishOutcome.failed(PublishOutcome.ErrorCode.NOT_COMMITTED, "publish of run "
                    + publication.runId() + " to Hive table " + table + " not started: " + TargetException.oneLine(e));
        }
        return new InsertOverwritePublisher(hiveServer2, metastore, table).publish(insert);
    }

    /**
     * {@code publish: insert_overwrite}: found only when the partition's parameters name this run, which the
     * publisher records after HiveServer2 confirmed the statement. Absent is no evidence that the statement never ran
     * (see {@link InsertOverwritePublisher}), so the probe then throws and leaves the run to an operator.
     */
    @Override
    public ProbeResult probe(String runId, UUID publishToken) {
        try (IMetaStoreClient client = open()) {
            if (insertOverwrite()) {
                ProbeResult found = new HivePublisher(client, table).probe(runId, publishToken,
                        io.loadgate.worker.publish.IcebergPublisher.PUBLISH_GENERATION_PROPERTY);
                if (found.status() == ProbeResult.Status.PUBLISHED) {
                    return found;
                }
                throw new TargetException("publish insert_overwrite of run " + runId + ": " + found.evidence()
                        + ", which does not tell whether its INSERT OVERWRITE ran: Hive writes no token with the data,"
                        + " and HiveServer2 may still run a statement whose client is gone. Resolve the run by hand"
                        + " (loadgate resolve " + runId + " --as PUBLISHED|FAILED_PUBLISH) after looking up the"
                        + " HiveServer2 query id its publish event names", null);
            }
            return new HivePublisher(client, table).probe(runId, publishToken);
        } catch (TException e) {
            throw new TargetException("cannot read the partitions of Hive table " + table + ": "
                    + TargetException.oneLine(e), e);
        }
    }

    /** The partition read through its location: the files the metastore points Hive's readers at. */
    @Override
    public Supplier<MetricSet> reading(String businessKey, ValidationSpec validation, Supplier<Schema> stagedColumns) {
        List<String> values = table.partitioning().values(businessKey);
        Optional<Partition> partition;
        try (IMetaStoreClient client = open()) {
            partition = new HivePublisher(client, table).partition(values);
        } catch (TException e) {
            throw new TargetException("cannot read Hive table " + table + ": " + TargetException.oneLine(e), e);
        }
        Schema schema = stagedColumns.get();
        return () -> new StagedFilesReader(hadoop).metrics(schema,
                partition.map(p -> dataFiles(p.getSd().getLocation())).orElse(List.of()), validation);
    }

    @Override
    public Optional<PendingRollback> rollback(String businessKey) {
        List<String> values = table.partitioning().values(businessKey);
        long sequence;
        Optional<Partition> partition;
        try (IMetaStoreClient client = open()) {
            if (existing(client).isEmpty()) {
                return Optional.empty();
            }
            HivePublisher publisher = new HivePublisher(client, table);
            sequence = publisher.sequence();
            partition = publisher.partition(values);
        } catch (TException e) {
            throw new TargetException("cannot read Hive table " + table + ": " + TargetException.oneLine(e), e);
        }
        List<URI> files = partition.map(p -> dataFiles(p.getSd().getLocation())).orElse(List.of());
        long rows = rowCount(files);
        String location = partition.map(p -> p.getSd().getLocation()).orElse(null);
        String token = partition.map(p -> p.getParameters().get(IcebergPublisher.PUBLISH_TOKEN_PROPERTY)).orElse(null);
        return Optional.of(new PendingRollback() {
            @Override
            public long rows() {
                return rows;
            }

            @Override
            public String describe() {
                return files.size() + " data file(s), " + String.format("%,d", rows) + " rows of business key "
                        + businessKey + " from Hive table " + table + " (partition directory " + location + ")";
            }

            @Override
            public RolledBack commit(String runId, String reason) {
                try (IMetaStoreClient client = open()) {
                    long claimed = new HivePublisher(client, table).dropPartition(values, sequence, token);
                    return new RolledBack(Long.toString(claimed), "publish sequence " + claimed + " (partition dropped;"
                            + " its directory " + location + " is kept for cleanup)");
                } catch (IllegalStateException e) {
                    throw new TargetException("the partition changed while rolling back (did a run publish?);"
                            + " nothing removed: " + e.getMessage(), e);
                } catch (TException e) {
                    throw new TargetException("the rollback of Hive table " + table + " failed ("
                            + TargetException.oneLine(e) + "); if the connection broke, read partition "
                            + values + " before anything else", e);
                }
            }
        });
    }

    /** Every file a partition points at, whichever run staged it: cleanup never deletes them. */
    @Override
    public Optional<Set<String>> referencedFiles() {
        try (IMetaStoreClient client = open()) {
            if (existing(client).isEmpty()) {
                return Optional.empty();
            }
            Set<String> files = new HashSet<>();
            for (Partition partition : client.listPartitions(table.database(), table.name(), (short) -1)) {
                dataFiles(partition.getSd().getLocation()).forEach(file -> files.add(file.toString()));
                // The directory itself too, so that a cleaner comparing directories keeps it as well.
                files.add(partition.getSd().getLocation());
            }
            return Optional.of(files);
        } catch (TException | RuntimeException e) {
            throw new TargetException("cannot read what Hive table " + table + " references: "
                    + TargetException.oneLine(e), e);
        }
    }

    /** A partition swap leaves no history in the metastore: the old directory is the replaced run's, freed by cleanup. */
    @Override
    public int expireHistory(SnapshotExpiry expiry) {
        return 0;
    }

    /**
     * The table's columns as the metastore types them, then its partition columns (as Hive lists them), and each
     * partition's rows counted from the Parquet footers of exactly the files at its location: the metastore's
     * {@code numRows} may be absent or stale.
     */
    @Override
    public Optional<TableOverview> overview() {
        return readTable((client, current) -> {
            List<TableOverview.Column> columns = new ArrayList<>();
            for (FieldSchema column : allColumns(current)) {
                columns.add(new TableOverview.Column(column.getName(), column.getType()));
            }
            List<TableOverview.Partition> partitions = new ArrayList<>();
            for (Partition partition : partitions(client)) {
                partitions.add(new TableOverview.Partition(businessKey(partition),
                        rowCount(dataFiles(partition.getSd().getLocation()))));
            }
            return new TableOverview(table.toString(), spec.businessKeyColumn(), columns, partitions);
        });
    }

    /**
     * Rows read by column name from the files at the partitions' locations, as Hive's Parquet reader reads them (a
     * column the table gained after a file was written reads as null), with the partition's values for the
     * partition columns; the partitions in business-key order.
     */
    @Override
    public List<Map<String, String>> sample(Optional<String> businessKey, int limit) {
        Optional<List<String>> wanted = businessKey.map(key -> table.partitioning().values(key));
        return readTable((client, current) -> {
            List<Map<String, String>> rows = new ArrayList<>();
            List<Partition> partitions = wanted.isPresent()
                    ? new HivePublisher(client, table).partition(wanted.get()).map(List::of).orElse(List.of())
                    : partitions(client);
            for (Partition partition : partitions) {
                if (rows.size() >= limit) {
                    break;
                }
                addRows(current, partition, limit, rows);
            }
            return rows;
        }).orElse(List.of());
    }

    private void addRows(Table current, Partition partition, int limit, List<Map<String, String>> rows) {
        StagedFilesReader reader = new StagedFilesReader(hadoop);
        List<String> keys = table.partitioning().columns();
        for (URI file : dataFiles(partition.getSd().getLocation())) {
            Schema inFile = reader.schemaOf(file);
            List<String> names = current.getSd().getCols().stream().map(FieldSchema::getName)
                    .filter(name -> inFile.caseInsensitiveFindField(name) != null).toList();
            Schema read = inFile.caseInsensitiveSelect(names);
            try (CloseableIterable<Record> records = reader.read(read, List.of(file))) {
                for (Record record : records) {
                    if (rows.size() >= limit) {
                        return;
                    }
                    Map<String, String> row = new LinkedHashMap<>();
                    for (FieldSchema column : current.getSd().getCols()) {
                        Types.NestedField field = read.caseInsensitiveFindField(column.getName());
                        Object value = field == null ? null : record.getField(field.name());
                        row.put(column.getName(), value == null ? null : value.toString());
                    }
                    for (int i = 0; i < keys.size(); i++) {
                        row.put(keys.get(i), partition.getValues().get(i));
                    }
                    rows.add(row);
                }
            } catch (IOException e) {
                throw new TargetException("cannot read " + file + ": " + e.getMessage(), e);
            }
        }
    }

    /**
     * What the metastore retains of the publishes: each current partition's last one (its run id, publish token and
     * publish sequence number from the partition's parameters, its rows counted as {@link #overview} counts them),
     * oldest first. A replaced or rolled-back publish leaves nothing in the metastore.
     */
    @Override
    public List<TableSnapshot> snapshots() {
        return readTable((client, current) -> {
            List<TableSnapshot> snapshots = new ArrayList<>();
            for (Partition partition : partitions(client)) {
                Map<String, String> parameters = partition.getParameters();
                String runId = parameters.get(IcebergPublisher.RUN_ID_PROPERTY);
                snapshots.add(new TableSnapshot(parameters.get(HivePublisher.SEQUENCE_PROPERTY),
                        committedAt(partition), runId == null ? "partition" : "publish", runId,
                        parameters.get(IcebergPublisher.PUBLISH_TOKEN_PROPERTY), businessKey(partition),
                        rowCount(dataFiles(partition.getSd().getLocation()))));
            }
            snapshots.sort(Comparator.comparing(TableSnapshot::committedAt).thenComparing(
                    s -> s.id() == null ? 0 : Long.parseLong(s.id())));
            return snapshots;
        }).orElse(List.of());
    }

    /**
     * The same as {@link #snapshots}: the metastore keeps no history of a table's states, only its partitions as
     * they are now, so a Hive table's history is its current partitions' publishes.
     */
    @Override
    public List<TableSnapshot> history() {
        return snapshots();
    }

    /** The publisher's time of the swap; for a partition Loadgate did not publish, the metastore's DDL or create time. */
    private static Instant committedAt(Partition partition) {
        Map<String, String> parameters = partition.getParameters();
        String committed = parameters.get(HivePublisher.COMMITTED_AT_PROPERTY);
        if (committed != null) {
            return Instant.parse(committed);
        }
        String ddlTime = parameters.get(hive_metastoreConstants.DDL_TIME);
        return Instant.ofEpochSecond(ddlTime != null ? Long.parseLong(ddlTime) : partition.getCreateTime());
    }

    /**
     * The partition's business key as its publish recorded it (the ledger's spelling); else the one its values map
     * back to; else its name ({@code dt=...}), for a partition no business key of the job becomes.
     */
    private String businessKey(Partition partition) {
        String recorded = partition.getParameters() == null ? null
                : partition.getParameters().get(IcebergPublisher.BUSINESS_KEY_PROPERTY);
        if (recorded != null && recordedFits(recorded, partition.getValues())) {
            return recorded;
        }
        return table.partitioning().businessKey(partition.getValues()).orElseGet(() -> {
            try {
                return Warehouse.makePartName(table.partitionKeys(), partition.getValues());
            } catch (MetaException e) {
                return String.join("/", partition.getValues());
            }
        });
    }

    /** Whether {@code recorded} is a key of the table's partitioning whose values are {@code values}. */
    private boolean recordedFits(String recorded, List<String> values) {
        try {
            return table.partitioning().values(recorded).equals(values);
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** The table's partitions in business-key order. */
    private List<Partition> partitions(IMetaStoreClient client) throws TException {
        List<Partition> partitions = new ArrayList<>(client.listPartitions(table.database(), table.name(), (short) -1));
        partitions.sort(Comparator.comparing(this::businessKey));
        return partitions;
    }

    /** The data columns, then the partition columns: the columns a Hive reader of the table gets. */
    private static List<FieldSchema> allColumns(Table current) {
        List<FieldSchema> columns = new ArrayList<>(current.getSd().getCols());
        columns.addAll(current.getPartitionKeys());
        return columns;
    }

    private interface TableRead<T> {
        T read(IMetaStoreClient client, Table current) throws TException;
    }

    /** {@code read} of the table as the metastore holds it now; empty when it does not exist. */
    private <T> Optional<T> readTable(TableRead<T> read) {
        try (IMetaStoreClient client = open()) {
            Optional<Table> current = existing(client);
            return current.isEmpty() ? Optional.empty() : Optional.of(read.read(client, current.get()));
        } catch (TException | UncheckedIOException e) {
            throw new TargetException("cannot read Hive table " + table + ": " + TargetException.oneLine(e), e);
        }
    }

    /**
     * The files Hive reads in a partition directory: it skips names starting with {@code _} or {@code .}. A publish
     * directory holds only the ledger's files, so this is exactly them; listing it is reading what Hive reads.
     */
    private List<URI> dataFiles(String location) {
        Path directory = new Path(location);
        try {
            FileSystem fs = directory.getFileSystem(hadoop);
            List<URI> files = new ArrayList<>();
            for (FileStatus status : fs.listStatus(directory)) {
                String name = status.getPath().getName();
                if (status.isFile() && !name.startsWith("_") && !name.startsWith(".")) {
                    files.add(status.getPath().toUri());
                }
            }
            return files;
        } catch (java.io.FileNotFoundException e) {
            return List.of();
        } catch (IOException e) {
            throw new TargetException("cannot list partition directory " + location + ": " + e.getMessage(), e);
        }
    }

    private long rowCount(List<URI> files) {
        long rows = 0;
        for (URI file : files) {
            try (ParquetFileReader reader = ParquetFiles.open(HadoopInputFile.fromPath(new Path(file), hadoop))) {
                rows += reader.getRecordCount();
            } catch (IOException e) {
                throw new TargetException("cannot read " + file + ": " + e.getMessage(), e);
            }
        }
        return rows;
    }

    /**
     * The staged columns without the key-derived ones, whose values the partition's values hold for Hive's readers
     * (Hive reads Parquet by column name, so the files' copies are not read). Any other staged column with a
     * partition column's name is refused: the two could differ.
     */
    private Schema dataColumns(Schema columns) {
        List<Types.NestedField> kept = new ArrayList<>();
        for (Types.NestedField field : columns.columns()) {
            if (!keyDerived.contains(field.name().toLowerCase(Locale.ROOT))) {
                kept.add(field);
            }
        }
        for (String column : table.partitioning().columns()) {
            if (!keyDerived.contains(column) && columns.caseInsensitiveFindField(column) != null) {
                throw new TargetMismatchException("staged column " + column + " has the name of a Hive partition"
                        + " column of " + table + " (target.hive.partitioning " + table.partitioning().name()
                        .toLowerCase(Locale.ROOT) + "): rename it in the source query");
            }
        }
        return new Schema(kept);
    }

    private Optional<Table> existing(IMetaStoreClient client) throws TException {
        try {
            return Optional.of(client.getTable(table.database(), table.name()));
        } catch (NoSuchObjectException e) {
            return Optional.empty();
        }
    }

    private IMetaStoreClient open() {
        try {
            return metastore.open();
        } catch (TException | RuntimeException e) {
            throw new TargetException("cannot reach the metastore " + spec.hive().metastoreUri() + ": "
                    + TargetException.oneLine(e), e);
        }
    }
}

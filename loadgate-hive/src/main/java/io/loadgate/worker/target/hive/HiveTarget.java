package io.loadgate.worker.target.hive;

import static java.util.Objects.requireNonNull;

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
import io.loadgate.worker.target.Target;
import io.loadgate.worker.target.TargetException;
import io.loadgate.worker.validation.MetricSet;
import io.loadgate.worker.validation.StagedFilesReader;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hive.metastore.IMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.AlreadyExistsException;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.thrift.TException;

/**
 * A Hive table in a Hive Metastore ({@code target.hive}): EXTERNAL, Parquet, partitioned by the business key's
 * {@link io.loadgate.worker.job.HivePartitioning}. A publish points the key's partition at a directory holding
 * exactly the run's data files ({@link PublishDirectory}), fenced as {@link HivePublisher} says; a rollback drops the
 * partition and keeps its files for cleanup; cleanup keeps every file a partition points at.
 */
final class HiveTarget implements Target {
    private final String jobKey;
    private final TargetSpec spec;
    private final HiveTable table;
    private final MetastoreConnector metastore;
    private final Configuration hadoop;

    HiveTarget(String jobKey, TargetSpec spec, MetastoreConnector metastore, Configuration hadoop) {
        this.jobKey = requireNonNull(jobKey, "jobKey is null");
        this.spec = requireNonNull(spec, "spec is null");
        this.table = HiveTable.of(spec.table(), spec.hive().partitioning());
        this.metastore = requireNonNull(metastore, "metastore is null");
        this.hadoop = requireNonNull(hadoop, "hadoop is null");
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
                client.createTable(table.newTable(hiveColumns));
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
        try (IMetaStoreClient client = open()) {
            Optional<Table> found = existing(client);
            if (found.isEmpty()) {
                return List.of();
            }
            Table current = found.get();
            String misfit = table.misfit(current);
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

    @Override
    public ProbeResult probe(String runId, UUID publishToken) {
        try (IMetaStoreClient client = open()) {
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
            try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(new Path(file), hadoop))) {
                rows += reader.getRecordCount();
            } catch (IOException e) {
                throw new TargetException("cannot read " + file + ": " + e.getMessage(), e);
            }
        }
        return rows;
    }

    /** The staged columns without the partition columns, which Hive holds in the partition's values instead. */
    private Schema dataColumns(Schema columns) {
        for (String column : table.partitioning().columns()) {
            if (columns.caseInsensitiveFindField(column) != null) {
                throw new TargetMismatchException("staged column " + column + " has the name of a Hive partition"
                        + " column of " + table + " (target.hive.partitioning " + table.partitioning().name()
                        .toLowerCase(Locale.ROOT) + "): rename it in the source query");
            }
        }
        return columns;
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

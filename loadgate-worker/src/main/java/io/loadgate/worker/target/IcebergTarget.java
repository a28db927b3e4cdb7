package io.loadgate.worker.target;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.job.JobSpecException;
import io.loadgate.worker.job.SchemaPolicy;
import io.loadgate.worker.job.TargetSpec;
import io.loadgate.worker.job.ValidationSpec;
import io.loadgate.worker.publish.IcebergPublisher;
import io.loadgate.worker.publish.PartitionRollback;
import io.loadgate.worker.publish.ProbeResult;
import io.loadgate.worker.publish.PublishOutcome;
import io.loadgate.worker.publish.PublishRequest;
import io.loadgate.worker.publish.StagedFile;
import io.loadgate.worker.publish.TargetCatalog;
import io.loadgate.worker.publish.TargetMismatchException;
import io.loadgate.worker.publish.TargetReader;
import io.loadgate.worker.publish.TargetTable;
import io.loadgate.worker.validation.DataFileInput;
import io.loadgate.worker.validation.MetricCalculator;
import io.loadgate.worker.validation.MetricNames;
import io.loadgate.worker.validation.MetricSet;
import io.loadgate.worker.validation.ParallelMetrics;
import io.loadgate.worker.validation.StagedFilesReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.Expressions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An Iceberg table in the job's catalog (or the worker's default one), partitioned by identity on the business-key
 * column; the publish, probe, read-back and rollback are {@link IcebergPublisher}, {@link TargetReader} and
 * {@link PartitionRollback}. Equal for the same catalog supplier's table, so cleanup reads each table once a pass.
 */
final class IcebergTarget implements Target {
    private static final Logger LOG = LoggerFactory.getLogger(IcebergTarget.class);

    private final String jobKey;
    private final TableIdentifier identifier;
    private final String businessKeyColumn;
    private final SchemaPolicy schemaPolicy;
    private final Supplier<TargetCatalog> catalogs;

    IcebergTarget(String jobKey, TargetSpec spec, Supplier<TargetCatalog> catalogs) {
        this.jobKey = requireNonNull(jobKey, "jobKey is null");
        this.identifier = TableIdentifier.parse(spec.table());
        this.businessKeyColumn = spec.businessKeyColumn();
        this.schemaPolicy = spec.schema();
        this.catalogs = requireNonNull(catalogs, "catalogs is null");
    }

    @Override
    public String table() {
        return identifier.toString();
    }

    @Override
    public boolean setUp(Schema columns) {
        TargetTable target = new TargetTable(identifier, columns, businessKeyColumn);
        TargetCatalog catalog = catalog();
        boolean existed = catalog.catalog().tableExists(identifier);
        catalog.createIfAbsent(target);
        return !existed;
    }

    @Override
    public Optional<Schema> columns() {
        TargetCatalog catalog = catalog();
        try {
            return catalog.catalog().tableExists(identifier) ? Optional.of(catalog.loadTable(identifier).schema())
                    : Optional.empty();
        } catch (RuntimeException e) {
            throw new TargetException("cannot read " + identifier + ": " + TargetException.oneLine(e), e);
        }
    }

    @Override
    public List<String> check(Schema columns) {
        TargetTable target = new TargetTable(identifier, columns, businessKeyColumn);
        try {
            return catalog().check(target, schemaPolicy);
        } catch (TargetMismatchException | JobSpecException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new TargetException("the Iceberg catalog of " + identifier + " failed: " + rootLine(e), e);
        }
    }

    /** Catalog libraries wrap the driver's error, which is the part that says what went wrong. */
    private static String rootLine(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root == e ? e.getMessage() : e.getMessage() + ": " + root.getMessage();
        String text = message == null ? e.getClass().getSimpleName() : message;
        return text.strip().lines().findFirst().orElse(text);
    }

    @Override
    public PublishOutcome publish(Publication publication) {
        PublishRequest request;
        TargetCatalog catalog;
        try {
            catalog = catalog();
            request = new PublishRequest(publication.runId(), jobKey, publication.businessKey(),
                    publication.publishToken(), publication.fence(), tableFor(catalog, publication),
                    publication.files());
            catalog.createIfAbsent(request.target());
        } catch (TargetMismatchException e) {
            return PublishOutcome.failed(PublishOutcome.ErrorCode.TARGET_MISMATCH, e.getMessage());
        } catch (RuntimeException e) {
            // Nothing was committed: the commit is the last thing a publish does.
            return PublishOutcome.failed(PublishOutcome.ErrorCode.NOT_COMMITTED, "publish of run "
                    + publication.runId() + " to " + identifier + " not started: " + e.getMessage());
        }
        return new IcebergPublisher(catalog).publish(request);
    }

    /** The staged files' columns when there are files; else the table's own (an empty key keeps the schema). */
    private TargetTable tableFor(TargetCatalog catalog, Publication publication) {
        Schema schema;
        if (!publication.files().isEmpty()) {
            schema = publication.stagedColumns().get();
        } else if (catalog.catalog().tableExists(identifier)) {
            schema = catalog.loadTable(identifier).schema();
        } else {
            throw new IllegalStateException("the run staged no rows and table " + identifier
                    + " does not exist yet: there is no schema to create it from");
        }
        return new TargetTable(identifier, schema, businessKeyColumn);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Snapshots removed by {@code expire_snapshots} are not seen, so probe well within the table's snapshot
     * retention.
     */
    @Override
    public ProbeResult probe(String runId, UUID publishToken) {
        return new IcebergPublisher(catalog()).probe(identifier, runId, publishToken);
    }

    @Override
    public Supplier<MetricSet> reading(String businessKey, ValidationSpec validation, Supplier<Schema> stagedColumns) {
        TargetCatalog catalog = catalog();
        Table table = catalog.loadTable(identifier);
        TargetTable target = new TargetTable(identifier, table.schema(), businessKeyColumn);
        // The table as it is now, not as the publish left it: while the run is PUBLISHED no other run may write this
        // business key, so anything that differs now was done behind the ledger's back and must fail the run.
        long snapshotId = table.currentSnapshot() == null ? -1 : table.currentSnapshot().snapshotId();
        Supplier<MetricCalculator> calculators = () -> new MetricCalculator(validation, table.schema());
        // One part per scan task, read on a pool: the merged metrics equal those of reading the scan in turn.
        return () -> {
            var parts = new TargetReader(catalog).readBusinessKeyTasks(target, businessKey, snapshotId);
            return ParallelMetrics.measure(parts, calculators, ParallelMetrics.defaultParallelism()).result();
        };
    }

    /**
     * {@inheritDoc}
     *
     * <p>The business key's files in the table now must be exactly {@code ledgerFiles} (location, size, record
     * count, the SHA-256 of the bytes where the ledger has one; no delete files): that is recorded as {@link MetricNames#TARGET_FILES} for the ledger to judge. When they
     * are, the manifests' null counts stand for NULL_COUNT (Iceberg computes them from each file when it is added;
     * a file whose metrics mode keeps none is read instead), their lower and upper bounds for MIN and MAX where those
     * are exact ({@link FileBounds}; otherwise the column is read), and only the columns of the other metrics are read,
     * one task per core. COUNT is the rows those reads yield, or the manifests' record counts when no column needs
     * reading. When the files are not the ledger's, every column is read as {@link #reading(String, ValidationSpec,
     * Supplier)} does, so the other metrics say what differs beside the failing file check.
     */
    @Override
    public Supplier<MetricSet> reading(String businessKey, ValidationSpec validation, Supplier<Schema> stagedColumns,
                                       List<StagedFile> ledgerFiles) {
        TargetCatalog catalog = catalog();
        Table table = catalog.loadTable(identifier);
        TargetTable target = new TargetTable(identifier, table.schema(), businessKeyColumn);
        long snapshotId = table.currentSnapshot() == null ? -1 : table.currentSnapshot().snapshotId();
        String expectedFiles = TargetFiles.describe(ledgerFiles);
        return () -> {
            TargetReader reader = new TargetReader(catalog);
            Map<String, String> values = new HashMap<>();
            var scan = reader.planBusinessKey(table, target, businessKey, snapshotId, validation.referencedColumns());
            // Each file's bytes are hashed as staging validation hashed them: a file changed in place since (same
            // name, size and row count) is not the ledger's, and its manifest entry no longer describes its data.
            Map<String, String> ledgerChecksums = new HashMap<>();
            ledgerFiles.stream().filter(f -> f.checksum() != null)
                    .forEach(f -> ledgerChecksums.put(f.location(), f.checksum()));
            List<StagedFile> files = ParallelMetrics.inParallel(scan.tasks().stream()
                    .<Callable<StagedFile>>map(t -> () -> new StagedFile(t.file().location(), t.file().recordCount(),
                            t.file().fileSizeInBytes(), ledgerChecksums.containsKey(t.file().location())
                            ? sha256(table, t.file().location()) : null)).toList(),
                    ParallelMetrics.defaultParallelism());
            String actualFiles = TargetFiles.describe(files);
            values.put(MetricNames.TARGET_FILES, actualFiles);
            boolean exact = actualFiles.equals(expectedFiles) && scan.tasks().stream().allMatch(t ->
                    t.deletes().isEmpty() && t.residual().equals(Expressions.alwaysTrue()));
            if (!exact) {
                LOG.warn("table {} holds for {} other files than the ledger's ({} against {}): reading every column",
                        identifier, businessKey, actualFiles, expectedFiles);
                values.putAll(reading(businessKey, validation, stagedColumns).get().values());
                return new MetricSet(values);
            }
            List<String> nullsFromData = new ArrayList<>();
            for (String column : validation.nullCount()) {
                int id = table.schema().caseInsensitiveFindField(column).fieldId();
                long nulls = 0;
                for (var task : scan.tasks()) {
                    Long n = task.file().nullValueCounts() == null ? null : task.file().nullValueCounts().get(id);
                    if (n == null) {
                        nullsFromData.add(column);
                        break;
                    }
                    nulls += n;
                }
                if (!nullsFromData.contains(column)) {
                    values.put(MetricNames.nullCount(column), Long.toString(nulls));
                }
            }
            List<DataFile> dataFiles = scan.tasks().stream().map(t -> t.file()).toList();
            List<String> minsFromData = new ArrayList<>();
            for (String column : validation.min()) {
                FileBounds.min(dataFiles, table.schema().caseInsensitiveFindField(column)).ifPresentOrElse(
                        min -> values.put(MetricNames.min(column), min), () -> minsFromData.add(column));
            }
            List<String> maxsFromData = new ArrayList<>();
            for (String column : validation.max()) {
                FileBounds.max(dataFiles, table.schema().caseInsensitiveFindField(column)).ifPresentOrElse(
                        max -> values.put(MetricNames.max(column), max), () -> maxsFromData.add(column));
            }
            ValidationSpec fromData = new ValidationSpec(validation.sum(), minsFromData, maxsFromData,
                    nullsFromData, validation.primaryKey());
            if (fromData.referencedColumns().isEmpty()) {
                values.put(MetricNames.COUNT, Long.toString(files.stream().mapToLong(StagedFile::recordCount).sum()));
                return new MetricSet(values);
            }
            var read = scan.select(fromData.referencedColumns());
            values.putAll(measure(table, read, fromData).result().values());
            return new MetricSet(values);
        };
    }

    /**
     * The data's metrics over the business key's files, which are the ledger's, without deletes or residual filters:
     * column by column as staging validation reads (each file whole, through the table's FileIO), unless a metric
     * reads a column of the partition spec, whose values Iceberg's readers take from the partition rather than the
     * file; then as the scan reads them, record by record.
     */
    private static MetricCalculator measure(Table table, TargetReader.KeyScan read, ValidationSpec fromData) {
        int parallelism = ParallelMetrics.defaultParallelism();
        Set<Integer> partitionSources = new HashSet<>();
        table.specs().values().forEach(spec -> spec.fields().forEach(f -> partitionSources.add(f.sourceId())));
        boolean readsPartitionColumn = fromData.referencedColumns().stream()
                .anyMatch(c -> partitionSources.contains(read.schema().caseInsensitiveFindField(c).fieldId()));
        if (readsPartitionColumn) {
            return ParallelMetrics.measure(read.parts(), () -> new MetricCalculator(fromData, read.schema()),
                    parallelism);
        }
        List<DataFileInput> files = read.tasks().stream()
                .map(task -> DataFileInput.of(table.io().newInputFile(task.file()))).toList();
        return StagedFilesReader.measureFiles(read.schema(), files, fromData, parallelism);
    }

    private static String sha256(Table table, String location) {
        try (InputStream in = table.io().newInputFile(location).newStream()) {
            return StagedFilesReader.sha256(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + location + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Optional<PendingRollback> rollback(String businessKey) {
        PartitionRollback rollback = new PartitionRollback(catalog());
        Optional<PartitionRollback.Contents> found;
        try {
            found = rollback.contents(identifier, businessKeyColumn, businessKey);
        } catch (IllegalArgumentException e) {
            throw new TargetMismatchException(e.getMessage());
        }
        return found.map(contents -> new PendingRollback() {
            @Override
            public long rows() {
                return contents.rows();
            }

            @Override
            public String describe() {
                return contents.files().size() + " data file(s), " + String.format("%,d", contents.rows())
                        + " rows of business key " + businessKey + " from " + identifier;
            }

            @Override
            public RolledBack commit(String runId, String reason) {
                UUID rollbackId = UUID.randomUUID();
                try {
                    long snapshotId = rollback.commit(contents, new PartitionRollback.Request(jobKey, runId, reason),
                            rollbackId);
                    return new RolledBack(String.valueOf(snapshotId), "snapshot " + snapshotId);
                } catch (ValidationException e) {
                    throw new TargetException("the partition changed while rolling back (did a run publish?);"
                            + " nothing removed: " + TargetException.oneLine(e), e);
                } catch (CommitStateUnknownException e) {
                    throw new TargetException("the rollback commit's outcome is unknown: look for the snapshot whose"
                            + " summary has " + PartitionRollback.ROLLBACK_ID_PROPERTY + "=" + rollbackId + " in "
                            + identifier + " before anything else; nothing recorded in the ledger", e);
                }
            }
        });
    }

    @Override
    public Optional<Set<String>> referencedFiles() {
        TargetCatalog catalog;
        try {
            catalog = catalog();
        } catch (RuntimeException e) {
            throw new TargetException("cannot open the catalog of " + identifier + ": " + TargetException.oneLine(e), e);
        }
        try {
            if (!catalog.catalog().tableExists(identifier)) {
                LOG.info("table {} does not exist: it references no staged file", identifier);
                return Optional.empty();
            }
            return Optional.of(new HashSet<>(new TargetReader(catalog).referencedDataFiles(identifier)));
        } catch (NoSuchTableException e) {
            LOG.info("table {} was dropped meanwhile: it references no staged file", identifier);
            return Optional.empty();
        } catch (RuntimeException e) {
            throw new TargetException("cannot read what " + identifier + " references: " + TargetException.oneLine(e), e);
        }
    }

    @Override
    public int expireHistory(SnapshotExpiry expiry) {
        TargetCatalog catalog = catalog();
        if (!catalog.catalog().tableExists(identifier)) {
            return 0;
        }
        return expiry.expire(catalog.loadTable(identifier));
    }

    /**
     * Rows per business key from the data files' own counts, which are exact while no file has deletes (Loadgate's
     * publishes replace whole partitions and write none); otherwise, or when a file is not partitioned by the key,
     * by reading the key column of every row.
     */
    @Override
    public Optional<TableOverview> overview() {
        return readTable(table -> {
            List<TableOverview.Column> columns = table.schema().columns().stream()
                    .map(c -> new TableOverview.Column(c.name(), c.type().toString())).toList();
            return new TableOverview(identifier.toString(), businessKeyColumn, columns, rowsByKey(table));
        });
    }

    private java.util.List<TableOverview.Partition> rowsByKey(Table table) throws java.io.IOException {
        org.apache.iceberg.types.Types.NestedField key = table.schema().findField(businessKeyColumn);
        java.util.Map<String, Long> rows = new java.util.TreeMap<>();
        boolean fromFiles = true;
        try (org.apache.iceberg.io.CloseableIterable<org.apache.iceberg.FileScanTask> tasks = table.newScan()
                .planFiles()) {
            for (org.apache.iceberg.FileScanTask task : tasks) {
                org.apache.iceberg.PartitionSpec spec = table.specs().get(task.file().specId());
                int position = identityPosition(spec, key.fieldId());
                if (!task.deletes().isEmpty() || position < 0) {
                    fromFiles = false;
                    break;
                }
                Object value = task.file().partition().get(position, Object.class);
                String text = org.apache.iceberg.transforms.Transforms.<Object>identity().toHumanString(key.type(),
                        value);
                rows.merge(text, task.file().recordCount(), Long::sum);
            }
        }
        if (!fromFiles) {
            rows.clear();
            try (org.apache.iceberg.io.CloseableIterable<org.apache.iceberg.data.Record> records =
                         org.apache.iceberg.data.IcebergGenerics.read(table).select(businessKeyColumn).build()) {
                for (org.apache.iceberg.data.Record record : records) {
                    rows.merge(String.valueOf(record.getField(businessKeyColumn)), 1L, Long::sum);
                }
            }
        }
        return rows.entrySet().stream().map(e -> new TableOverview.Partition(e.getKey(), e.getValue())).toList();
    }

    private static int identityPosition(org.apache.iceberg.PartitionSpec spec, int sourceId) {
        for (int i = 0; i < spec.fields().size(); i++) {
            if (spec.fields().get(i).sourceId() == sourceId && spec.fields().get(i).transform().isIdentity()) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public List<java.util.Map<String, String>> sample(Optional<String> businessKey, int limit) {
        return readTable(table -> {
            var read = org.apache.iceberg.data.IcebergGenerics.read(table);
            if (businessKey.isPresent()) {
                read = read.where(new TargetTable(identifier, table.schema(), businessKeyColumn)
                        .businessKeyFilter(businessKey.get()));
            }
            List<java.util.Map<String, String>> rows = new java.util.ArrayList<>();
            try (org.apache.iceberg.io.CloseableIterable<org.apache.iceberg.data.Record> records = read.build()) {
                for (org.apache.iceberg.data.Record record : records) {
                    if (rows.size() >= limit) {
                        break;
                    }
                    java.util.Map<String, String> row = new java.util.LinkedHashMap<>();
                    table.schema().columns().forEach(c -> {
                        Object value = record.getField(c.name());
                        row.put(c.name(), value == null ? null : value.toString());
                    });
                    rows.add(row);
                }
            }
            return rows;
        }).orElse(List.of());
    }

    @Override
    public List<TableSnapshot> snapshots() {
        return readTable(table -> {
            List<TableSnapshot> all = new java.util.ArrayList<>();
            table.snapshots().forEach(snapshot -> all.add(snapshot(snapshot, snapshot.timestampMillis())));
            return all;
        }).orElse(List.of());
    }

    @Override
    public List<TableSnapshot> history() {
        // The log may name a snapshot since expired: only retained states are shown.
        return readTable(table -> table.history().stream()
                .filter(entry -> table.snapshot(entry.snapshotId()) != null)
                .map(entry -> snapshot(table.snapshot(entry.snapshotId()), entry.timestampMillis()))
                .toList()).orElse(List.of());
    }

    private static TableSnapshot snapshot(org.apache.iceberg.Snapshot snapshot, long atMillis) {
        java.util.Map<String, String> summary = snapshot.summary();
        return new TableSnapshot(Long.toString(snapshot.snapshotId()), java.time.Instant.ofEpochMilli(atMillis),
                snapshot.operation() == null ? "unknown" : snapshot.operation(),
                summary.get(IcebergPublisher.RUN_ID_PROPERTY), summary.get(IcebergPublisher.PUBLISH_TOKEN_PROPERTY),
                summary.get(IcebergPublisher.BUSINESS_KEY_PROPERTY),
                Long.parseLong(summary.getOrDefault("added-records", "0")));
    }

    private interface TableRead<T> {
        T read(Table table) throws java.io.IOException;
    }

    /** {@code read} of the table as it is now; empty when it does not exist. */
    private <T> Optional<T> readTable(TableRead<T> read) {
        TargetCatalog catalog = catalog();
        try {
            if (!catalog.catalog().tableExists(identifier)) {
                return Optional.empty();
            }
            return Optional.of(read.read(catalog.loadTable(identifier)));
        } catch (java.io.IOException | RuntimeException e) {
            if (e instanceof JobSpecException || e instanceof TargetException) {
                throw (RuntimeException) e;
            }
            throw new TargetException("cannot read " + identifier + ": " + TargetException.oneLine(e), e);
        }
    }

    /** The catalog, opened on first use; a catalog the job's spec cannot open is the job's mistake. */
    private TargetCatalog catalog() {
        try {
            return catalogs.get();
        } catch (JobSpecException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            throw new JobSpecException(e.getMessage(), e);
        }
    }
}

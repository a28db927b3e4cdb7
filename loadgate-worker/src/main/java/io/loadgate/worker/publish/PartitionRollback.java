package io.loadgate.worker.publish;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFiles;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.io.CloseableIterable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes one business key's partition from a target table in one commit: every data file of the partition, as
 * listed beforehand, deleted together, with the rollback's identity in the snapshot summary. The files stay where
 * they are (older snapshots still reference them) until snapshot expiry and cleanup remove them.
 */
public final class PartitionRollback {
    public static final String ROLLBACK_PROPERTY = "loadgate.rollback";
    public static final String REASON_PROPERTY = "loadgate.reason";
    /** Unique per rollback: finds the snapshot after the commit, and after an unknown outcome by hand. */
    public static final String ROLLBACK_ID_PROPERTY = "loadgate.rollback-id";
    public static final String ROLLED_BACK_RUN_PROPERTY = "loadgate.rolled-back-run-id";

    private static final Logger log = LoggerFactory.getLogger(PartitionRollback.class);

    private final TargetCatalog tables;

    public PartitionRollback(TargetCatalog tables) {
        this.tables = requireNonNull(tables, "tables is null");
    }

    /** What one business key's partition holds in the table's current snapshot. */
    public record Contents(TargetTable target, String businessKey, List<DataFile> files) {
        public Contents {
            requireNonNull(target, "target is null");
            requireNonNull(businessKey, "businessKey is null");
            files = List.copyOf(files);
        }

        public long rows() {
            return files.stream().mapToLong(DataFile::recordCount).sum();
        }

        public boolean isEmpty() {
            return files.isEmpty();
        }
    }

    /** Who rolls back which run's rows, and why; all of it goes into the snapshot summary. */
    public record Request(String jobKey, String runId, String reason) {
        public Request {
            requireNonNull(jobKey, "jobKey is null");
            requireNonNull(runId, "runId is null");
            requireNonNull(reason, "reason is null");
        }
    }

    /**
     * The partition's files now, or empty when the table does not exist. Throws {@link TargetMismatchException}
     * when the table is not partitioned by identity on {@code businessKeyColumn}: then a business key is not one
     * partition and removing it file by file would be wrong.
     */
    public Optional<Contents> contents(TableIdentifier identifier, String businessKeyColumn, String businessKey) {
        requireNonNull(identifier, "identifier is null");
        requireNonNull(businessKeyColumn, "businessKeyColumn is null");
        requireNonNull(businessKey, "businessKey is null");
        Table table;
        try {
            table = tables.loadTable(identifier);
        } catch (NoSuchTableException e) {
            return Optional.empty();
        }
        TargetTable target = new TargetTable(identifier, table.schema(), businessKeyColumn);
        target.checkMatches(table.schema(), table.spec());
        List<DataFile> files = new ArrayList<>();
        if (table.currentSnapshot() != null) {
            // Identity partitioning makes the partition filter exact: the scan keeps exactly the key's files.
            try (CloseableIterable<FileScanTask> tasks = table.newScan()
                    .filter(target.businessKeyFilter(businessKey)).planFiles()) {
                tasks.forEach(task -> files.add(task.file().copy()));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot list the files of " + identifier, e);
            }
        }
        return Optional.of(new Contents(target, businessKey, files));
    }

    /**
     * Deletes exactly {@code contents.files()} in one commit and returns the new snapshot's id. The commit
     * validates that every file is still in the table, so a publish that replaced the partition after
     * {@link #contents} fails it with a {@code ValidationException} and nothing is removed. A
     * {@link CommitStateUnknownException} means the commit may have landed: look for {@code rollbackId} in the
     * table's snapshot summaries before anything else.
     */
    public long commit(Contents contents, Request request, UUID rollbackId) {
        requireNonNull(contents, "contents is null");
        requireNonNull(request, "request is null");
        requireNonNull(rollbackId, "rollbackId is null");
        if (contents.isEmpty()) {
            throw new IllegalArgumentException("business key " + contents.businessKey() + " has no files in "
                    + contents.target().identifier() + "; there is nothing to commit");
        }
        TableIdentifier identifier = contents.target().identifier();
        Table loaded = tables.loadTable(identifier);
        if (!(loaded instanceof HasTableOperations withOperations)) {
            throw new IllegalStateException("table " + identifier + " is a " + loaded.getClass().getName()
                    + ", whose commits cannot be verified");
        }
        // The publisher's commit verification: a refusal that actually landed is reported as the success it is.
        Table table = new BaseTable(new CommitVerifyingOperations(withOperations.operations()), loaded.name());
        DeleteFiles delete = table.newDelete()
                .scanManifestsWith(SameThreadExecutor.INSTANCE)
                .writeManifestsWith(SameThreadExecutor.INSTANCE, 1)
                .validateFilesExist()
                .set(ROLLBACK_PROPERTY, "true")
                .set(ROLLBACK_ID_PROPERTY, rollbackId.toString())
                .set(ROLLED_BACK_RUN_PROPERTY, request.runId())
                .set(IcebergPublisher.JOB_KEY_PROPERTY, request.jobKey())
                .set(IcebergPublisher.BUSINESS_KEY_PROPERTY, contents.businessKey())
                .set(REASON_PROPERTY, request.reason());
        contents.files().forEach(delete::deleteFile);
        delete.commit();
        Snapshot committed = find(table, rollbackId).orElseThrow(() -> new CommitStateUnknownException(
                new IllegalStateException("the rollback commit returned but no snapshot of " + identifier
                        + " carries " + ROLLBACK_ID_PROPERTY + "=" + rollbackId)));
        log.info("rolled back business key {} of {}: {} files, snapshot {}", contents.businessKey(), identifier,
                contents.files().size(), committed.snapshotId());
        return committed.snapshotId();
    }

    private static Optional<Snapshot> find(Table table, UUID rollbackId) {
        String id = rollbackId.toString();
        for (Snapshot snapshot : table.snapshots()) {
            if (id.equals(snapshot.summary().get(ROLLBACK_ID_PROPERTY))) {
                return Optional.of(snapshot);
            }
        }
        return Optional.empty();
    }
}

package io.loadgate.worker.publish;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.iceberg.CombinedScanTask;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.DeleteFilter;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.formats.ReadBuilder;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.PartitionUtil;

/** Reads what a publish put into a target table: its rows for validation, its files for cleanup. */
public final class TargetReader {
    private final TargetCatalog tables;

    public TargetReader(TargetCatalog tables) {
        this.tables = requireNonNull(tables, "tables is null");
    }

    /**
     * The rows of one business key as snapshot {@code snapshotId} (a run's targetRef) holds them. Reading the
     * run's own snapshot, not the current one, keeps target validation about this run even when a later run of
     * the same business key has replaced the partition since. The caller closes the iterable.
     */
    public CloseableIterable<Record> readBusinessKey(TargetTable target, String businessKey, long snapshotId) {
        requireNonNull(businessKey, "businessKey is null");
        Table table = tableAt(target, snapshotId);
        return IcebergGenerics.read(table)
                .useSnapshot(snapshotId)
                .where(target.businessKeyFilter(businessKey))
                .build();
    }

    /**
     * The same rows as {@link #readBusinessKey}, as one part per scan task that the scan would read in turn, each
     * opened when its supplier is called: independent, so they can be read on several threads. Each part is read
     * as Iceberg's generic reader reads a task (delete files applied, the residual filter evaluated per row).
     */
    public List<Supplier<CloseableIterable<Record>>> readBusinessKeyTasks(TargetTable target, String businessKey,
                                                                         long snapshotId) {
        requireNonNull(businessKey, "businessKey is null");
        Table table = tableAt(target, snapshotId);
        // As IcebergGenerics.read(table).useSnapshot(id).where(filter) scans: all columns, case-sensitive.
        TableScan scan = table.newScan().useSnapshot(snapshotId).filter(target.businessKeyFilter(businessKey));
        List<Supplier<CloseableIterable<Record>>> parts = new ArrayList<>();
        try (CloseableIterable<CombinedScanTask> combined = scan.planTasks()) {
            for (CombinedScanTask group : combined) {
                for (FileScanTask task : group.files()) {
                    parts.add(() -> open(table, scan, task));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot plan the scan of " + target.identifier() + ": " + e.getMessage(), e);
        }
        return List.copyOf(parts);
    }

    /**
     * The business key's scan at {@code snapshotId}, planned once, projected to {@code columns} (case-insensitive):
     * its tasks, whose files carry the manifests' record counts and column statistics (value and null counts, lower
     * and upper bounds), and one part per task to read. {@code table} is the target's table as the caller loaded it,
     * holding {@code snapshotId}: loading it again would only read the catalog and the metadata file again.
     * The parts' records have {@link KeyScan#schema}'s layout only for tasks without delete files; a caller that
     * reads a task with deletes uses {@link #readBusinessKeyTasks} instead.
     */
    public KeyScan planBusinessKey(Table table, TargetTable target, String businessKey, long snapshotId,
                                   List<String> columns) {
        requireNonNull(businessKey, "businessKey is null");
        requireSnapshot(table, target, snapshotId);
        // A scan drops the manifests' column statistics from its tasks' files unless asked to keep them.
        TableScan scan = table.newScan().useSnapshot(snapshotId).caseSensitive(false)
                .filter(target.businessKeyFilter(businessKey)).includeColumnStats();
        List<FileScanTask> tasks = new ArrayList<>();
        try (CloseableIterable<FileScanTask> planned = scan.planFiles()) {
            planned.forEach(tasks::add);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot plan the scan of " + target.identifier() + ": " + e.getMessage(), e);
        }
        return new KeyScan(table, scan, tasks).select(columns);
    }

    /** A planned scan of one business key; see {@link #planBusinessKey}. */
    public static final class KeyScan {
        private final Table table;
        private final TableScan scan;
        private final List<FileScanTask> tasks;

        private KeyScan(Table table, TableScan scan, List<FileScanTask> tasks) {
            this.table = table;
            this.scan = scan;
            this.tasks = List.copyOf(tasks);
        }

        /**
         * The same tasks read as {@code columns} (case-insensitive): a projection does not change which files and
         * rows the scan's snapshot and filter select, so nothing is planned again.
         */
        public KeyScan select(List<String> columns) {
            return new KeyScan(table, scan.select(columns), tasks);
        }

        /** The projection the parts read: the selected columns, and the filter's. */
        public Schema schema() {
            return scan.schema();
        }

        public List<FileScanTask> tasks() {
            return tasks;
        }

        /** One part per task, each opened when its supplier is called. */
        public List<Supplier<CloseableIterable<Record>>> parts() {
            return tasks.stream().<Supplier<CloseableIterable<Record>>>map(task -> () -> open(table, scan, task))
                    .toList();
        }
    }

    /** The target's table, which must still have snapshot {@code snapshotId}. */
    private Table tableAt(TargetTable target, long snapshotId) {
        requireNonNull(target, "target is null");
        Table table = tables.loadTable(target.identifier());
        requireSnapshot(table, target, snapshotId);
        return table;
    }

    private static void requireSnapshot(Table table, TargetTable target, long snapshotId) {
        if (table.snapshot(snapshotId) == null) {
            throw new IllegalArgumentException("table " + target.identifier() + " has no snapshot " + snapshotId
                    + " (never committed, or expired)");
        }
    }

    /** One task's rows, as Iceberg's (package-private) GenericReader opens a FileScanTask. */
    private static CloseableIterable<Record> open(Table table, TableScan scan, FileScanTask task) {
        DeleteFilter<Record> deletes = new GenericDeleteFilter(table.io(), task, table.schema(), scan.schema());
        Schema readSchema = deletes.requiredSchema();
        Map<Integer, ?> constants = PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant);
        ReadBuilder<Record, Object> builder = FormatModelRegistry.readBuilder(task.file().format(), Record.class,
                table.io().newInputFile(task.file()));
        CloseableIterable<Record> records = builder
                .project(readSchema)
                .idToConstant(constants)
                .split(task.start(), task.length())
                .caseSensitive(scan.isCaseSensitive())
                .filter(task.residual())
                .build();
        records = deletes.filter(records);
        Expression residual = task.residual();
        if (residual != null && residual != Expressions.alwaysTrue()) {
            InternalRecordWrapper wrapper = new InternalRecordWrapper(readSchema.asStruct());
            Evaluator filter = new Evaluator(readSchema.asStruct(), residual, scan.isCaseSensitive());
            records = CloseableIterable.filter(records, record -> filter.eval(wrapper.wrap(record)));
        }
        return records;
    }

    /**
     * The locations, verbatim, of every data file that any retained snapshot of the table references — the
     * current one and those still reachable by time travel. Cleanup must not delete any of them; a file that a
     * later publish replaced leaves this set when {@code expire_snapshots} drops the last snapshot holding it
     * (and Iceberg then deletes it itself).
     */
    public Set<String> referencedDataFiles(TableIdentifier identifier) {
        requireNonNull(identifier, "identifier is null");
        Table table = tables.loadTable(identifier);
        // Snapshots share most manifests; read each manifest once.
        Map<String, ManifestFile> manifests = new HashMap<>();
        for (Snapshot snapshot : table.snapshots()) {
            for (ManifestFile manifest : snapshot.dataManifests(table.io())) {
                manifests.putIfAbsent(manifest.path(), manifest);
            }
        }
        Set<String> locations = new HashSet<>();
        for (ManifestFile manifest : manifests.values()) {
            try (ManifestReader<DataFile> reader = ManifestFiles.read(manifest, table.io(), table.specs())) {
                for (DataFile file : reader) {
                    locations.add(file.location());
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read manifest " + manifest.path() + " of " + identifier, e);
            }
        }
        return Set.copyOf(locations);
    }
}

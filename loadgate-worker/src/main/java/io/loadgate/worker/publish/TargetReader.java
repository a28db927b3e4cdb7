package io.loadgate.worker.publish;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

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
        requireNonNull(target, "target is null");
        requireNonNull(businessKey, "businessKey is null");
        Table table = tables.loadTable(target.identifier());
        if (table.snapshot(snapshotId) == null) {
            throw new IllegalArgumentException("table " + target.identifier() + " has no snapshot " + snapshotId
                    + " (never committed, or expired)");
        }
        return IcebergGenerics.read(table)
                .useSnapshot(snapshotId)
                .where(target.businessKeyFilter(businessKey))
                .build();
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

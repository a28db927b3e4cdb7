package io.loadgate.worker.publish;

import static java.util.Objects.requireNonNull;

import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Table operations that do not trust a {@link CommitFailedException}: before letting one through, they reload
 * the table and check that none of the commit's new snapshots is in it.
 *
 * <p>Why: the JDBC catalog's connection pool re-runs a statement on a fresh connection when the first one
 * fails with a connection error (SQL state 08xxx). If the first {@code UPDATE ... WHERE metadata_location =
 * <old>} had already committed when its connection broke, the re-run matches no row and the catalog reports
 * {@code CommitFailedException} for a commit that landed. Iceberg would then retry on top of our own snapshot
 * and, worse, treat the failure as cleanable and delete the manifests the landed snapshot references. So a
 * refused commit whose snapshot is in the table is reported as success (which it is), and a check that cannot
 * be made is reported as {@link CommitStateUnknownException} (which Iceberg neither retries nor cleans up).
 *
 * <p>An optional check runs on every attempt right before the catalog's compare-and-set, against the metadata the
 * compare-and-set requires to be current: what it accepts is what the commit lands on, however many times Iceberg
 * retries it. The publish fence is such a check.
 */
final class CommitVerifyingOperations implements TableOperations {
    private static final Logger log = LoggerFactory.getLogger(CommitVerifyingOperations.class);

    private final TableOperations delegate;
    private final Consumer<TableMetadata> beforeCommit;

    CommitVerifyingOperations(TableOperations delegate) {
        this(delegate, base -> { });
    }

    /** {@code beforeCommit} throws to refuse an attempt; nothing is sent to the catalog then. */
    CommitVerifyingOperations(TableOperations delegate, Consumer<TableMetadata> beforeCommit) {
        this.delegate = requireNonNull(delegate, "delegate is null");
        this.beforeCommit = requireNonNull(beforeCommit, "beforeCommit is null");
    }

    @Override
    public void commit(TableMetadata base, TableMetadata metadata) {
        beforeCommit.accept(base);
        try {
            delegate.commit(base, metadata);
        } catch (CommitFailedException refused) {
            Set<Long> newSnapshots = newSnapshotIds(base, metadata);
            TableMetadata now;
            try {
                now = delegate.refresh();
            } catch (RuntimeException e) {
                e.addSuppressed(refused);
                throw new CommitStateUnknownException(
                        "the catalog refused the commit and the table could not be reloaded to check it", e);
            }
            if (now != null && newSnapshots.stream().anyMatch(id -> now.snapshot(id) != null)) {
                log.warn("the catalog refused a commit whose snapshot {} is in the table: it landed ({})",
                        newSnapshots, refused.toString());
                return;
            }
            throw refused;
        }
    }

    @Override
    public TableMetadata current() {
        return delegate.current();
    }

    @Override
    public TableMetadata refresh() {
        return delegate.refresh();
    }

    @Override
    public FileIO io() {
        return delegate.io();
    }

    @Override
    public EncryptionManager encryption() {
        return delegate.encryption();
    }

    @Override
    public String metadataFileLocation(String fileName) {
        return delegate.metadataFileLocation(fileName);
    }

    @Override
    public LocationProvider locationProvider() {
        return delegate.locationProvider();
    }

    @Override
    public TableOperations temp(TableMetadata uncommittedMetadata) {
        return delegate.temp(uncommittedMetadata);
    }

    @Override
    public long newSnapshotId() {
        return delegate.newSnapshotId();
    }

    @Override
    public boolean requireStrictCleanup() {
        return delegate.requireStrictCleanup();
    }

    private static Set<Long> newSnapshotIds(TableMetadata base, TableMetadata metadata) {
        return metadata.snapshots().stream()
                .map(Snapshot::snapshotId)
                .filter(id -> base == null || base.snapshot(id) == null)
                .collect(Collectors.toSet());
    }
}

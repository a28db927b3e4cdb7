package io.loadgate.worker.publish;

import static java.util.Objects.requireNonNull;

import java.sql.SQLException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.LocationProvider;
import org.apache.iceberg.jdbc.UncheckedSQLException;

/**
 * A catalog whose tables fail their commits on demand, around the real commit: the Publisher's seam to the
 * outside world, where lost connections and lying catalogs happen.
 */
public final class FaultInjectingCatalog implements Catalog {
    public enum Fault {
        /** The commit lands, then Iceberg's "state unknown" is raised. */
        LAND_THEN_STATE_UNKNOWN,
        /** The commit lands, then the connection is reported lost (what the JDBC catalog raises). */
        LAND_THEN_CONNECTION_LOST,
        /** The commit lands, then a conflict is reported (the JDBC pool's re-run of a landed UPDATE). */
        LAND_THEN_CONFLICT,
        /** The catalog refuses the commit without applying it. */
        REFUSE,
        /** The connection is lost before the update reaches the catalog. */
        CONNECTION_LOST_BEFORE_LANDING
    }

    private final Catalog delegate;
    private volatile Fault fault;
    private final AtomicReference<Runnable> beforeNextCommit = new AtomicReference<>();
    private final AtomicInteger commitCalls = new AtomicInteger();
    private final AtomicInteger landedCommits = new AtomicInteger();
    private final Set<String> writingThreads = ConcurrentHashMap.newKeySet();

    public FaultInjectingCatalog(Catalog delegate) {
        this.delegate = requireNonNull(delegate, "delegate is null");
    }

    /** Every commit from now on fails this way; null turns faults off. */
    public void failCommits(Fault newFault) {
        this.fault = newFault;
    }

    /** Runs {@code action} once, at the start of the next commit, before anything reaches the catalog. */
    public void beforeNextCommit(Runnable action) {
        beforeNextCommit.set(requireNonNull(action, "action is null"));
    }

    public int commitCalls() {
        return commitCalls.get();
    }

    public int landedCommits() {
        return landedCommits.get();
    }

    /** The names of the threads that created a file (a manifest, a manifest list, metadata) through a table's IO. */
    public Set<String> writingThreads() {
        return Set.copyOf(writingThreads);
    }

    @Override
    public Table loadTable(TableIdentifier identifier) {
        Table table = delegate.loadTable(identifier);
        return new BaseTable(new FaultyOperations(((HasTableOperations) table).operations()), table.name());
    }

    @Override
    public boolean tableExists(TableIdentifier identifier) {
        return delegate.tableExists(identifier);
    }

    @Override
    public TableBuilder buildTable(TableIdentifier identifier, Schema schema) {
        return delegate.buildTable(identifier, schema);
    }

    @Override
    public List<TableIdentifier> listTables(Namespace namespace) {
        return delegate.listTables(namespace);
    }

    @Override
    public boolean dropTable(TableIdentifier identifier, boolean purge) {
        return delegate.dropTable(identifier, purge);
    }

    @Override
    public void renameTable(TableIdentifier from, TableIdentifier to) {
        delegate.renameTable(from, to);
    }

    @Override
    public String name() {
        return "faulty-" + delegate.name();
    }

    private static UncheckedSQLException connectionLost() {
        return new UncheckedSQLException(new SQLException("An I/O error occurred while sending to the backend.",
                "08006"), "Database Connection failed");
    }

    private final class FaultyOperations implements TableOperations {
        private final TableOperations ops;

        FaultyOperations(TableOperations ops) {
            this.ops = ops;
        }

        @Override
        public void commit(TableMetadata base, TableMetadata metadata) {
            commitCalls.incrementAndGet();
            Runnable action = beforeNextCommit.getAndSet(null);
            if (action != null) {
                action.run();
            }
            Fault current = fault;
            if (current == null) {
                land(base, metadata);
                return;
            }
            switch (current) {
                case REFUSE -> throw new CommitFailedException("injected: metadata location changed");
                case CONNECTION_LOST_BEFORE_LANDING -> throw connectionLost();
                case LAND_THEN_STATE_UNKNOWN -> {
                    land(base, metadata);
                    throw new CommitStateUnknownException(new RuntimeException("injected: reply lost after commit"));
                }
                case LAND_THEN_CONNECTION_LOST -> {
                    land(base, metadata);
                    throw connectionLost();
                }
                case LAND_THEN_CONFLICT -> {
                    land(base, metadata);
                    throw new CommitFailedException("injected: 0 rows updated when the UPDATE was re-run");
                }
            }
        }

        private void land(TableMetadata base, TableMetadata metadata) {
            ops.commit(base, metadata);
            landedCommits.incrementAndGet();
        }

        @Override
        public TableMetadata current() {
            return ops.current();
        }

        @Override
        public TableMetadata refresh() {
            return ops.refresh();
        }

        @Override
        public FileIO io() {
            FileIO io = ops.io();
            return new FileIO() {
                @Override
                public InputFile newInputFile(String path) {
                    return io.newInputFile(path);
                }

                @Override
                public InputFile newInputFile(String path, long length) {
                    return io.newInputFile(path, length);
                }

                @Override
                public OutputFile newOutputFile(String path) {
                    writingThreads.add(Thread.currentThread().getName());
                    return io.newOutputFile(path);
                }

                @Override
                public void deleteFile(String path) {
                    io.deleteFile(path);
                }
            };
        }

        @Override
        public EncryptionManager encryption() {
            return ops.encryption();
        }

        @Override
        public String metadataFileLocation(String fileName) {
            return ops.metadataFileLocation(fileName);
        }

        @Override
        public LocationProvider locationProvider() {
            return ops.locationProvider();
        }

        @Override
        public TableOperations temp(TableMetadata uncommittedMetadata) {
            // A transaction writes its files through these and commits through this one: wrapped, its writers are
            // seen too.
            return new FaultyOperations(ops.temp(uncommittedMetadata));
        }

        @Override
        public long newSnapshotId() {
            return ops.newSnapshotId();
        }
    }
}

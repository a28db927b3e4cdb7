package io.loadgate.worker.target;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.job.TargetSpec;
import io.loadgate.worker.job.ValidationSpec;
import io.loadgate.worker.publish.ProbeResult;
import io.loadgate.worker.publish.PublishOutcome;
import io.loadgate.worker.publish.PublishRequest;
import io.loadgate.worker.publish.TargetMismatchException;
import io.loadgate.worker.publish.TargetTable;
import io.loadgate.worker.validation.MetricSet;
import io.loadgate.worker.warehouse.WarehouseConnector;
import io.loadgate.worker.warehouse.WarehousePublisher;
import io.loadgate.worker.warehouse.WarehouseReader;
import io.loadgate.worker.warehouse.WarehouseRollback;
import io.loadgate.worker.warehouse.WarehouseTable;
import io.loadgate.worker.warehouse.WarehouseTableReader;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * A table of a relational warehouse ({@code target.database}); the publish, probe, read-back and rollback are
 * {@link WarehousePublisher}, {@link WarehouseReader} and {@link WarehouseRollback}. Its columns are the staged
 * files' (the database's own types need not tell, e.g. a UTC datetime holding a timestamp with zone).
 */
final class WarehouseTarget implements Target {
    private final String jobKey;
    private final TargetSpec spec;
    private final Map<String, String> environment;
    private final Configuration hadoop;

    WarehouseTarget(String jobKey, TargetSpec spec, Map<String, String> environment, Configuration hadoop) {
        this.jobKey = requireNonNull(jobKey, "jobKey is null");
        this.spec = requireNonNull(spec, "spec is null");
        this.environment = requireNonNull(environment, "environment is null");
        this.hadoop = requireNonNull(hadoop, "hadoop is null");
    }

    @Override
    public String table() {
        return spec.table();
    }

    @Override
    public boolean setUp(Schema columns) {
        TargetTable target = target(columns);
        WarehouseConnector connector = connector();
        try {
            return new WarehousePublisher(connector, hadoop).createIfAbsent(
                    WarehouseTable.of(spec.table(), target.schema(), target.businessKeyColumn()));
        } catch (SQLException e) {
            throw new TargetException("the warehouse " + spec.database() + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public Optional<Schema> columns() {
        return Optional.empty();
    }

    @Override
    public List<String> check(Schema columns) {
        TargetTable target = target(columns);
        try {
            return new WarehousePublisher(connector(), hadoop).check(
                    WarehouseTable.of(spec.table(), target.schema(), target.businessKeyColumn()), spec.schema());
        } catch (SQLException e) {
            throw new TargetException("the warehouse " + spec.database() + " refused the check of " + spec.table()
                    + ": " + TargetException.oneLine(e), e);
        }
    }

    @Override
    public PublishOutcome publish(Publication publication) {
        WarehousePublisher publisher;
        PublishRequest request;
        try {
            publisher = new WarehousePublisher(connector(), hadoop);
            request = new PublishRequest(publication.runId(), jobKey, publication.businessKey(),
                    publication.publishToken(), publication.fence(), target(publication.stagedColumns().get()),
                    publication.files());
        } catch (RuntimeException e) {
            // Nothing was committed: no transaction has begun.
            return PublishOutcome.failed(PublishOutcome.ErrorCode.NOT_COMMITTED, "publish of run "
                    + publication.runId() + " to " + spec.table() + " not started: " + e.getMessage());
        }
        return publisher.publish(request);
    }

    @Override
    public ProbeResult probe(String runId, UUID publishToken) {
        return new WarehousePublisher(connector(), hadoop).probe(spec.table(), runId, publishToken);
    }

    /** A warehouse is opened and read in one go: a table that cannot be read there fails the run. */
    @Override
    public Supplier<MetricSet> reading(String businessKey, ValidationSpec validation, Supplier<Schema> stagedColumns) {
        WarehouseConnector connector = connector();
        TargetTable target = target(stagedColumns.get());
        WarehouseTable table = WarehouseTable.of(spec.table(), target.schema(), target.businessKeyColumn());
        return () -> new WarehouseReader(connector).measure(table, businessKey, validation);
    }

    /** The key's rows go in one transaction that deletes exactly the rows counted here. */
    @Override
    public Optional<PendingRollback> rollback(String businessKey) {
        WarehouseRollback rollback = new WarehouseRollback(connector());
        long rows;
        try {
            rows = rollback.rows(spec.table(), spec.businessKeyColumn(), businessKey);
        } catch (SQLException | IllegalStateException e) {
            throw new TargetException("cannot read " + spec.table() + " in " + spec.database() + ": "
                    + e.getMessage(), e);
        }
        if (rows < 0) {
            return Optional.empty();
        }
        return Optional.of(new PendingRollback() {
            @Override
            public long rows() {
                return rows;
            }

            @Override
            public String describe() {
                return String.format("%,d", rows) + " rows of business key " + businessKey + " from warehouse table "
                        + spec.table();
            }

            @Override
            public RolledBack commit(String runId, String reason) {
                try {
                    long ref = rollback.delete(spec.table(), spec.businessKeyColumn(), businessKey, rows);
                    return new RolledBack(String.valueOf(ref), rollback.describe(ref));
                } catch (IllegalStateException e) {
                    throw new TargetException("the business key changed while rolling back (did a run publish?): "
                            + e.getMessage(), e);
                } catch (SQLException e) {
                    throw new TargetException("the rollback of " + spec.table() + " failed (" + e.getMessage()
                            + "); if the connection broke during COMMIT, count the key's rows before anything else", e);
                }
            }
        });
    }

    /** A warehouse holds copies of the rows: it references no staged file. */
    @Override
    public Optional<Set<String>> referencedFiles() {
        return Optional.of(Set.of());
    }

    /** A warehouse keeps no snapshots: the rows of a replaced run are gone with its publish's transaction. */
    @Override
    public int expireHistory(SnapshotExpiry expiry) {
        return 0;
    }

    @Override
    public Optional<TableOverview> overview() {
        return read(reader -> {
            var columns = reader.columns(spec.table());
            if (columns.isEmpty()) {
                return Optional.empty();
            }
            List<TableOverview.Partition> partitions = new java.util.ArrayList<>();
            reader.rowsByKey(spec.table(), spec.businessKeyColumn())
                    .forEach((key, rows) -> partitions.add(new TableOverview.Partition(key, rows)));
            return Optional.of(new TableOverview(spec.table(), spec.businessKeyColumn(), columns.get().stream()
                    .map(c -> new TableOverview.Column(c.name(), c.type())).toList(), partitions));
        });
    }

    @Override
    public List<Map<String, String>> sample(Optional<String> businessKey, int limit) {
        return read(reader -> reader.columns(spec.table()).isEmpty() ? List.of()
                : reader.sample(spec.table(), spec.businessKeyColumn(), businessKey, limit));
    }

    /** A publish replaces the key's rows in one transaction; its marker is what the table keeps of it. */
    @Override
    public List<TableSnapshot> snapshots() {
        return read(reader -> reader.publishes(spec.table()).stream()
                .map(p -> new TableSnapshot(null, p.committedAt(), "replace", p.runId(), p.publishToken(),
                        p.businessKey(), p.rows()))
                .toList());
    }

    /** A warehouse keeps no older states to return to: its history is its publishes. */
    @Override
    public List<TableSnapshot> history() {
        return snapshots();
    }

    private interface Read<T> {
        T read(WarehouseTableReader reader) throws SQLException;
    }

    private <T> T read(Read<T> read) {
        try {
            return read.read(new WarehouseTableReader(connector()));
        } catch (SQLException e) {
            throw new TargetException("cannot read " + spec.table() + " in " + spec.database() + ": "
                    + TargetException.oneLine(e), e);
        }
    }

    private WarehouseConnector connector() {
        return WarehouseConnector.of(spec.database(), environment);
    }

    private TargetTable target(Schema columns) {
        return new TargetTable(TableIdentifier.parse(spec.table()), columns, spec.businessKeyColumn());
    }
}

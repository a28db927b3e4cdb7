package io.loadgate.worker.source.jdbc;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.job.SourceMetricsTiming;
import io.loadgate.worker.job.SourceSpec;
import io.loadgate.worker.job.ValidationSpec;
import io.loadgate.worker.source.ColumnType;
import io.loadgate.worker.source.Partition;
import io.loadgate.worker.source.PartitionRows;
import io.loadgate.worker.source.SnapshotExpiredException;
import io.loadgate.worker.source.SnapshotHolder;
import io.loadgate.worker.source.Source;
import io.loadgate.worker.source.SourceColumn;
import io.loadgate.worker.source.SourceException;
import io.loadgate.worker.source.SourcePlan;
import io.loadgate.worker.validation.MetricSet;
import java.net.URI;
import java.net.URISyntaxException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A MariaDB/MySQL {@link Source}. Unlike PostgreSQL, MariaDB cannot hand a snapshot to another session, so the
 * holder opens all its reader connections up front, the way mydumper does: under {@code FLUSH TABLES WITH READ
 * LOCK} (no commit can happen meanwhile) each connection runs {@code START TRANSACTION WITH CONSISTENT SNAPSHOT},
 * then the lock is released, after a moment. Every connection then sees the same committed state.
 *
 * <p>Consequence for callers: partitions can only be read in the process that holds the snapshot, through the
 * holder's connections ({@code reader_connections} of them, shared by all partitions). A {@code snapshotRef}
 * from another process, or from a closed holder, gives {@link SnapshotExpiredException}. The user needs the
 * RELOAD privilege for the lock.
 *
 * <p>The source's metrics measured during extraction ({@link SourceMetricsTiming#DURING_EXTRACTION}) need the same
 * snapshot after planning, so their connections are opened under the same lock, beside the readers': one for the
 * totals and, when the job asks for DUPLICATE_KEYS, one for its {@code GROUP BY}, as PostgreSQL's run side by side.
 * They are the holder's until the metrics are measured, and never a partition's.
 */
public final class MariaDbSnapshotSource implements Source {
    private static final Logger LOG = LoggerFactory.getLogger(MariaDbSnapshotSource.class);
    // Holders by snapshotRef: readers may be built from another Source instance of the same process.
    private static final Map<String, PooledHolder> HOLDERS = new ConcurrentHashMap<>();

    private final SourceSpec source;
    private final ValidationSpec validation;
    private final Map<String, String> environment;
    private final int readerConnections;
    private final SnapshotQueries queries;

    /**
     * @param readerConnections how many partitions can be read at once; at least 1
     */
    public MariaDbSnapshotSource(SourceSpec source, ValidationSpec validation, Map<String, String> environment, int readerConnections) {
        this.source = requireNonNull(source, "source is null");
        this.validation = requireNonNull(validation, "validation is null");
        this.environment = Map.copyOf(environment);
        if (!source.jdbcUrl().startsWith("jdbc:mariadb:") && !source.jdbcUrl().startsWith("jdbc:mysql:")) {
            throw new SourceException("source.jdbc_url is not a MariaDB or MySQL URL: " + SourceConnections.masked(source.jdbcUrl()));
        }
        if (readerConnections < 1) {
            throw new IllegalArgumentException("readerConnections must be positive, got " + readerConnections);
        }
        this.readerConnections = readerConnections;
        String relation = source.table() != null ? source.table() : "(" + source.query() + ") src";
        // A binary utf8mb4 collation orders by code point, as MetricCalculator does, whatever the column's collation.
        SourceSql sql = new SourceSql(source, relation,
                (column, type) -> type == ColumnType.STRING ? "CONVERT(" + column + " USING utf8mb4) COLLATE utf8mb4_bin" : column);
        this.queries = new SnapshotQueries(source, validation, sql);
    }

    @Override
    public SnapshotHolder openSnapshot(String businessKey) {
        return openSnapshot(businessKey, SourceMetricsTiming.WHILE_PLANNING);
    }

    /**
     * {@link SourceMetricsTiming#AUTO} is resolved by where the URL says the server is ({@link #onThisHost}):
     * MariaDB cannot tell a session the address it reached the server on, as PostgreSQL's
     * {@code inet_server_addr()} does.
     */
    @Override
    public SnapshotHolder openSnapshot(String businessKey, SourceMetricsTiming timing) {
        requireNonNull(timing, "timing is null");
        if (timing == SourceMetricsTiming.AUTO) {
            timing = onThisHost(source.jdbcUrl()) ? SourceMetricsTiming.WHILE_PLANNING : SourceMetricsTiming.DURING_EXTRACTION;
            LOG.debug("source.metrics auto: {}", timing);
        }
        int measuring = timing == SourceMetricsTiming.WHILE_PLANNING ? 0 : validation.primaryKey().isEmpty() ? 1 : 2;
        List<Connection> connections = new ArrayList<>();
        try {
            Connection lock = connect();
            try {
                execute(lock, "FLUSH TABLES WITH READ LOCK");
                for (int i = 0; i < readerConnections + measuring; i++) {
                    Connection connection = connect();
                    connections.add(connection);
                    execute(connection, "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ");
                    execute(connection, "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY");
                }
            } finally {
                // Closing the session releases the lock even if UNLOCK TABLES cannot be sent.
                SourceConnections.closeQuietly(lock);
            }
            String snapshotRef = UUID.randomUUID().toString();
            SourcePlan plan = queries.measure(connections.get(0), snapshotRef, businessKey, null, timing, false,
                    Optional::empty);
            PooledHolder holder = new PooledHolder(plan, businessKey, connections.subList(0, readerConnections),
                    connections.subList(readerConnections, connections.size()));
            HOLDERS.put(snapshotRef, holder);
            LOG.info("holding snapshot {} on {} connections: {} rows in {} partitions", snapshotRef, connections.size(),
                    plan.split().rowCount(), plan.partitions().size());
            return holder;
        } catch (SQLException e) {
            connections.forEach(SourceConnections::closeQuietly);
            throw queries.failure(e);
        } catch (RuntimeException e) {
            connections.forEach(SourceConnections::closeQuietly);
            throw e;
        }
    }

    /**
     * Whether the URL's one host is this host (a loopback name or address, or one of its interfaces'). A URL of
     * several hosts, or of another form, counts as elsewhere.
     */
    static boolean onThisHost(String jdbcUrl) {
        try {
            String host = new URI(jdbcUrl.substring("jdbc:".length())).getHost();
            return host != null && SourceConnections.isLocalAddress(host);
        } catch (URISyntaxException e) {
            return false;
        }
    }

    /** The snapshot lives in the holder's own connections: only this process can read it. */
    @Override
    public boolean snapshotSharedAcrossProcesses() {
        return false;
    }

    @Override
    public List<SourceColumn> columns() {
        return queries.checkAndClose(connect());
    }

    @Override
    public PartitionRows readPartition(String snapshotRef, Partition partition, String businessKey) {
        requireNonNull(partition, "partition is null");
        PooledHolder holder = HOLDERS.get(snapshotRef);
        if (holder == null) {
            throw new SnapshotExpiredException("snapshot " + snapshotRef + " is not held in this process: MariaDB snapshots"
                    + " cannot be shared, so partitions are read where the snapshot was taken", null);
        }
        Connection connection = holder.borrow();
        try {
            return queries.openCursor(connection, queries.partitionQuery(connection, partition, businessKey),
                    readToTheEnd -> holder.giveBack(connection));
        } catch (SQLException e) {
            holder.giveBack(connection);
            throw queries.failure(e);
        } catch (RuntimeException e) {
            holder.giveBack(connection);
            throw e;
        }
    }

    private Connection connect() {
        Properties properties = new Properties();
        properties.setProperty("connectTimeout", "10000");
        return SourceConnections.open(source, environment, properties);
    }

    private static void execute(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    /**
     * The connections that see the snapshot: a reader borrows one for the length of a partition; the measuring ones,
     * when the plan left the metrics out, are used once, by {@link #sourceMetrics}.
     */
    private final class PooledHolder implements SnapshotHolder {
        private final SourcePlan plan;
        private final String businessKey;
        private final BlockingQueue<Connection> idle;
        private final List<Connection> measuring;
        private MetricSet measured;
        private volatile boolean closed;

        PooledHolder(SourcePlan plan, String businessKey, List<Connection> readers, List<Connection> measuring) {
            this.plan = plan;
            this.businessKey = businessKey;
            this.idle = new LinkedBlockingQueue<>(readers);
            this.measuring = List.copyOf(measuring);
        }

        @Override
        public SourcePlan plan() {
            return plan;
        }

        /** Measured once, on the measuring connections, which are closed after. */
        @Override
        public synchronized MetricSet sourceMetrics() {
            if (plan.sourceMetrics().isPresent()) {
                return plan.sourceMetrics().get();
            }
            if (measured == null) {
                if (closed) {
                    throw new SnapshotExpiredException("snapshot " + plan.snapshotRef()
                            + " was released before the source's metrics were measured", null);
                }
                try {
                    Connection side = measuring.size() > 1 ? measuring.get(1) : null;
                    measured = queries.measureMetrics(measuring.get(0), businessKey, side == null ? null : () -> side,
                            false);
                } catch (SQLException e) {
                    throw queries.failure(e);
                } finally {
                    measuring.forEach(SourceConnections::closeQuietly);
                }
            }
            return measured;
        }

        @Override
        public boolean isAlive() {
            return !closed;
        }

        Connection borrow() {
            try {
                // Polls so that a reader waiting for a busy connection notices when the holder closes.
                while (!closed) {
                    Connection connection = idle.poll(1, TimeUnit.SECONDS);
                    if (connection != null) {
                        return connection;
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SourceException("interrupted while waiting for a source connection", e);
            }
            throw new SnapshotExpiredException("snapshot " + plan.snapshotRef() + " was released", null);
        }

        void giveBack(Connection connection) {
            // After close() the queue is no longer drained: a connection coming back then is closed here.
            if (closed) {
                SourceConnections.closeQuietly(connection);
            } else {
                idle.add(connection);
                if (closed && idle.remove(connection)) {
                    SourceConnections.closeQuietly(connection);
                }
            }
        }

        /** Closes the measuring connections too: metrics not measured by then cannot be any more. */
        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            HOLDERS.remove(plan.snapshotRef(), this);
            for (Connection connection = idle.poll(); connection != null; connection = idle.poll()) {
                SourceConnections.closeQuietly(connection);
            }
            measuring.forEach(SourceConnections::closeQuietly);
            LOG.info("released snapshot {}", plan.snapshotRef());
        }
    }
}

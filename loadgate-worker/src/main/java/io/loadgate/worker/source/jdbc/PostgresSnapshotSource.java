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
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL {@link Source}. The planner's transaction is REPEATABLE READ READ ONLY and exports its snapshot
 * with {@code pg_export_snapshot()} as its first query, so every measurement it makes and every reader that runs
 * {@code SET TRANSACTION SNAPSHOT} sees the same rows, on any host. PostgreSQL keeps an exported snapshot
 * importable only while the exporting transaction is open, hence the {@link SnapshotHolder}.
 */
public final class PostgresSnapshotSource implements Source {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresSnapshotSource.class);
    private static final Pattern SNAPSHOT_ID = Pattern.compile("[0-9A-Fa-f]{1,16}-[0-9A-Fa-f]{1,16}(-[0-9]{1,10})?");
    // SQLSTATEs of SET TRANSACTION SNAPSHOT when the exporting transaction is gone: invalid_parameter_value
    // (the snapshot file was removed) and object_not_in_prerequisite_state (its xmin can no longer be kept).
    // What SET TRANSACTION SNAPSHOT raises for a snapshot whose exporter is gone: 22023 (invalid snapshot identifier)
    // and 55000 on older servers; PostgreSQL 17 says "snapshot ... does not exist", 42704 (undefined object).
    private static final Set<String> SNAPSHOT_GONE = Set.of("22023", "55000", "42704");
    // What statement_timeout raises.
    private static final String QUERY_CANCELED = "57014";
    // Reading an index's two ends takes milliseconds; a scan of a table worth planning takes far longer.
    private static final int QUICK_RANGE_MILLIS = 100;

    private final SourceSpec source;
    private final ValidationSpec validation;
    private final Map<String, String> environment;
    private final SnapshotQueries queries;
    private final IdleConnections idle;
    private final int quickRangeMillis;

    /** {@code environment} supplies the password variable the spec names; pass {@code System.getenv()}. */
    public PostgresSnapshotSource(SourceSpec source, ValidationSpec validation, Map<String, String> environment) {
        this(source, validation, environment, IdleConnections.none());
    }

    /** Reading partitions on connections taken from {@code idle}, and given back to it once read to the end. */
    public PostgresSnapshotSource(SourceSpec source, ValidationSpec validation, Map<String, String> environment,
                                  IdleConnections idle) {
        this(source, validation, environment, idle, QUICK_RANGE_MILLIS);
    }

    /** With {@code quickRangeMillis} the time {@link #quickSplitRange} may take; 0 never tries it. */
    PostgresSnapshotSource(SourceSpec source, ValidationSpec validation, Map<String, String> environment,
                           int quickRangeMillis) {
        this(source, validation, environment, IdleConnections.none(), quickRangeMillis);
    }

    private PostgresSnapshotSource(SourceSpec source, ValidationSpec validation, Map<String, String> environment,
                                   IdleConnections idle, int quickRangeMillis) {
        this.quickRangeMillis = quickRangeMillis;
        this.idle = requireNonNull(idle, "idle is null");
        this.source = requireNonNull(source, "source is null");
        this.validation = requireNonNull(validation, "validation is null");
        this.environment = Map.copyOf(environment);
        if (!source.jdbcUrl().startsWith("jdbc:postgresql:")) {
            throw new SourceException("source.jdbc_url is not a PostgreSQL URL: " + SourceConnections.masked(source.jdbcUrl()));
        }
        String relation = source.table() != null ? source.table() : "(" + source.query() + ") src";
        // COLLATE "C" orders text by UTF-8 bytes, i.e. by code point, as MetricCalculator does.
        SourceSql sql = new SourceSql(source, relation, (column, type) -> type == ColumnType.STRING ? column + " COLLATE \"C\"" : column);
        this.queries = new SnapshotQueries(source, validation, sql);
    }

    @Override
    public SnapshotHolder openSnapshot(String businessKey) {
        return openSnapshot(businessKey, SourceMetricsTiming.WHILE_PLANNING);
    }

    /**
     * With {@link SourceMetricsTiming#DURING_EXTRACTION} the holder's {@link SnapshotHolder#sourceMetrics()} measures
     * them on connections that import the exported snapshot, as partition readers do: the same rows as the plan's.
     * {@link SourceMetricsTiming#AUTO} is resolved here, by where the server is ({@link #onThisHost}).
     */
    @Override
    public SnapshotHolder openSnapshot(String businessKey, SourceMetricsTiming timing) {
        // Taken from, and given back to, the same keeping as the partitions' (a process that plans again, as a
        // load of several keys does, plans on a server process that has read the table before).
        Properties properties = properties(new Properties());
        IdleConnections.Key key = IdleConnections.Key.of(source.jdbcUrl(), properties);
        Connection connection = idle.take(key, () -> SourceConnections.open(source, properties));
        try {
            // Before the snapshot, in a transaction of its own: a unique index valid then held for every row the
            // snapshot can see.
            boolean keysUnique = source.table() != null && !validation.primaryKey().isEmpty()
                    && keysUnique(connection, source.table(), validation.primaryKey());
            beginRepeatableRead(connection);
            if (timing == SourceMetricsTiming.AUTO) {
                timing = onThisHost(connection) ? SourceMetricsTiming.WHILE_PLANNING
                        : SourceMetricsTiming.DURING_EXTRACTION;
                LOG.debug("source.metrics auto: {}", timing);
            }
            String snapshotId;
            try (Statement statement = connection.createStatement();
                 ResultSet rs = statement.executeQuery("SELECT pg_export_snapshot()")) {
                rs.next();
                snapshotId = rs.getString(1);
            }
            String exported = snapshotId;
            SnapshotQueries.SnapshotConnections beside = () -> attach(exported, new Properties());
            SourcePlan plan = queries.measure(connection, snapshotId, businessKey, beside, timing, keysUnique,
                    () -> quickSplitRange(connection, businessKey));
            LOG.info("exported snapshot {}: {} rows in {} partitions", snapshotId, plan.split().rowCount(), plan.partitions().size());
            return new TransactionHolder(key, connection, plan, () -> {
                Connection measuring = beside.open();
                try {
                    return queries.measureMetrics(measuring, businessKey, beside, keysUnique);
                } finally {
                    SourceConnections.closeQuietly(measuring);
                }
            });
        } catch (SQLException e) {
            SourceConnections.closeQuietly(connection);
            throw queries.failure(e);
        } catch (RuntimeException e) {
            SourceConnections.closeQuietly(connection);
            throw e;
        }
    }

    /**
     * The split column's range at the snapshot when the server finds it within {@code quickRangeMillis} — from an
     * index's two ends — on {@code connection}, in its transaction (the one that exported the snapshot); empty when
     * it would scan the rows, as the plan's scan does anyway. Known beforehand, the range lets that one scan count
     * the partitions too. It runs in a savepoint: rolling back to it ends the timeout and, when the timeout cancelled
     * the query, the error, and the transaction and its snapshot go on. A connection of its own, as before, cost a
     * new server process on every plan (a PostgreSQL connection took 12 ms on the bench's machine).
     */
    Optional<SnapshotQueries.SplitRange> quickSplitRange(Connection connection, String businessKey)
            throws SQLException {
        if (quickRangeMillis <= 0) {
            return Optional.empty();
        }
        Savepoint before = connection.setSavepoint();
        try {
            try (Statement statement = connection.createStatement()) {
                statement.execute("SET LOCAL statement_timeout = " + quickRangeMillis);
            }
            return Optional.of(queries.splitRange(connection, businessKey));
        } catch (SQLException e) {
            if (QUERY_CANCELED.equals(e.getSQLState())) {
                LOG.debug("the split column's range needs a scan; the plan's scan counts the partitions after it");
                return Optional.empty();
            }
            throw e;
        } finally {
            connection.rollback(before);
        }
    }

    @Override
    public List<SourceColumn> columns() {
        return queries.checkAndClose(connect(new Properties()));
    }

    @Override
    public PartitionRows readPartition(String snapshotRef, Partition partition, String businessKey) {
        requireNonNull(partition, "partition is null");
        if (snapshotRef == null || !SNAPSHOT_ID.matcher(snapshotRef).matches()) {
            throw new IllegalArgumentException("not a PostgreSQL snapshot id: " + snapshotRef);
        }
        Properties properties = properties(binaryTransfer());
        IdleConnections.Key key = IdleConnections.Key.of(source.jdbcUrl(), properties);
        Connection connection;
        try {
            connection = attach(snapshotRef, idle.take(key, () -> SourceConnections.open(source, properties)));
        } catch (SQLException e) {
            throw queries.failure(e);
        }
        try {
            if (source.table() != null && scansTheTable(partition.expectedRowCount(), tableRows(connection, source.table()))) {
                try (Statement statement = connection.createStatement()) {
                    // For this transaction only: the reader's own.
                    statement.execute("SET LOCAL enable_indexscan = off");
                    statement.execute("SET LOCAL enable_bitmapscan = off");
                }
            }
            PartitionQuery query = queries.partitionQuery(connection, partition, businessKey);
            ConnectionRelease release = readToTheEnd -> release(key, connection, readToTheEnd);
            Optional<PartitionRows> copy = PgCopyRows.open(connection, query, release);
            return copy.isPresent() ? copy.get() : queries.openCursor(connection, query, release);
        } catch (SQLException e) {
            SourceConnections.closeQuietly(connection);
            throw queries.failure(e);
        } catch (RuntimeException e) {
            SourceConnections.closeQuietly(connection);
            throw e;
        }
    }

    /**
     * Whether a partition of {@code partitionRows} rows is read faster by scanning the whole table than through an
     * index on the split column, for a table of about {@code tableRows} rows (its statistics; 0 or less when unknown).
     * PostgreSQL's planner takes the index for a range of the split column even when the range is half the table: it
     * counts an index scan's heap fetch as cheap when the index is in heap order, but the fetch pins and checks
     * tuple by tuple, where a sequential scan checks page by page (and the plan is then big enough to compile its
     * filter with JIT); a table scan, though, reads every row of the table, the partition's or not. On the bench's
     * table (5,000,000 rows of 6 columns, bench/RESULTS.md, 2026-12-03), every partition's COPY at once: halves 5%
     * faster as table scans, thirds even, quarters 11% and sixths 20% faster through the index. So a partition of at
     * least a third is read by a table scan; below it, and when the table's size is not known, the planner chooses.
     */
    static boolean scansTheTable(long partitionRows, double tableRows) {
        return tableRows > 0 && partitionRows * 3.0 >= tableRows;
    }

    /** The table's estimated rows (pg_class.reltuples: -1 before its first ANALYZE since PostgreSQL 14, 0 if empty). */
    private static double tableRows(Connection connection, String table) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(
                "SELECT reltuples FROM pg_class WHERE oid = to_regclass(?) AND relkind = 'r'")) {
            statement.setString(1, table);
            try (ResultSet rs = statement.executeQuery()) {
                return rs.next() ? rs.getDouble(1) : -1;
            }
        }
    }

    /**
     * Whether the server guarantees that {@code keys} are unique in {@code table}: a valid unique index over plain,
     * NOT NULL columns, all among {@code keys}, with their types' default equality and collations, and no
     * inheritance child outside the index (a partitioned table's unique index covers its partitions). Then the
     * DUPLICATE_KEYS query — a GROUP BY of every key, often the plan's longest — can only answer 0, by the same
     * equality the index enforces, so the plan says 0 without running it. Staging and the target still count the
     * keys they hold (docs/validation.md).
     */
    static boolean keysUnique(Connection connection, String table, List<String> keys) throws SQLException {
        String sql = """
                SELECT array_agg(a.attname::text)
                FROM pg_index i
                JOIN pg_class c ON c.oid = i.indrelid
                CROSS JOIN LATERAL unnest(i.indkey::int2[], i.indclass::oid[], i.indcollation::oid[])
                    WITH ORDINALITY AS k(attnum, opclass, coll, n)
                JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
                JOIN pg_opclass o ON o.oid = k.opclass
                WHERE i.indrelid = to_regclass(?) AND i.indisunique AND i.indisvalid
                  AND i.indpred IS NULL AND i.indexprs IS NULL AND k.n <= i.indnkeyatts
                  AND (c.relkind = 'p' OR NOT c.relhassubclass)
                GROUP BY i.indexrelid
                HAVING bool_and(a.attnotnull AND k.coll = a.attcollation AND o.opcdefault)
                """;
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, table);
            try (ResultSet rs = statement.executeQuery()) {
                while (rs.next()) {
                    String[] columns = (String[]) rs.getArray(1).getArray();
                    if (Arrays.stream(columns).allMatch(c -> keys.stream().anyMatch(c::equalsIgnoreCase))) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /**
     * Whether the server runs on this host, by the address it answers on: none (a Unix socket), a loopback address,
     * or one of this host's interfaces. There its scans share the cores the partition readers and the workers use,
     * so measuring the metrics during extraction only adds contention (docs/validation.md has the figures).
     */
    static boolean onThisHost(Connection connection) throws SQLException {
        String address;
        try (Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery("SELECT host(inet_server_addr())")) {
            rs.next();
            address = rs.getString(1);
        }
        return address == null || SourceConnections.isLocalAddress(address);
    }

    /**
     * A partition's connection read to the end (or a plan's, its snapshot released) is kept for the next read once
     * its session is as a new one's: its transaction rolled back, and DISCARD ALL, since some of what the job's SQL
     * may do to its session outlives the rollback (a session advisory lock a function took) and must not reach
     * another run's read. Anything else closes it.
     */
    private void release(IdleConnections.Key key, Connection connection, boolean readToTheEnd) {
        if (!readToTheEnd) {
            SourceConnections.closeQuietly(connection);
            return;
        }
        try {
            connection.rollback();
            connection.setAutoCommit(true);
            try (Statement statement = connection.createStatement()) {
                statement.execute("DISCARD ALL");
            }
        } catch (SQLException e) {
            LOG.debug("a partition's connection could not be reset; closed: {}", e.toString());
            SourceConnections.closeQuietly(connection);
            return;
        }
        idle.keep(key, connection);
    }

    /** A new connection in a transaction that sees snapshot {@code snapshotRef}, which must be well-formed. */
    private Connection attach(String snapshotRef, Properties driverProperties) throws SQLException {
        return attach(snapshotRef, connect(driverProperties));
    }

    private Connection connect(Properties driverProperties) {
        return SourceConnections.open(source, properties(driverProperties));
    }

    /** {@code connection}, in a transaction that sees snapshot {@code snapshotRef}; closed if that fails. */
    private Connection attach(String snapshotRef, Connection connection) throws SQLException {
        try {
            beginRepeatableRead(connection);
            try (Statement statement = connection.createStatement()) {
                // The id is checked against SNAPSHOT_ID (or comes from pg_export_snapshot); SET TRANSACTION SNAPSHOT
                // takes no parameters.
                statement.execute("SET TRANSACTION SNAPSHOT '" + snapshotRef + "'");
            } catch (SQLException e) {
                if (SNAPSHOT_GONE.contains(e.getSQLState())) {
                    throw new SnapshotExpiredException("snapshot " + snapshotRef + " is gone: " + SourceConnections.firstLine(e.getMessage()), e);
                }
                throw e;
            }
            return connection;
        } catch (SQLException | RuntimeException e) {
            SourceConnections.closeQuietly(connection);
            throw e;
        }
    }

    /**
     * PgJDBC uses the text protocol for a statement run fewer than {@code prepareThreshold} times, which is every
     * partition cursor: each numeric, date and timestamptz is then parsed from text. A threshold of -1 prepares on
     * the server from the first execution, so fixed-width types come back binary; the values are the same (numeric
     * keeps its display scale, timestamptz its instant). A prepareThreshold in the job's URL still wins.
     */
    private static Properties binaryTransfer() {
        Properties properties = new Properties();
        properties.setProperty("prepareThreshold", "-1");
        return properties;
    }

    /**
     * The business key goes to the server untyped ({@code stringtype=unspecified}), so the job's filter types it:
     * {@code CAST(:business_key AS date)} is then a date constant. Bound as PgJDBC's default varchar, that cast is a
     * stable function of a parameter, which PostgreSQL evaluates for every row it filters: on the bench's table
     * (5,000,000 rows) 0.6 s more in the plan's metrics scan and 0.3 s more in each half's scan (bench/RESULTS.md,
     * 2026-12-03). The only other strings bound here are in casts too. A stringtype in the job's URL still wins.
     */
    private Properties properties(Properties driverProperties) {
        Properties properties = new Properties();
        properties.putAll(driverProperties);
        properties.setProperty("stringtype", "unspecified");
        properties.setProperty("connectTimeout", "10");
        properties.setProperty("ApplicationName", "loadgate-worker");
        // The driver then sends its own session settings (application_name, extra_float_digits) with the startup
        // message instead of SETting them after it, so they are the session's defaults: the DISCARD ALL that resets
        // a kept partition connection (release) resets to them. Every server since 9.0 accepts them there.
        properties.setProperty("assumeMinServerVersion", "9.0");
        return SourceConnections.properties(source, environment, properties);
    }

    /**
     * Autocommit off makes the driver send BEGIN before the first statement; SET TRANSACTION then fixes the
     * isolation explicitly, as the transaction's first statement, rather than trusting session defaults.
     */
    private static void beginRepeatableRead(Connection connection) throws SQLException {
        connection.setAutoCommit(false);
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
        }
    }

    /** Measures the source's metrics at the snapshot, on connections of its own. */
    @FunctionalInterface
    private interface MetricsQuery {
        MetricSet measure() throws SQLException;
    }

    /** The planner's open transaction; closing it ends the snapshot. */
    private final class TransactionHolder implements SnapshotHolder {
        private final IdleConnections.Key key;
        private final Connection connection;
        private final SourcePlan plan;
        private final MetricsQuery metrics;
        private volatile boolean closed;

        TransactionHolder(IdleConnections.Key key, Connection connection, SourcePlan plan, MetricsQuery metrics) {
            this.key = key;
            this.connection = connection;
            this.plan = plan;
            this.metrics = metrics;
        }

        @Override
        public SourcePlan plan() {
            return plan;
        }

        @Override
        public MetricSet sourceMetrics() {
            if (plan.sourceMetrics().isPresent()) {
                return plan.sourceMetrics().get();
            }
            try {
                return metrics.measure();
            } catch (SQLException e) {
                throw queries.failure(e);
            }
        }

        /** Synchronized with {@link #close}: once closed, the connection may be another reader's. */
        @Override
        public synchronized boolean isAlive() {
            try {
                return !closed && connection.isValid(2);
            } catch (SQLException e) {
                return false;
            }
        }

        /** Ends the transaction, and the snapshot with it; the connection is kept if it can be reset, as a partition's. */
        @Override
        public synchronized void close() {
            if (!closed) {
                closed = true;
                release(key, connection, true);
                LOG.info("released snapshot {}", plan.snapshotRef());
            }
        }
    }
}

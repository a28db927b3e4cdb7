package io.loadgate.worker.source;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.job.SourceSpec;
import io.loadgate.worker.job.ValidationSpec;
import io.loadgate.worker.validation.MetricNames;
import io.loadgate.worker.validation.MetricSet;
import io.loadgate.worker.validation.MetricValues;
import java.math.BigInteger;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL {@link Source}. The planner's transaction is REPEATABLE READ READ ONLY and exports its snapshot
 * with {@code pg_export_snapshot()} as its first statement, so every measurement it makes and every reader that
 * runs {@code SET TRANSACTION SNAPSHOT} sees the same rows. PostgreSQL keeps an exported snapshot importable only
 * while the exporting transaction is open, hence the {@link SnapshotHolder}.
 */
public final class PostgresSnapshotSource implements Source {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresSnapshotSource.class);
    private static final Pattern SNAPSHOT_ID = Pattern.compile("[0-9A-Fa-f]{1,16}-[0-9A-Fa-f]{1,16}(-[0-9]{1,10})?");
    private static final Set<ColumnType> SUMMABLE = EnumSet.of(ColumnType.INT, ColumnType.LONG, ColumnType.DECIMAL);
    // Floats are left out of MIN/MAX: their text form differs between PostgreSQL and Java for some values.
    private static final Set<ColumnType> ORDERABLE = EnumSet.of(ColumnType.INT, ColumnType.LONG, ColumnType.DECIMAL,
            ColumnType.STRING, ColumnType.DATE, ColumnType.TIMESTAMP, ColumnType.TIMESTAMPTZ);
    // SQLSTATEs of SET TRANSACTION SNAPSHOT when the exporting transaction is gone: invalid_parameter_value
    // (the snapshot file was removed) and object_not_in_prerequisite_state (its xmin can no longer be kept).
    private static final Set<String> SNAPSHOT_GONE = Set.of("22023", "55000");
    // snapshot_too_old, raised mid-scan when old_snapshot_threshold is set (PostgreSQL 16 and older).
    private static final String SNAPSHOT_TOO_OLD = "72000";

    private final SourceSpec source;
    private final ValidationSpec validation;
    private final Map<String, String> environment;
    private final SourceSql sql;

    /** {@code environment} supplies the password variable the spec names; pass {@code System.getenv()}. */
    public PostgresSnapshotSource(SourceSpec source, ValidationSpec validation, Map<String, String> environment) {
        this.source = requireNonNull(source, "source is null");
        this.validation = requireNonNull(validation, "validation is null");
        this.environment = Map.copyOf(environment);
        if (!source.jdbcUrl().startsWith("jdbc:postgresql:")) {
            throw new SourceException("source.jdbc_url is not a PostgreSQL URL: " + masked(source.jdbcUrl()));
        }
        String relation = source.table() != null ? source.table() : "(" + source.query() + ") src";
        this.sql = new SourceSql(source, relation, (column, type) -> type == ColumnType.STRING ? column + " COLLATE \"C\"" : column);
    }

    @Override
    public SnapshotHolder openSnapshot(String businessKey) {
        Connection connection = connect();
        try {
            beginRepeatableRead(connection);
            String snapshotId;
            try (Statement statement = connection.createStatement();
                 ResultSet rs = statement.executeQuery("SELECT pg_export_snapshot()")) {
                rs.next();
                snapshotId = rs.getString(1);
            }
            SourcePlan plan = measure(connection, snapshotId, businessKey);
            LOG.info("exported snapshot {}: {} rows in {} partitions", snapshotId, plan.split().rowCount(), plan.partitions().size());
            return new TransactionHolder(connection, plan);
        } catch (SQLException e) {
            closeQuietly(connection);
            throw failure(e);
        } catch (RuntimeException e) {
            closeQuietly(connection);
            throw e;
        }
    }

    @Override
    public PartitionRows readPartition(String snapshotRef, Partition partition, String businessKey) {
        requireNonNull(partition, "partition is null");
        if (snapshotRef == null || !SNAPSHOT_ID.matcher(snapshotRef).matches()) {
            throw new IllegalArgumentException("not a PostgreSQL snapshot id: " + snapshotRef);
        }
        Connection connection = connect();
        try {
            beginRepeatableRead(connection);
            try (Statement statement = connection.createStatement()) {
                // The id is checked against SNAPSHOT_ID above; SET TRANSACTION SNAPSHOT takes no parameters.
                statement.execute("SET TRANSACTION SNAPSHOT '" + snapshotRef + "'");
            } catch (SQLException e) {
                if (SNAPSHOT_GONE.contains(e.getSQLState())) {
                    throw new SnapshotExpiredException("snapshot " + snapshotRef + " is gone: " + firstLine(e.getMessage()), e);
                }
                throw e;
            }
            List<SourceColumn> all = describe(connection);
            List<SourceColumn> selected = selected(all);
            ColumnType splitType = splitColumn(all).type();
            BoundSql read = sql.readPartition(businessKey, selected.stream().map(SourceColumn::name).toList(), partition, splitType);
            PreparedStatement statement = read.prepare(connection);
            // With autocommit off and a fetch size, the driver reads through a cursor instead of buffering all rows.
            statement.setFetchSize(source.fetchSize());
            return new CursorRows(connection, statement, statement.executeQuery(), selected);
        } catch (SQLException e) {
            closeQuietly(connection);
            throw failure(e);
        } catch (RuntimeException e) {
            closeQuietly(connection);
            throw e;
        }
    }

    private SourcePlan measure(Connection connection, String snapshotId, String businessKey) throws SQLException {
        List<SourceColumn> all = describe(connection);
        SourceColumn split = splitColumn(all);
        if (!split.isSplittable()) {
            throw new SourceException("source.split_column " + source.splitColumn() + " is " + describeType(split)
                    + "; a split column must be an integer type");
        }
        List<SourceColumn> selected = selected(all);
        checkMetricColumns(selected);

        Map<String, String> metrics = new HashMap<>();
        SplitStats stats;
        try (PreparedStatement statement = sql.stats(businessKey, validation, selected).prepare(connection);
             ResultSet rs = statement.executeQuery()) {
            rs.next();
            stats = new SplitStats(rs.getLong(1), rs.getLong(2), integer(rs, 3), integer(rs, 4));
            int index = 5;
            metrics.put(MetricNames.COUNT, Long.toString(stats.rowCount()));
            for (String column : validation.sum()) {
                metrics.put(MetricNames.sum(column), MetricValues.format(rs.getBigDecimal(index++)));
            }
            for (String column : validation.min()) {
                metrics.put(MetricNames.min(column), MetricValues.format(JdbcValues.read(rs, index++, column(selected, column))));
            }
            for (String column : validation.max()) {
                metrics.put(MetricNames.max(column), MetricValues.format(JdbcValues.read(rs, index++, column(selected, column))));
            }
            for (String column : validation.nullCount()) {
                metrics.put(MetricNames.nullCount(column), Long.toString(rs.getLong(index++)));
            }
        }
        if (!validation.primaryKey().isEmpty()) {
            metrics.put(MetricNames.DUPLICATE_KEYS, Long.toString(singleLong(connection, sql.duplicateKeys(businessKey, validation.primaryKey()))));
        }

        List<PartitionBounds> bounds = PartitionPlanner.plan(stats.min(), stats.max(), source.partitions(), stats.nullCount() > 0);
        List<PartitionBounds> ranges = bounds.stream().filter(b -> !b.isNullPartition()).toList();
        long[] counts = new long[ranges.size()];
        if (stats.min() != null) {
            try (PreparedStatement statement = sql.partitionCounts(businessKey, ranges, split.type()).prepare(connection);
                 ResultSet rs = statement.executeQuery()) {
                rs.next();
                for (int i = 0; i < counts.length; i++) {
                    counts[i] = rs.getLong(i + 1);
                }
            }
        }
        List<Partition> partitions = new ArrayList<>();
        for (int i = 0; i < ranges.size(); i++) {
            partitions.add(ranges.get(i).withExpectedRowCount(counts[i]));
        }
        if (stats.nullCount() > 0) {
            partitions.add(PartitionBounds.nullPartition().withExpectedRowCount(stats.nullCount()));
        }
        return new SourcePlan(snapshotId, selected, stats, partitions, new MetricSet(metrics));
    }

    private List<SourceColumn> describe(Connection connection) throws SQLException {
        try (PreparedStatement statement = sql.describe().prepare(connection); ResultSet rs = statement.executeQuery()) {
            return JdbcValues.describe(rs.getMetaData());
        }
    }

    private SourceColumn splitColumn(List<SourceColumn> all) {
        return find(all, source.splitColumn()).orElseThrow(() -> new SourceException("source.split_column "
                + source.splitColumn() + " is not a column of " + relationName() + "; it has " + names(all)));
    }

    private List<SourceColumn> selected(List<SourceColumn> all) {
        if (source.columns().isEmpty()) {
            return all;
        }
        List<SourceColumn> selected = new ArrayList<>();
        for (String name : source.columns()) {
            selected.add(find(all, name).orElseThrow(() -> new SourceException("source.columns names " + name
                    + ", which is not a column of " + relationName() + "; it has " + names(all))));
        }
        return List.copyOf(selected);
    }

    private void checkMetricColumns(List<SourceColumn> selected) {
        for (String name : validation.referencedColumns()) {
            if (find(selected, name).isEmpty()) {
                throw new SourceException("validation names column " + name + ", which is not among the extracted columns " + names(selected));
            }
        }
        for (String name : validation.sum()) {
            SourceColumn column = column(selected, name);
            if (!SUMMABLE.contains(column.type())) {
                throw new SourceException("validation.sum names " + name + ", which is " + describeType(column) + "; SUM needs an integer or decimal column");
            }
        }
        List<String> ordered = new ArrayList<>(validation.min());
        ordered.addAll(validation.max());
        for (String name : ordered) {
            SourceColumn column = column(selected, name);
            if (!ORDERABLE.contains(column.type())) {
                throw new SourceException("validation min/max names " + name + ", which is " + describeType(column)
                        + "; MIN and MAX need a number, text, date or timestamp column");
            }
        }
    }

    private Connection connect() {
        Properties properties = new Properties();
        if (source.user() != null) {
            properties.setProperty("user", source.user());
        }
        String password = source.resolvePassword(environment);
        if (password != null) {
            properties.setProperty("password", password);
        }
        properties.setProperty("connectTimeout", "10");
        properties.setProperty("ApplicationName", "loadgate-worker");
        try {
            return DriverManager.getConnection(source.jdbcUrl(), properties);
        } catch (SQLException e) {
            throw new SourceException("cannot connect to " + masked(source.jdbcUrl()) + ": " + firstLine(e.getMessage()), e);
        }
    }

    /**
     * Autocommit off makes the driver send BEGIN before the first statement; SET TRANSACTION then fixes the
     * isolation explicitly, as the first statement, rather than trusting session defaults.
     */
    private static void beginRepeatableRead(Connection connection) throws SQLException {
        connection.setAutoCommit(false);
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
        }
    }

    private SourceException failure(SQLException e) {
        if (SNAPSHOT_TOO_OLD.equals(e.getSQLState())) {
            return new SnapshotExpiredException("the source snapshot is too old: " + firstLine(e.getMessage()), e);
        }
        if ("42P01".equals(e.getSQLState()) && source.table() != null) {
            return new SourceException("source.table " + source.table() + " does not exist in " + masked(source.jdbcUrl()), e);
        }
        return new SourceException("source query failed on " + relationName() + ": " + firstLine(e.getMessage()), e);
    }

    private String relationName() {
        return source.table() != null ? source.table() : "source.query";
    }

    private static long singleLong(Connection connection, BoundSql bound) throws SQLException {
        try (PreparedStatement statement = bound.prepare(connection); ResultSet rs = statement.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static BigInteger integer(ResultSet rs, int index) throws SQLException {
        java.math.BigDecimal value = rs.getBigDecimal(index);
        return value == null ? null : value.toBigIntegerExact();
    }

    private static SourceColumn column(List<SourceColumn> columns, String name) {
        return find(columns, name).orElseThrow(() -> new SourceException("no column " + name));
    }

    private static java.util.Optional<SourceColumn> find(List<SourceColumn> columns, String name) {
        // Unquoted identifiers fold case in SQL, so the spec's spelling matches the reported name in any case.
        return columns.stream().filter(c -> c.name().equalsIgnoreCase(name)).findFirst();
    }

    private static String names(List<SourceColumn> columns) {
        return columns.stream().map(SourceColumn::name).toList().toString();
    }

    private static String describeType(SourceColumn column) {
        return column.type() == ColumnType.DECIMAL
                ? "decimal(" + column.precision() + "," + column.scale() + ")"
                : column.type().name().toLowerCase(java.util.Locale.ROOT);
    }

    private static String masked(String jdbcUrl) {
        return jdbcUrl.replaceAll("(?i)(password=)[^&;]*", "$1***");
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "no message";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

    private static void closeQuietly(Connection connection) {
        try {
            connection.rollback();
        } catch (SQLException ignored) {
            // The connection may already be broken; closing below is all that matters.
        }
        try {
            connection.close();
        } catch (SQLException e) {
            LOG.debug("closing a source connection failed", e);
        }
    }

    /** The planner's open transaction; closing it ends the snapshot. */
    private static final class TransactionHolder implements SnapshotHolder {
        private final Connection connection;
        private final SourcePlan plan;
        private volatile boolean closed;

        TransactionHolder(Connection connection, SourcePlan plan) {
            this.connection = connection;
            this.plan = plan;
        }

        @Override
        public SourcePlan plan() {
            return plan;
        }

        @Override
        public boolean isAlive() {
            try {
                return !closed && connection.isValid(2);
            } catch (SQLException e) {
                return false;
            }
        }

        @Override
        public synchronized void close() {
            if (!closed) {
                closed = true;
                closeQuietly(connection);
                LOG.info("released snapshot {}", plan.snapshotRef());
            }
        }
    }

    /** A partition's cursor; its connection and transaction live exactly as long as it does. */
    private static final class CursorRows implements PartitionRows {
        private final Connection connection;
        private final Statement statement;
        private final ResultSet rs;
        private final List<SourceColumn> columns;
        private final Object[] row;

        CursorRows(Connection connection, Statement statement, ResultSet rs, List<SourceColumn> columns) {
            this.connection = connection;
            this.statement = statement;
            this.rs = rs;
            this.columns = columns;
            this.row = new Object[columns.size()];
        }

        @Override
        public List<SourceColumn> columns() {
            return columns;
        }

        @Override
        public boolean next() {
            try {
                if (!rs.next()) {
                    return false;
                }
                for (int i = 0; i < row.length; i++) {
                    row[i] = JdbcValues.read(rs, i + 1, columns.get(i));
                }
                return true;
            } catch (SQLException e) {
                if (SNAPSHOT_TOO_OLD.equals(e.getSQLState())) {
                    throw new SnapshotExpiredException("the source snapshot is too old: " + firstLine(e.getMessage()), e);
                }
                throw new SourceException("reading the source failed: " + firstLine(e.getMessage()), e);
            }
        }

        @Override
        public Object value(int index) {
            return row[index];
        }

        @Override
        public void close() {
            try {
                rs.close();
                statement.close();
            } catch (SQLException e) {
                LOG.debug("closing a partition cursor failed", e);
            }
            closeQuietly(connection);
        }
    }
}

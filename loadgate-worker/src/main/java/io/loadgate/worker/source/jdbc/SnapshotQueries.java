package io.loadgate.worker.source.jdbc;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.job.SourceMetricsTiming;
import io.loadgate.worker.job.SourceSpec;
import io.loadgate.worker.job.ValidationSpec;
import io.loadgate.worker.source.ColumnType;
import io.loadgate.worker.source.Partition;
import io.loadgate.worker.source.PartitionBounds;
import io.loadgate.worker.source.PartitionPlanner;
import io.loadgate.worker.source.SnapshotExpiredException;
import io.loadgate.worker.source.SourceColumn;
import io.loadgate.worker.source.SourceException;
import io.loadgate.worker.source.SourcePlan;
import io.loadgate.worker.source.SourceUnavailableException;
import io.loadgate.worker.source.SplitStats;
import io.loadgate.worker.validation.MetricNames;
import io.loadgate.worker.validation.MetricSet;
import io.loadgate.worker.validation.MetricValues;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

/**
 * What every snapshot source does on a connection that already sees the snapshot: check the job against the
 * relation's columns, measure the manifest and source metrics, and open a partition's cursor.
 */
final class SnapshotQueries {
    private static final Set<ColumnType> SUMMABLE = EnumSet.of(ColumnType.INT, ColumnType.LONG, ColumnType.DECIMAL);
    // Floats are left out of MIN/MAX: their text form differs between databases and Java for some values.
    private static final Set<ColumnType> ORDERABLE = EnumSet.of(ColumnType.INT, ColumnType.LONG, ColumnType.DECIMAL,
            ColumnType.STRING, ColumnType.DATE, ColumnType.TIMESTAMP, ColumnType.TIMESTAMPTZ);
    // undefined_table: PostgreSQL's and MySQL/MariaDB's codes.
    private static final Set<String> NO_SUCH_TABLE = Set.of("42P01", "42S02");

    private final SourceSpec source;
    private final ValidationSpec validation;
    private final SourceSql sql;

    SnapshotQueries(SourceSpec source, ValidationSpec validation, SourceSql sql) {
        this.source = requireNonNull(source, "source is null");
        this.validation = requireNonNull(validation, "validation is null");
        this.sql = requireNonNull(sql, "sql is null");
    }

    /** A further connection that already sees the planner's snapshot; the caller of {@code open} closes it. */
    @FunctionalInterface
    interface SnapshotConnections {
        Connection open() throws SQLException;
    }

    /** The split column's MIN and MAX at the snapshot; both null when it holds no value. */
    record SplitRange(BigInteger min, BigInteger max) {
    }

    /** The split column's range if it can be had without scanning the rows, else empty; see {@link #splitRange}. */
    @FunctionalInterface
    interface QuickRange {
        Optional<SplitRange> read() throws SQLException;
    }

    /** {@link SourceSql#splitRange}: cheap only where an index gives the ends; the caller bounds its time. */
    SplitRange splitRange(Connection connection, String businessKey) throws SQLException {
        try (PreparedStatement statement = sql.splitRange(businessKey).prepare(connection);
             ResultSet rs = statement.executeQuery()) {
            rs.next();
            return new SplitRange(integer(rs, 1), integer(rs, 2));
        }
    }

    /**
     * Measures the plan; with {@code beside}, the DUPLICATE_KEYS query runs on a connection of its own while this
     * one measures the totals and partition counts. The query groups every key, often the longest of the three,
     * and PostgreSQL runs its GROUP BY in one process: beside the other two it uses the cores they leave idle.
     * Both connections see the same snapshot, so the results are those of the sequential plan. With
     * {@link SourceMetricsTiming#DURING_EXTRACTION} the plan measures only the split column's totals and the partition
     * counts, and {@link #measureMetrics} measures the metrics later at the same snapshot. With {@code keysUnique}
     * (the server guarantees the primary key's uniqueness, see {@code PostgresSnapshotSource.keysUnique})
     * DUPLICATE_KEYS is 0 without its query. When {@code quickRange} gives the split column's range (after the
     * job's columns are checked), the partitions' bounds are known before the scan, so the scan that measures the
     * totals counts the partitions too: one pass over the rows instead of two.
     */
    SourcePlan measure(Connection connection, String snapshotRef, String businessKey, SnapshotConnections beside,
                       SourceMetricsTiming timing, boolean keysUnique, QuickRange quickRange) throws SQLException {
        List<SourceColumn> all = describe(connection);
        SourceColumn split = splitColumn(all);
        List<SourceColumn> selected = check(all, split);
        Optional<SplitRange> range = quickRange.read();
        List<PartitionBounds> ranges = range.filter(r -> r.min() != null)
                .map(r -> PartitionPlanner.plan(r.min(), r.max(), source.partitions(), false)).orElse(List.of());
        if (timing == SourceMetricsTiming.DURING_EXTRACTION) {
            SplitStats stats;
            long[] counts;
            try (PreparedStatement statement = sql.splitStats(businessKey, ranges, split.type()).prepare(connection);
                 ResultSet rs = statement.executeQuery()) {
                rs.next();
                stats = splitStats(rs);
                counts = rangeCounts(rs, 5, ranges.size());
            }
            return new SourcePlan(snapshotRef, selected, stats,
                    partitions(connection, businessKey, stats, split, range, ranges, counts), Optional.empty());
        }
        FutureTask<Long> duplicates = duplicates(connection, businessKey, beside, keysUnique);
        try {
            return measure(connection, snapshotRef, businessKey, selected, split, range, ranges, duplicates,
                    beside == null);
        } catch (SQLException | RuntimeException e) {
            settle(e, duplicates, beside);
            throw e;
        }
    }

    /**
     * The job's source metrics on {@code connection}, which sees the run's snapshot (a plan measured
     * {@link SourceMetricsTiming#DURING_EXTRACTION}); DUPLICATE_KEYS on a connection of its own when {@code beside} is
     * given, as in {@link #measure}. The same queries as while planning, so the same values.
     */
    MetricSet measureMetrics(Connection connection, String businessKey, SnapshotConnections beside, boolean keysUnique)
            throws SQLException {
        List<SourceColumn> all = describe(connection);
        List<SourceColumn> selected = check(all, splitColumn(all));
        FutureTask<Long> duplicates = duplicates(connection, businessKey, beside, keysUnique);
        try {
            Map<String, String> metrics;
            try (PreparedStatement statement = sql.stats(businessKey, validation, selected).prepare(connection);
                 ResultSet rs = statement.executeQuery()) {
                rs.next();
                metrics = metrics(rs, selected, splitStats(rs));
            }
            addDuplicates(metrics, duplicates, beside == null);
            return new MetricSet(metrics);
        } catch (SQLException | RuntimeException e) {
            settle(e, duplicates, beside);
            throw e;
        }
    }

    /**
     * The DUPLICATE_KEYS query, started beside when {@code beside} is given; null when the job asks for none; done,
     * with 0, when the server guarantees the keys unique.
     */
    private FutureTask<Long> duplicates(Connection connection, String businessKey, SnapshotConnections beside,
                                        boolean keysUnique) {
        if (validation.primaryKey().isEmpty()) {
            return null;
        }
        if (keysUnique) {
            FutureTask<Long> none = new FutureTask<>(() -> 0L);
            none.run();
            return none;
        }
        BoundSql query = sql.duplicateKeys(businessKey, validation.primaryKey());
        FutureTask<Long> duplicates = new FutureTask<>(() -> {
            if (beside == null) {
                return duplicateKeys(connection, query);
            }
            Connection side = beside.open();
            try {
                return duplicateKeys(side, query);
            } finally {
                SourceConnections.closeQuietly(side);
            }
        });
        if (beside != null) {
            Thread thread = new Thread(duplicates, "loadgate-plan-duplicate-keys");
            thread.setDaemon(true);
            thread.start();
        }
        return duplicates;
    }

    /** Lets a side query end before the caller releases the snapshot it reads; its outcome no longer matters. */
    private static void settle(Exception e, FutureTask<Long> duplicates, SnapshotConnections beside) {
        if (duplicates != null && beside != null) {
            try {
                await(duplicates);
            } catch (SQLException | RuntimeException side) {
                if (side != e) {
                    e.addSuppressed(side);
                }
            }
        }
    }

    private SourcePlan measure(Connection connection, String snapshotRef, String businessKey, List<SourceColumn> selected,
                               SourceColumn split, Optional<SplitRange> range, List<PartitionBounds> ranges,
                               FutureTask<Long> duplicates, boolean runDuplicatesHere) throws SQLException {
        Map<String, String> metrics;
        SplitStats stats;
        long[] counts;
        try (PreparedStatement statement = sql.stats(businessKey, validation, selected, ranges, split.type())
                .prepare(connection); ResultSet rs = statement.executeQuery()) {
            rs.next();
            stats = splitStats(rs);
            metrics = metrics(rs, selected, stats);
            counts = rangeCounts(rs, 5 + validation.sum().size() + validation.min().size() + validation.max().size()
                    + validation.nullCount().size(), ranges.size());
        }
        List<Partition> partitions = partitions(connection, businessKey, stats, split, range, ranges, counts);
        addDuplicates(metrics, duplicates, runDuplicatesHere);
        return new SourcePlan(snapshotRef, selected, stats, partitions, Optional.of(new MetricSet(metrics)));
    }

    private static SplitStats splitStats(ResultSet rs) throws SQLException {
        return new SplitStats(rs.getLong(1), rs.getLong(2), integer(rs, 3), integer(rs, 4));
    }

    /** The metrics of a {@link SourceSql#stats} row, after its four split columns. */
    private Map<String, String> metrics(ResultSet rs, List<SourceColumn> selected, SplitStats stats)
            throws SQLException {
        Map<String, String> metrics = new HashMap<>();
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
        return metrics;
    }

    private static void addDuplicates(Map<String, String> metrics, FutureTask<Long> duplicates, boolean runHere)
            throws SQLException {
        if (duplicates != null) {
            if (runHere) {
                duplicates.run();
            }
            metrics.put(MetricNames.DUPLICATE_KEYS, Long.toString(await(duplicates)));
        }
    }

    private static long duplicateKeys(Connection connection, BoundSql query) throws SQLException {
        try (PreparedStatement statement = query.prepare(connection); ResultSet rs = statement.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static long await(FutureTask<Long> task) throws SQLException {
        try {
            return task.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SourceException("interrupted while measuring the source", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof SQLException sql) {
                throw sql;
            }
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(cause);
        }
    }

    /**
     * The columns a reader would yield, after the checks planning makes on them: the split column exists and is an
     * integer, {@code source.columns} and the validation columns exist and suit their metrics. Reads no rows, and
     * closes {@code connection} (opened for this alone, outside any snapshot).
     */
    List<SourceColumn> checkAndClose(Connection connection) {
        try {
            List<SourceColumn> all = describe(connection);
            return check(all, splitColumn(all));
        } catch (SQLException e) {
            throw failure(e);
        } finally {
            SourceConnections.closeQuietly(connection);
        }
    }

    private List<SourceColumn> check(List<SourceColumn> all, SourceColumn split) {
        if (!split.isSplittable()) {
            throw new SourceException("source.split_column " + source.splitColumn() + " is " + describeType(split)
                    + "; a split column must be an integer type");
        }
        List<SourceColumn> selected = selected(all);
        checkMetricColumns(selected);
        return selected;
    }

    /** The statement reading one partition at the snapshot {@code connection} sees, and what it yields. */
    PartitionQuery partitionQuery(Connection connection, Partition partition, String businessKey) throws SQLException {
        try (PreparedStatement statement = sql.describe().prepare(connection); ResultSet rs = statement.executeQuery()) {
            ResultSetMetaData metadata = rs.getMetaData();
            List<SourceColumn> all = JdbcValues.describe(metadata);
            List<SourceColumn> selected = selected(all);
            List<String> typeNames = new ArrayList<>(selected.size());
            for (SourceColumn column : selected) {
                typeNames.add(metadata.getColumnTypeName(indexOf(all, column) + 1));
            }
            BoundSql read = sql.readPartition(businessKey, selected.stream().map(SourceColumn::name).toList(), partition,
                    splitColumn(all).type());
            return new PartitionQuery(read, selected, typeNames);
        }
    }

    /** The position of {@code column} itself (not an equal one: two columns may share a name and a type) in {@code all}. */
    private static int indexOf(List<SourceColumn> all, SourceColumn column) {
        for (int i = 0; i < all.size(); i++) {
            if (all.get(i) == column) {
                return i;
            }
        }
        throw new IllegalArgumentException("not a column of the list: " + column);
    }

    /** A cursor over one partition; {@code release} runs when the caller closes it. */
    CursorRows openCursor(Connection connection, PartitionQuery query, ConnectionRelease release) throws SQLException {
        PreparedStatement statement = query.sql().prepare(connection);
        try {
            // A fetch size makes the drivers stream (PostgreSQL through a cursor, with autocommit off) instead of
            // buffering the whole partition in memory.
            statement.setFetchSize(source.fetchSize());
            return new CursorRows(statement, statement.executeQuery(), query.columns(), release);
        } catch (SQLException | RuntimeException e) {
            statement.close();
            throw e;
        }
    }

    /** The one-line failure for an SQL error while planning or reading. */
    SourceException failure(SQLException e) {
        if (CursorRows.SNAPSHOT_TOO_OLD.equals(e.getSQLState())) {
            return new SnapshotExpiredException("the source snapshot is too old: " + SourceConnections.firstLine(e.getMessage()), e);
        }
        if (NO_SUCH_TABLE.contains(e.getSQLState()) && source.table() != null) {
            return new SourceException("source.table " + source.table() + " does not exist in "
                    + SourceConnections.masked(source.jdbcUrl()), e);
        }
        String message = "source query failed on " + relationName() + ": " + SourceConnections.firstLine(e.getMessage());
        return SourceUnavailableException.isUnavailable(e) ? new SourceUnavailableException(message, e)
                : new SourceException(message, e);
    }

    private static long[] rangeCounts(ResultSet rs, int first, int ranges) throws SQLException {
        long[] counts = new long[ranges];
        for (int i = 0; i < ranges; i++) {
            counts[i] = rs.getLong(first + i);
        }
        return counts;
    }

    /**
     * The plan's partitions: the {@code counted} ranges, planned from {@code range} and counted by the scan that
     * measured {@code stats}, when there are any; otherwise ranges planned from {@code stats} and counted now.
     */
    private List<Partition> partitions(Connection connection, String businessKey, SplitStats stats, SourceColumn split,
                                       Optional<SplitRange> range, List<PartitionBounds> counted, long[] counts)
            throws SQLException {
        List<PartitionBounds> ranges = counted;
        long[] rows = counts;
        if (!counted.isEmpty()) {
            SplitRange scanned = new SplitRange(stats.min(), stats.max());
            if (!range.orElseThrow().equals(scanned)) {
                // Both were read at one snapshot: a difference is a broken snapshot, never a reason to guess.
                throw new SourceException("the split column's range read at the snapshot was " + range.get()
                        + ", its scan found " + scanned);
            }
        } else if (stats.min() == null) {
            // No non-null split value: the ranges (the placeholder of an empty source) hold no rows.
            ranges = PartitionPlanner.plan(null, null, source.partitions(), stats.nullCount() > 0).stream()
                    .filter(b -> !b.isNullPartition()).toList();
            rows = new long[ranges.size()];
        } else {
            ranges = PartitionPlanner.plan(stats.min(), stats.max(), source.partitions(), false);
            try (PreparedStatement statement = sql.partitionCounts(businessKey, ranges, split.type()).prepare(connection);
                 ResultSet rs = statement.executeQuery()) {
                rs.next();
                rows = rangeCounts(rs, 1, ranges.size());
            }
        }
        List<Partition> partitions = new ArrayList<>();
        for (int i = 0; i < ranges.size(); i++) {
            partitions.add(ranges.get(i).withExpectedRowCount(rows[i]));
        }
        if (stats.nullCount() > 0) {
            partitions.add(PartitionBounds.nullPartition().withExpectedRowCount(stats.nullCount()));
        }
        return partitions;
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
                throw new SourceException("validation.sum names " + name + ", which is " + describeType(column)
                        + "; SUM needs an integer or decimal column");
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

    private String relationName() {
        return source.table() != null ? source.table() : "source.query";
    }

    private static BigInteger integer(ResultSet rs, int index) throws SQLException {
        BigDecimal value = rs.getBigDecimal(index);
        return value == null ? null : value.toBigIntegerExact();
    }

    private static SourceColumn column(List<SourceColumn> columns, String name) {
        return find(columns, name).orElseThrow(() -> new SourceException("no column " + name));
    }

    private static Optional<SourceColumn> find(List<SourceColumn> columns, String name) {
        // Unquoted identifiers fold case in SQL, so the spec's spelling matches the reported name in any case.
        return columns.stream().filter(c -> c.name().equalsIgnoreCase(name)).findFirst();
    }

    private static String names(List<SourceColumn> columns) {
        return columns.stream().map(SourceColumn::name).toList().toString();
    }

    private static String describeType(SourceColumn column) {
        return column.type() == ColumnType.DECIMAL
                ? "decimal(" + column.precision() + "," + column.scale() + ")"
                : column.type().name().toLowerCase(Locale.ROOT);
    }
}

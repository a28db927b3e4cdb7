package io.loadgate.worker.source.jdbc;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.job.SourceSpec;
import io.loadgate.worker.job.ValidationSpec;
import io.loadgate.worker.source.ColumnType;
import io.loadgate.worker.source.Partition;
import io.loadgate.worker.source.PartitionBounds;
import io.loadgate.worker.source.SourceColumn;
import io.loadgate.worker.source.SourceException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.BiFunction;

/**
 * The statements a snapshot source runs, for any SQL dialect: the dialect decides only how the relation is named
 * (a table, a subquery, an {@code AS OF SCN} clause) and how text is ordered for MIN/MAX. Identifiers come from a
 * validated {@link SourceSpec}; values (the business key, bounds) are always bind parameters.
 */
final class SourceSql {
    private final SourceSpec source;
    private final String relation;
    private final BiFunction<String, ColumnType, String> ordered;

    /**
     * @param relation the FROM item, e.g. {@code public.orders} or {@code (SELECT ...) src}
     * @param ordered wraps a column for MIN/MAX so that text orders the way {@code MetricCalculator} orders it
     */
    SourceSql(SourceSpec source, String relation, BiFunction<String, ColumnType, String> ordered) {
        this.source = requireNonNull(source, "source is null");
        this.relation = requireNonNull(relation, "relation is null");
        this.ordered = requireNonNull(ordered, "ordered is null");
    }

    /** No rows, only the result metadata: the relation's columns and types. */
    BoundSql describe() {
        return new BoundSql("SELECT * FROM " + relation + " WHERE 1 = 0", List.of());
    }

    /**
     * One scan for the manifest's totals and the job's metrics. Result columns: row count, split null count,
     * split min, split max, then SUM, MIN, MAX and NULL_COUNT columns in the order {@code validation} lists them.
     */
    BoundSql stats(String businessKey, ValidationSpec validation, List<SourceColumn> columns) {
        return stats(businessKey, validation, columns, List.of(), null);
    }

    /** As {@link #stats(String, ValidationSpec, List)}, then one row count per range of {@code ranges}. */
    BoundSql stats(String businessKey, ValidationSpec validation, List<SourceColumn> columns,
                   List<PartitionBounds> ranges, ColumnType splitType) {
        List<String> select = splitColumns();
        validation.sum().forEach(c -> select.add("SUM(" + c + ")"));
        validation.min().forEach(c -> select.add("MIN(" + ordered.apply(c, typeOf(columns, c)) + ")"));
        validation.max().forEach(c -> select.add("MAX(" + ordered.apply(c, typeOf(columns, c)) + ")"));
        validation.nullCount().forEach(c -> select.add("COUNT(*) - COUNT(" + c + ")"));
        return withRangeCounts(select, businessKey, ranges, splitType);
    }

    /** {@link #stats}' first four columns and the range counts: what a plan needs when the metrics come later. */
    BoundSql splitStats(String businessKey, List<PartitionBounds> ranges, ColumnType splitType) {
        return withRangeCounts(splitColumns(), businessKey, ranges, splitType);
    }

    /**
     * The split column's MIN and MAX alone. With an index on the column (and no filter, or one the index leads
     * with) the server reads the index's two ends instead of scanning the rows.
     */
    BoundSql splitRange(String businessKey) {
        String split = source.splitColumn();
        return new BoundSql("SELECT MIN(" + split + "), MAX(" + split + ") FROM " + relation + where(List.of()),
                filterParameters(businessKey));
    }

    private List<String> splitColumns() {
        String split = source.splitColumn();
        return new ArrayList<>(List.of("COUNT(*)", "COUNT(*) - COUNT(" + split + ")", "MIN(" + split + ")",
                "MAX(" + split + ")"));
    }

    /** One scan counting every range partition's rows; the NULL partition's count is the split null count. */
    BoundSql partitionCounts(String businessKey, List<PartitionBounds> ranges, ColumnType splitType) {
        return withRangeCounts(new ArrayList<>(), businessKey, ranges, splitType);
    }

    /** {@code select} and a row count per range, over the business key's rows. */
    private BoundSql withRangeCounts(List<String> select, String businessKey, List<PartitionBounds> ranges,
                                     ColumnType splitType) {
        List<Object> parameters = new ArrayList<>();
        for (PartitionBounds range : ranges) {
            select.add("COUNT(CASE WHEN " + rangeCondition(range) + " THEN 1 END)");
            parameters.add(bound(range.lowerBound(), splitType));
            parameters.add(bound(range.upperBound(), splitType));
        }
        parameters.addAll(filterParameters(businessKey));
        return new BoundSql("SELECT " + String.join(", ", select) + " FROM " + relation + where(List.of()), parameters);
    }

    /** Rows minus distinct keys; GROUP BY puts null keys in one group, as {@code MetricCalculator} does. */
    BoundSql duplicateKeys(String businessKey, List<String> keyColumns) {
        String keys = String.join(", ", keyColumns);
        return new BoundSql("SELECT COALESCE(SUM(n - 1), 0) FROM (SELECT COUNT(*) AS n FROM " + relation + where(List.of())
                + " GROUP BY " + keys + ") d", filterParameters(businessKey));
    }

    /** The rows of one partition, in the given columns. */
    BoundSql readPartition(String businessKey, List<String> columns, Partition partition, ColumnType splitType) {
        List<Object> parameters = new ArrayList<>(filterParameters(businessKey));
        String condition;
        if (partition.isNullPartition()) {
            condition = source.splitColumn() + " IS NULL";
        } else {
            PartitionBounds range = new PartitionBounds(partition.partitionId(), new BigInteger(partition.lowerBound()),
                    new BigInteger(partition.upperBound()), partition.upperInclusive());
            condition = rangeCondition(range);
            parameters.add(bound(range.lowerBound(), splitType));
            parameters.add(bound(range.upperBound(), splitType));
        }
        return new BoundSql("SELECT " + String.join(", ", columns) + " FROM " + relation + where(List.of(condition)), parameters);
    }

    private String rangeCondition(PartitionBounds range) {
        String split = source.splitColumn();
        return split + " >= ? AND " + split + (range.upperInclusive() ? " <= ?" : " < ?");
    }

    private String where(List<String> conditions) {
        List<String> all = new ArrayList<>();
        if (source.filter() != null) {
            all.add("(" + source.filterSql() + ")");
        }
        all.addAll(conditions);
        return all.isEmpty() ? "" : " WHERE " + String.join(" AND ", all);
    }

    private List<Object> filterParameters(String businessKey) {
        return Collections.nCopies(source.filterParameterCount(), businessKey);
    }

    /**
     * Binds a bound in the split column's own type: comparing an integer column with a numeric parameter would
     * cast the column and lose its index.
     */
    private static Object bound(BigInteger value, ColumnType splitType) {
        return splitType.isInteger() ? (Object) value.longValueExact() : new BigDecimal(value);
    }

    private static ColumnType typeOf(List<SourceColumn> columns, String name) {
        return columns.stream().filter(c -> c.name().equalsIgnoreCase(name)).findFirst()
                .orElseThrow(() -> new SourceException("no column " + name + " in the source")).type();
    }
}

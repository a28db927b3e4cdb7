package io.loadgate.worker.validation;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.job.ValidationSpec;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Computes a job's metrics over Iceberg generic records, one record at a time, so the same code measures staged
 * Parquet files and the published table. Names and formats equal what the source computes in SQL
 * ({@link MetricNames}, {@link MetricValues}): COUNT, SUM as exact decimals, MIN/MAX, NULL_COUNT, and
 * DUPLICATE_KEYS = rows minus distinct keys, nulls in a key comparing equal as in SQL GROUP BY.
 *
 * <p>Not thread-safe: to measure in parallel, give each thread its own calculator and {@link #merge} them. For a
 * single integer key the duplicate-key count holds a bounded buffer and spills sorted runs to disk
 * ({@link SortedKeyRuns}), any other key its values encoded as bytes in the same kind of runs ({@link SortedByteRuns}).
 */
public final class MetricCalculator {
    // Strings compare by code point, which is the order of UTF-8 bytes: the order of PostgreSQL's COLLATE "C".
    private static final Comparator<Object> NATURAL = MetricCalculator::compare;

    private final ValidationSpec spec;
    // Case-insensitive like SQL identifiers: the spec may spell one column differently in different lists.
    private final Map<String, Integer> positions = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    // Each metric's column position and running value, in spec order: the per-record path indexes arrays only
    // (a profile of the bench found name lookups and map merges taking a third of validation's time).
    private final int[] sumPositions;
    private final int[] minPositions;
    private final int[] maxPositions;
    private final int[] nullPositions;
    private final Sum[] sums;
    private final Object[] mins;
    private final Object[] maxs;
    // The extremes' column types: records may hold dates and timestamps as Iceberg's internal numbers, which compare
    // as the values do and are turned into dates and instants once, when the result is formatted.
    private final Type[] minTypes;
    private final Type[] maxTypes;
    private final long[] nulls;
    private final int[] keyPositions;
    private final DistinctKeys keys;
    private long count;

    public MetricCalculator(ValidationSpec spec, Schema schema) {
        this.spec = requireNonNull(spec, "spec is null");
        requireNonNull(schema, "schema is null");
        List<Types.NestedField> fields = schema.columns();
        for (String column : spec.referencedColumns()) {
            Types.NestedField field = schema.caseInsensitiveFindField(column);
            if (field == null) {
                throw new IllegalArgumentException("validation names column " + column + ", which the data does not have");
            }
            positions.put(column, fields.indexOf(field));
        }
        sumPositions = positionsOf(spec.sum());
        minPositions = positionsOf(spec.min());
        maxPositions = positionsOf(spec.max());
        nullPositions = positionsOf(spec.nullCount());
        sums = new Sum[sumPositions.length];
        for (int i = 0; i < sums.length; i++) {
            sums[i] = new Sum(spec.sum().get(i));
        }
        mins = new Object[minPositions.length];
        maxs = new Object[maxPositions.length];
        minTypes = Arrays.stream(minPositions).mapToObj(p -> fields.get(p).type()).toArray(Type[]::new);
        maxTypes = Arrays.stream(maxPositions).mapToObj(p -> fields.get(p).type()).toArray(Type[]::new);
        nulls = new long[nullPositions.length];
        keyPositions = positionsOf(spec.primaryKey());
        keys = keyPositions.length > 0 ? DistinctKeys.of(schema, keyPositions) : null;
    }

    private int[] positionsOf(List<String> columns) {
        return columns.stream().mapToInt(positions::get).toArray();
    }

    public void accept(Record record) {
        count++;
        for (int i = 0; i < sumPositions.length; i++) {
            Object value = record.get(sumPositions[i]);
            if (value != null) {
                sums[i].add(value);
            }
        }
        for (int i = 0; i < minPositions.length; i++) {
            Object value = record.get(minPositions[i]);
            if (value != null && (mins[i] == null || NATURAL.compare(value, mins[i]) < 0)) {
                mins[i] = value;
            }
        }
        for (int i = 0; i < maxPositions.length; i++) {
            Object value = record.get(maxPositions[i]);
            if (value != null && (maxs[i] == null || NATURAL.compare(value, maxs[i]) > 0)) {
                maxs[i] = value;
            }
        }
        for (int i = 0; i < nullPositions.length; i++) {
            if (record.get(nullPositions[i]) == null) {
                nulls[i]++;
            }
        }
        if (keys != null) {
            keys.add(record);
        }
    }

    /**
     * Adds what {@code other} measured to this calculator, as if this one had accepted its records too: counts and
     * sums add (exactly), extremes compare, key sets unite. {@code other} must measure the same spec over the same
     * schema, and is not to be used afterwards.
     */
    public void merge(MetricCalculator other) {
        requireNonNull(other, "other is null");
        if (!spec.equals(other.spec) || !Arrays.equals(keyPositions, other.keyPositions)
                || !positions.equals(other.positions)) {
            throw new IllegalArgumentException("cannot merge metrics of another spec or schema");
        }
        count += other.count;
        for (int i = 0; i < sums.length; i++) {
            sums[i].addAll(other.sums[i]);
        }
        for (int i = 0; i < mins.length; i++) {
            offerMin(i, other.mins[i]);
        }
        for (int i = 0; i < maxs.length; i++) {
            offerMax(i, other.maxs[i]);
        }
        for (int i = 0; i < nulls.length; i++) {
            nulls[i] += other.nulls[i];
        }
        if (keys != null) {
            keys.addAll(other.keys);
        }
    }

    /*
     * The column-oriented entry points: ColumnarMetrics decodes a file's columns itself and hands over what it
     * measured, indexed as the spec lists the metrics, in the same Java forms accept(Record) receives from Iceberg's
     * internal reader, so merging and the result stay this one implementation.
     */

    void addRows(long rows) {
        count += rows;
    }

    /** Adds {@code partial}, the exact sum of a part's non-null values of the {@code metric}th SUM column. */
    void addSum(int metric, BigDecimal partial) {
        sums[metric].addDecimal(requireNonNull(partial, "partial is null"));
    }

    /** Offers a part's least value of the {@code metric}th MIN column; null when it had none. */
    void offerMin(int metric, Object value) {
        if (value != null && (mins[metric] == null || NATURAL.compare(value, mins[metric]) < 0)) {
            mins[metric] = value;
        }
    }

    /** Offers a part's greatest value of the {@code metric}th MAX column; null when it had none. */
    void offerMax(int metric, Object value) {
        if (value != null && (maxs[metric] == null || NATURAL.compare(value, maxs[metric]) > 0)) {
            maxs[metric] = value;
        }
    }

    void addNulls(int metric, long count) {
        nulls[metric] += count;
    }

    /** The distinct keys, for a reader to add a part's keys to; null when the spec has no primary key. */
    DistinctKeys keys() {
        return keys;
    }

    /** Called by {@link ParallelMetrics} on the reading thread when a part ends; see {@link DistinctKeys#settle}. */
    void partRead() {
        if (keys != null) {
            keys.settle();
        }
    }

    public MetricSet result() {
        Map<String, String> values = new HashMap<>();
        values.put(MetricNames.COUNT, Long.toString(count));
        for (int i = 0; i < sums.length; i++) {
            values.put(MetricNames.sum(spec.sum().get(i)), MetricValues.format(sums[i].value()));
        }
        for (int i = 0; i < mins.length; i++) {
            values.put(MetricNames.min(spec.min().get(i)),
                    MetricValues.format(MetricValues.asGeneric(minTypes[i], mins[i])));
        }
        for (int i = 0; i < maxs.length; i++) {
            values.put(MetricNames.max(spec.max().get(i)),
                    MetricValues.format(MetricValues.asGeneric(maxTypes[i], maxs[i])));
        }
        for (int i = 0; i < nulls.length; i++) {
            values.put(MetricNames.nullCount(spec.nullCount().get(i)), MetricValues.format(nulls[i]));
        }
        if (keys != null) {
            values.put(MetricNames.DUPLICATE_KEYS, Long.toString(count - keys.count()));
        }
        return new MetricSet(values);
    }

    /**
     * An exact sum: integers add as a {@code long} while it does not overflow (then into the decimal), decimals as
     * {@link BigDecimal}s; null when nothing was added, as SQL's SUM of no rows.
     */
    private static final class Sum {
        private final String column;
        private BigDecimal decimal;
        private long integer;
        private boolean anyInteger;

        Sum(String column) {
            this.column = column;
        }

        void add(Object value) {
            if (value instanceof Integer || value instanceof Long) {
                long v = ((Number) value).longValue();
                long sum = integer + v;
                // Overflow iff both operands have the sign opposite to the result's.
                if (((integer ^ sum) & (v ^ sum)) < 0) {
                    addDecimal(BigDecimal.valueOf(integer));
                    integer = v;
                } else {
                    integer = sum;
                }
                anyInteger = true;
            } else if (value instanceof BigDecimal d) {
                addDecimal(d);
            } else {
                throw new IllegalArgumentException("SUM:" + column + " needs an integer or decimal column, got "
                        + value.getClass().getSimpleName());
            }
        }

        private void addDecimal(BigDecimal value) {
            decimal = decimal == null ? value : decimal.add(value);
        }

        void addAll(Sum other) {
            BigDecimal theirs = other.value();
            if (theirs != null) {
                addDecimal(theirs);
            }
        }

        BigDecimal value() {
            if (!anyInteger) {
                return decimal;
            }
            BigDecimal small = BigDecimal.valueOf(integer);
            return decimal == null ? small : decimal.add(small);
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static int compare(Object a, Object b) {
        if (a instanceof CharSequence x && b instanceof CharSequence y) {
            return compareCodePoints(x.toString(), y.toString());
        }
        return ((Comparable) a).compareTo(b);
    }

    private static int compareCodePoints(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int x = a.codePointAt(i);
            int y = b.codePointAt(j);
            if (x != y) {
                return Integer.compare(x, y);
            }
            i += Character.charCount(x);
            j += Character.charCount(y);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }
}

package io.loadgate.worker.validation;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.job.ValidationSpec;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

/**
 * Computes a job's metrics over Iceberg generic records, one record at a time, so the same code measures staged
 * Parquet files and the published table. Names and formats equal what the source computes in SQL
 * ({@link MetricNames}, {@link MetricValues}): COUNT, SUM as exact decimals, MIN/MAX, NULL_COUNT, and
 * DUPLICATE_KEYS = rows minus distinct keys, nulls in a key comparing equal as in SQL GROUP BY.
 *
 * <p>Not thread-safe: to measure in parallel, give each thread its own calculator and {@link #merge} them. For a
 * single integer key the duplicate-key count holds a bounded buffer and spills sorted runs to disk
 * ({@link SortedKeyRuns}); any other key is kept in memory, a run-sized set on one worker.
 */
public final class MetricCalculator {
    // Strings compare by code point, which is the order of UTF-8 bytes: the order of PostgreSQL's COLLATE "C".
    private static final Comparator<Object> NATURAL = MetricCalculator::compare;

    private final ValidationSpec spec;
    // Case-insensitive like SQL identifiers: the spec may spell one column differently in different lists.
    private final Map<String, Integer> positions = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    private final Map<String, BigDecimal> sums = new LinkedHashMap<>();
    private final Map<String, Object> mins = new LinkedHashMap<>();
    private final Map<String, Object> maxs = new LinkedHashMap<>();
    private final Map<String, Long> nulls = new LinkedHashMap<>();
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
        keyPositions = spec.primaryKey().stream().mapToInt(positions::get).toArray();
        keys = keyPositions.length > 0 ? DistinctKeys.of(schema, keyPositions) : null;
        spec.nullCount().forEach(column -> nulls.put(column, 0L));
    }

    public void accept(Record record) {
        count++;
        for (String column : spec.sum()) {
            Object value = record.get(positions.get(column));
            if (value != null) {
                sums.merge(column, toDecimal(column, value), BigDecimal::add);
            }
        }
        for (String column : spec.min()) {
            Object value = record.get(positions.get(column));
            if (value != null) {
                mins.merge(column, value, (a, b) -> NATURAL.compare(a, b) <= 0 ? a : b);
            }
        }
        for (String column : spec.max()) {
            Object value = record.get(positions.get(column));
            if (value != null) {
                maxs.merge(column, value, (a, b) -> NATURAL.compare(a, b) >= 0 ? a : b);
            }
        }
        for (String column : spec.nullCount()) {
            if (record.get(positions.get(column)) == null) {
                nulls.merge(column, 1L, Long::sum);
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
        other.sums.forEach((column, sum) -> sums.merge(column, sum, BigDecimal::add));
        other.mins.forEach((column, min) -> mins.merge(column, min, (a, b) -> NATURAL.compare(a, b) <= 0 ? a : b));
        other.maxs.forEach((column, max) -> maxs.merge(column, max, (a, b) -> NATURAL.compare(a, b) >= 0 ? a : b));
        other.nulls.forEach((column, n) -> nulls.merge(column, n, Long::sum));
        if (keys != null) {
            keys.addAll(other.keys);
        }
    }

    public MetricSet result() {
        Map<String, String> values = new HashMap<>();
        values.put(MetricNames.COUNT, Long.toString(count));
        spec.sum().forEach(c -> values.put(MetricNames.sum(c), MetricValues.format(sums.get(c))));
        spec.min().forEach(c -> values.put(MetricNames.min(c), MetricValues.format(mins.get(c))));
        spec.max().forEach(c -> values.put(MetricNames.max(c), MetricValues.format(maxs.get(c))));
        spec.nullCount().forEach(c -> values.put(MetricNames.nullCount(c), MetricValues.format(nulls.get(c))));
        if (keys != null) {
            values.put(MetricNames.DUPLICATE_KEYS, Long.toString(count - keys.count()));
        }
        return new MetricSet(values);
    }

    private static BigDecimal toDecimal(String column, Object value) {
        if (value instanceof BigDecimal decimal) {
            return decimal;
        }
        if (value instanceof Integer || value instanceof Long) {
            return BigDecimal.valueOf(((Number) value).longValue());
        }
        throw new IllegalArgumentException("SUM:" + column + " needs an integer or decimal column, got " + value.getClass().getSimpleName());
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

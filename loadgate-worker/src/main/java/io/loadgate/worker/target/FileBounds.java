package io.loadgate.worker.target;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.validation.MetricValues;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.types.Comparators;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * A column's MIN or MAX over data files from their manifest entries' lower and upper bounds, where those are exact:
 * what an engine answers {@code SELECT min(c)} with when it pushes the aggregate down to the table's metadata.
 *
 * <p>Exact means every file that holds a non-null value of the column has a bound for it, and the column's type keeps
 * its bounds whole: integers, longs, dates, times, timestamps and decimals of at most 18 digits, which Parquet stores as
 * INT32/INT64 with statistics of the full value. Not strings or binary (Iceberg truncates their bounds to 16 characters
 * by default, and parquet-java writes no min/max for a chunk whose value exceeds 4 KiB), not wider decimals (fixed-length
 * bytes, whose legacy statistics were ordered as unsigned bytes), not floats and doubles (NaN has no place in the order the
 * source's SQL uses, and -0.0 and 0.0 are one value to it but not to the bounds). A file whose value or null count is
 * missing (metrics mode {@code none}, or a row group without statistics, which makes Iceberg drop the column's
 * metrics) or that has non-null values but no bound (mode {@code counts}) makes the column unknown: the caller reads it.
 */
final class FileBounds {
    private FileBounds() {
    }

    /** The formatted MIN of {@code field} over {@code files} ({@link MetricValues#NONE} if all null), if exact. */
    static Optional<String> min(Collection<? extends ContentFile<?>> files, Types.NestedField field) {
        return extreme(files, field, true);
    }

    /** The formatted MAX of {@code field} over {@code files} ({@link MetricValues#NONE} if all null), if exact. */
    static Optional<String> max(Collection<? extends ContentFile<?>> files, Types.NestedField field) {
        return extreme(files, field, false);
    }

    private static Optional<String> extreme(Collection<? extends ContentFile<?>> files, Types.NestedField field,
                                            boolean lower) {
        requireNonNull(files, "files is null");
        requireNonNull(field, "field is null");
        Type.PrimitiveType type = field.type().isPrimitiveType() ? field.type().asPrimitiveType() : null;
        if (type == null || !exact(type)) {
            return Optional.empty();
        }
        int id = field.fieldId();
        Object best = null;
        for (ContentFile<?> file : files) {
            Long values = get(file.valueCounts(), id);
            Long nulls = get(file.nullValueCounts(), id);
            if (values == null || nulls == null) {
                return Optional.empty();
            }
            if (values - nulls == 0) {
                // Only nulls: no bound is written, and none is needed.
                continue;
            }
            ByteBuffer bound = get(lower ? file.lowerBounds() : file.upperBounds(), id);
            if (bound == null) {
                return Optional.empty();
            }
            Object value = Conversions.fromByteBuffer(type, bound);
            int order = best == null ? 0 : order(type).compare(value, best);
            if (best == null || (lower ? order < 0 : order > 0)) {
                best = value;
            }
        }
        return Optional.of(MetricValues.format(MetricValues.asGeneric(type, best)));
    }

    private static Comparator<Object> order(Type.PrimitiveType type) {
        return Comparators.forType(type);
    }

    private static boolean exact(Type.PrimitiveType type) {
        return switch (type.typeId()) {
            case INTEGER, LONG, DATE, TIME, TIMESTAMP -> true;
            case DECIMAL -> ((Types.DecimalType) type).precision() <= 18;
            default -> false;
        };
    }

    private static <V> V get(Map<Integer, V> map, int id) {
        return map == null ? null : map.get(id);
    }
}

package io.loadgate.worker.validation;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;

/**
 * The distinct primary-key values seen, for DUPLICATE_KEYS = rows minus distinct keys. Nulls in a key compare
 * equal, as in SQL GROUP BY. Not thread-safe; sets filled apart (one per file) are merged with {@link #addAll}.
 */
abstract sealed class DistinctKeys permits DistinctKeys.IntegerKey, DistinctKeys.AnyKey {
    /** The cheapest set that holds keys of these columns exactly. */
    static DistinctKeys of(Schema schema, int[] keyPositions) {
        if (keyPositions.length == 1) {
            Type.TypeID type = schema.columns().get(keyPositions[0]).type().typeId();
            if (type == Type.TypeID.INTEGER || type == Type.TypeID.LONG) {
                return new IntegerKey(keyPositions[0]);
            }
        }
        return new AnyKey(keyPositions);
    }

    abstract void add(Record record);

    abstract void addAll(DistinctKeys other);

    abstract long count();

    /** A part (a file, a scan task) was read to its end: a chance to tidy up on the thread that read it. */
    void settle() {
    }

    /**
     * One int or bigint column: its values as primitive longs, null apart, in sorted runs that spill to disk, so
     * memory stays flat however many rows (see {@link SortedKeyRuns}).
     */
    static final class IntegerKey extends DistinctKeys {
        private final int position;
        private final SortedKeyRuns values = new SortedKeyRuns();
        private boolean sawNull;

        IntegerKey(int position) {
            this.position = position;
        }

        @Override
        void add(Record record) {
            Object value = record.get(position);
            if (value == null) {
                sawNull = true;
            } else {
                values.add(((Number) value).longValue());
            }
        }

        @Override
        void addAll(DistinctKeys other) {
            IntegerKey keys = (IntegerKey) other;
            values.addAll(keys.values);
            sawNull |= keys.sawNull;
        }

        @Override
        long count() {
            return values.count() + (sawNull ? 1 : 0);
        }

        @Override
        void settle() {
            values.settle();
        }
    }

    /** Any columns: each key as a list of its values, all in memory (a composite or text key is not spilled yet). */
    static final class AnyKey extends DistinctKeys {
        private final int[] positions;
        private final Set<List<Object>> keys = new HashSet<>();

        AnyKey(int[] positions) {
            this.positions = positions.clone();
        }

        @Override
        void add(Record record) {
            List<Object> key = new ArrayList<>(positions.length);
            for (int position : positions) {
                key.add(record.get(position));
            }
            keys.add(key);
        }

        @Override
        void addAll(DistinctKeys other) {
            keys.addAll(((AnyKey) other).keys);
        }

        @Override
        long count() {
            return keys.size();
        }
    }
}

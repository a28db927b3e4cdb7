package io.loadgate.worker.validation;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.temporal.Temporal;
import java.util.UUID;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;

/**
 * The distinct primary-key values seen, for DUPLICATE_KEYS = rows minus distinct keys. Nulls in a key compare
 * equal, as in SQL GROUP BY. Not thread-safe; sets filled apart (one per file) are merged with {@link #addAll}.
 */
abstract sealed class DistinctKeys permits DistinctKeys.IntegerKey, DistinctKeys.EncodedKey {
    /** The cheapest set that holds keys of these columns exactly. */
    static DistinctKeys of(Schema schema, int[] keyPositions) {
        if (keyPositions.length == 1) {
            Type.TypeID type = schema.columns().get(keyPositions[0]).type().typeId();
            if (type == Type.TypeID.INTEGER || type == Type.TypeID.LONG) {
                return new IntegerKey(keyPositions[0]);
            }
        }
        return new EncodedKey(keyPositions);
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
                addNull();
            } else {
                add(((Number) value).longValue());
            }
        }

        /** One row's key, for readers that decode the column without records ({@link ColumnarMetrics}). */
        void add(long value) {
            values.add(value);
        }

        void addNull() {
            sawNull = true;
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

    /**
     * Any other key (text, composite, dates, decimals): each key encoded as bytes, one value after another, so that
     * two keys encode alike exactly when their values are equal (as {@code List.equals} of the values would say),
     * counted in sorted runs that spill to disk like the integer key's ({@link SortedByteRuns}).
     */
    static final class EncodedKey extends DistinctKeys {
        private final int[] positions;
        private final SortedByteRuns keys = new SortedByteRuns();
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        private final DataOutputStream out = new DataOutputStream(bytes);

        EncodedKey(int[] positions) {
            this.positions = positions.clone();
        }

        @Override
        void add(Record record) {
            start();
            try {
                for (int position : positions) {
                    append(record.get(position));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            finish();
        }

        /*
         * One key built value by value, for readers that decode columns without records (ColumnarMetrics):
         * start(), an append per key column in key order, finish(). The typed appends write what append(Object)
         * writes for the value's boxed form, so a key encodes alike whichever reader decoded it.
         */

        void start() {
            bytes.reset();
        }

        void finish() {
            keys.add(bytes.toByteArray());
        }

        void appendNull() throws IOException {
            out.writeByte(0);
        }

        void appendLong(long value) throws IOException {
            out.writeByte(1);
            out.writeLong(value);
        }

        void appendInt(int value) throws IOException {
            out.writeByte(2);
            out.writeInt(value);
        }

        /** A string's UTF-8 bytes, which is what {@code getBytes(UTF_8)} gives back for a string decoded from them. */
        void appendText(byte[] utf8) throws IOException {
            lengthPrefixed(3, utf8);
        }

        /**
         * A tag byte for null or the value's kind, then the value: fixed width for numbers, length-prefixed for
         * the rest, so no two different sequences of values encode alike. Decimals keep their scale, as
         * {@code BigDecimal.equals} does (a column's values share one scale anyway).
         */
        void append(Object value) throws IOException {
            if (value == null) {
                appendNull();
            } else if (value instanceof Long v) {
                appendLong(v);
            } else if (value instanceof Integer v) {
                appendInt(v);
            } else if (value instanceof CharSequence v) {
                appendText(v.toString().getBytes(StandardCharsets.UTF_8));
            } else if (value instanceof BigDecimal v) {
                lengthPrefixed(4, v.unscaledValue().toByteArray());
                out.writeInt(v.scale());
            } else if (value instanceof Boolean v) {
                out.writeByte(v ? 5 : 6);
            } else if (value instanceof Double v) {
                out.writeByte(7);
                out.writeLong(Double.doubleToLongBits(v));
            } else if (value instanceof Float v) {
                out.writeByte(8);
                out.writeInt(Float.floatToIntBits(v));
            } else if (value instanceof ByteBuffer v) {
                byte[] content = new byte[v.remaining()];
                v.duplicate().get(content);
                lengthPrefixed(9, content);
            } else if (value instanceof byte[] v) {
                lengthPrefixed(9, v);
            } else if (value instanceof UUID v) {
                out.writeByte(10);
                out.writeLong(v.getMostSignificantBits());
                out.writeLong(v.getLeastSignificantBits());
            } else if (value instanceof Temporal v) {
                // ISO-8601 text, with the offset where there is one, is one-to-one with the value's equality.
                lengthPrefixed(11, (v.getClass().getSimpleName() + v).getBytes(StandardCharsets.UTF_8));
            } else {
                throw new IllegalStateException("no key encoding for a " + value.getClass().getName());
            }
        }

        private void lengthPrefixed(int tag, byte[] content) throws IOException {
            out.writeByte(tag);
            out.writeInt(content.length);
            out.write(content);
        }

        @Override
        void addAll(DistinctKeys other) {
            keys.addAll(((EncodedKey) other).keys);
        }

        @Override
        long count() {
            return keys.count();
        }

        @Override
        void settle() {
            keys.settle();
        }
    }
}

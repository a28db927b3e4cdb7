package io.loadgate.worker.validation;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.job.ValidationSpec;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.IntStream;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveComparator;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * Measures Parquet files column by column: each row group's pages of each metric's column are decoded with
 * parquet-java's {@link ColumnReader} straight into primitive running values (the definition level says null or
 * not), with no record, no boxed value per row and no decoding of values only null-counted. What a file measured is
 * handed to a {@link MetricCalculator} in the forms its {@code accept(Record)} receives from Iceberg's internal
 * reader, so the calculator's merge and result are the same for both readers.
 *
 * <p>The metrics are the record reader's: every value of a metric's column is decoded from the pages (footer and
 * page statistics are never read), sums are exact (integers and INT32/INT64 decimals as {@code long} until they
 * would overflow, wider decimals as {@link BigDecimal}), extremes compare as {@link MetricCalculator} compares
 * (strings by unsigned UTF-8 bytes, which is code point order), and keys encode as {@link DistinctKeys} encodes
 * them. {@link #of} declines a spec with a metric this reader does not decode, and {@link #measure} a file whose
 * columns are not stored as Iceberg's writer stores them; the caller reads those with the record reader.
 */
final class ColumnarMetrics {
    private static final Set<Type.TypeID> SUMMED = EnumSet.of(Type.TypeID.INTEGER, Type.TypeID.LONG, Type.TypeID.DECIMAL);
    private static final Set<Type.TypeID> ORDERED = EnumSet.of(Type.TypeID.INTEGER, Type.TypeID.LONG, Type.TypeID.DATE,
            Type.TypeID.TIME, Type.TypeID.TIMESTAMP, Type.TypeID.DECIMAL, Type.TypeID.STRING);
    // Values are read from the column readers directly; the converters a column reader is built with stay unused.
    private static final GroupConverter NO_RECORDS = new GroupConverter() {
        @Override
        public Converter getConverter(int fieldIndex) {
            return new PrimitiveConverter() {
            };
        }

        @Override
        public void start() {
        }

        @Override
        public void end() {
        }
    };

    private final List<Planned> columns;
    // Indexes into columns, in the spec's key order.
    private final int[] keyOrder;

    private ColumnarMetrics(List<Planned> columns, int[] keyOrder) {
        this.columns = List.copyOf(columns);
        this.keyOrder = keyOrder.clone();
    }

    /** A column of the read schema and the metrics it feeds, by their index in the spec's lists. */
    private record Planned(Types.NestedField field, int[] sums, int[] mins, int[] maxs, int[] nulls, boolean key) {
        boolean valuesNeeded() {
            return key || sums.length > 0 || mins.length > 0 || maxs.length > 0;
        }
    }

    /**
     * The columnar reader of {@code spec}'s metrics over files of {@code schema} (the calculator's), or empty when a
     * metric needs values of a type it does not decode (a SUM, MIN, MAX or key of a float, double, boolean, binary,
     * fixed or UUID column), a column the spec names is not in {@code schema}, or only COUNT is asked of a schema
     * without a primitive column.
     */
    static Optional<ColumnarMetrics> of(Schema schema, ValidationSpec spec) {
        requireNonNull(schema, "schema is null");
        requireNonNull(spec, "spec is null");
        if (spec.referencedColumns().stream().anyMatch(name -> schema.caseInsensitiveFindField(name) == null)) {
            // The calculator says which column the data lacks.
            return Optional.empty();
        }
        List<Planned> columns = new ArrayList<>();
        for (Types.NestedField field : schema.columns()) {
            Planned planned = new Planned(field, metricsOf(spec.sum(), schema, field), metricsOf(spec.min(), schema, field),
                    metricsOf(spec.max(), schema, field), metricsOf(spec.nullCount(), schema, field),
                    metricsOf(spec.primaryKey(), schema, field).length > 0);
            Type.TypeID type = field.type().typeId();
            if (planned.sums().length > 0 && !SUMMED.contains(type)
                    || (planned.mins().length > 0 || planned.maxs().length > 0 || planned.key()) && !ORDERED.contains(type)) {
                return Optional.empty();
            }
            if (planned.valuesNeeded() || planned.nulls().length > 0) {
                columns.add(planned);
            }
        }
        if (columns.isEmpty()) {
            // COUNT alone: the rows are the row groups' counts, and one column's pages must hold a value or a null for
            // each of them (ColumnPages fails a chunk that does not), as for any spec this reader takes. The record
            // reader decoded every column of every row to count it (docs/validation.md: 15 times as long).
            Optional<Types.NestedField> counted = countedBy(schema);
            if (counted.isEmpty()) {
                return Optional.empty();
            }
            columns.add(new Planned(counted.get(), new int[0], new int[0], new int[0], new int[0], false));
        }
        int[] keyOrder = spec.primaryKey().stream().mapToInt(name -> {
            int id = schema.caseInsensitiveFindField(name).fieldId();
            return IntStream.range(0, columns.size()).filter(i -> columns.get(i).field().fieldId() == id).findFirst()
                    .orElseThrow();
        }).toArray();
        return Optional.of(new ColumnarMetrics(columns, keyOrder));
    }

    /**
     * The column whose pages count a file's rows when no metric reads one: a required primitive column (no levels to
     * decode, its values skipped), else an optional one (its definition levels decoded).
     */
    private static Optional<Types.NestedField> countedBy(Schema schema) {
        return schema.columns().stream().filter(field -> field.type().isPrimitiveType())
                .min(Comparator.comparing(Types.NestedField::isOptional));
    }

    private static int[] metricsOf(List<String> metricColumns, Schema schema, Types.NestedField field) {
        return IntStream.range(0, metricColumns.size())
                .filter(i -> schema.caseInsensitiveFindField(metricColumns.get(i)).fieldId() == field.fieldId())
                .toArray();
    }

    /**
     * Measures {@code file} into {@code calculator} and returns true, or returns false having read nothing when a
     * column is missing from the file or not stored as this reader decodes it (then read the file with records).
     */
    boolean measure(InputFile file, MetricCalculator calculator) throws IOException {
        requireNonNull(calculator, "calculator is null");
        // The pages ColumnPages has read are handed back to the codecs, to decompress the next page into, and a
        // column's chunk buffers are read into again once its row group is closed: nothing here keeps their bytes.
        ReadCodecs codecs = ParquetFiles.codecs();
        try (ParquetFileReader reader = ParquetFiles.open(file, new ReadBuffers(), codecs)) {
            MessageType fileSchema = reader.getFileMetaData().getSchema();
            List<org.apache.parquet.schema.Type> projected = new ArrayList<>();
            for (Planned planned : columns) {
                org.apache.parquet.schema.Type type = topLevel(fileSchema, planned.field().fieldId());
                if (type == null) {
                    return false;
                }
                projected.add(type);
            }
            MessageType projection = new MessageType(fileSchema.getName(), projected);
            List<Column> states = new ArrayList<>();
            for (int i = 0; i < columns.size(); i++) {
                Column column = Column.of(columns.get(i),
                        projection.getColumnDescription(new String[] {projected.get(i).getName()}));
                if (column == null) {
                    return false;
                }
                states.add(column);
            }
            List<Column> keyColumns = states.stream().filter(c -> c.planned.key()).toList();
            List<Column> key = IntStream.of(keyOrder).mapToObj(states::get).toList();
            // A lone integer key is a column like the others: each value goes to the key set as it is decoded.
            DistinctKeys.IntegerKey integerKey = calculator.keys() instanceof DistinctKeys.IntegerKey integers
                    ? integers : null;
            String createdBy = reader.getFileMetaData().getCreatedBy();
            long rows = 0;
            List<BlockMetaData> blocks = reader.getRowGroups();
            for (int index = 0; index < blocks.size(); index++) {
                BlockMetaData block = blocks.get(index);
                long groupRows = block.getRowCount();
                if (groupRows == 0) {
                    continue;
                }
                boolean keysRead = keyColumns.isEmpty();
                for (Column column : states) {
                    boolean loneKey = integerKey != null && column.planned.key();
                    if (column.planned.key() && !loneKey) {
                        continue;
                    }
                    MessageType alone = projection(projection, List.of(column));
                    try (PageReadStore group = read(reader, index, alone)) {
                        ColumnChunkMetaData chunk = chunk(block, column.descriptor);
                        if (column.byPages() && chunk != null && ColumnPages.decodes(chunk, column.descriptor, column.planned.valuesNeeded())) {
                            long nulls = ColumnPages.read(group.getPageReader(column.descriptor), column.descriptor,
                                    groupRows, loneKey ? ((LongColumn) column).keySink(integerKey) : column.pageSink(),
                                    codecs::recycle);
                            column.addNulls(nulls);
                            if (loneKey) {
                                if (nulls > 0) {
                                    integerKey.addNull();
                                }
                                keysRead = true;
                            }
                        } else if (!loneKey) {
                            column.readAll(new ColumnReadStoreImpl(group, NO_RECORDS, alone, createdBy)
                                    .getColumnReader(column.descriptor), groupRows);
                        }
                    }
                }
                if (!keysRead) {
                    MessageType keys = projection(projection, keyColumns);
                    try (PageReadStore group = read(reader, index, keys)) {
                        readKeys(new ColumnReadStoreImpl(group, NO_RECORDS, keys, createdBy), groupRows, keyColumns, key,
                                calculator.keys());
                    }
                }
                rows += groupRows;
            }
            calculator.addRows(rows);
            for (Column column : states) {
                column.emit(calculator);
            }
            return true;
        }
    }

    /**
     * Row group {@code index}'s chunks of {@code columns} alone. Why one column at a time: a row group read at once
     * holds every metric column's compressed chunk (~15 MB for a 1,000,000-row chunk of the bench's table) until its
     * last column is decoded, a few hundred milliseconds, long enough to outlive young collections and be promoted;
     * the old generation filled with them is what made G1 grow the heap through a long load (docs/validation.md).
     */
    private static PageReadStore read(ParquetFileReader reader, int index, MessageType columns) throws IOException {
        reader.setRequestedSchema(columns);
        return reader.readRowGroup(index);
    }

    private static MessageType projection(MessageType projection, List<Column> columns) {
        return new MessageType(projection.getName(), columns.stream()
                .map(column -> projection.getType(column.descriptor.getPath()[0])).toList());
    }

    /** The chunk of {@code column} in {@code block}, or null. */
    private static ColumnChunkMetaData chunk(BlockMetaData block, ColumnDescriptor column) {
        for (ColumnChunkMetaData chunk : block.getColumns()) {
            if (Arrays.equals(chunk.getPath().toArray(), column.getPath())) {
                return chunk;
            }
        }
        return null;
    }

    /** A top-level, non-repeated primitive column of the file with this Iceberg field id, or null. */
    private static org.apache.parquet.schema.Type topLevel(MessageType fileSchema, int fieldId) {
        for (org.apache.parquet.schema.Type type : fileSchema.getFields()) {
            if (type.getId() != null && type.getId().intValue() == fieldId) {
                return type.isPrimitive() && !type.isRepetition(org.apache.parquet.schema.Type.Repetition.REPEATED)
                        ? type : null;
            }
        }
        return null;
    }

    /**
     * The key columns row by row in step, since a key is a row's values: their other metrics as they go, and each
     * row's key into {@code keys}. A single integer key goes to its longs as {@link DistinctKeys.IntegerKey#add(org.apache.iceberg.data.Record)}
     * adds it; any other is encoded before the readers move on, while the values' bytes are still the page's.
     */
    private static void readKeys(ColumnReadStoreImpl store, long rows, List<Column> keyColumns, List<Column> key,
                                 DistinctKeys keys) throws IOException {
        ColumnReader[] readers = keyColumns.stream().map(c -> store.getColumnReader(c.descriptor)).toArray(ColumnReader[]::new);
        if (keys instanceof DistinctKeys.IntegerKey integers) {
            LongColumn column = (LongColumn) keyColumns.get(0);
            ColumnReader reader = readers[0];
            for (long row = 0; row < rows; row++) {
                column.read(reader);
                if (column.isNull) {
                    integers.addNull();
                } else {
                    integers.add(column.value);
                }
                reader.consume();
            }
            return;
        }
        DistinctKeys.EncodedKey encoded = (DistinctKeys.EncodedKey) keys;
        for (long row = 0; row < rows; row++) {
            for (int i = 0; i < readers.length; i++) {
                keyColumns.get(i).read(readers[i]);
            }
            encoded.start();
            for (Column column : key) {
                column.appendKey(encoded);
            }
            encoded.finish();
            for (ColumnReader reader : readers) {
                reader.consume();
            }
        }
    }

    /** One file's running values of one column, handed to the calculator when the file has been read. */
    private abstract static class Column {
        final Planned planned;
        final ColumnDescriptor descriptor;
        private final int defined;
        private long nulls;
        // Whether the value last read was null.
        boolean isNull;

        Column(Planned planned, ColumnDescriptor descriptor) {
            this.planned = planned;
            this.descriptor = descriptor;
            this.defined = descriptor.getMaxDefinitionLevel();
        }

        /** This reader's running values for a column stored as Iceberg's writer stores its type, else null. */
        static Column of(Planned planned, ColumnDescriptor descriptor) {
            if (!planned.valuesNeeded()) {
                return new NullCount(planned, descriptor);
            }
            PrimitiveTypeName physical = descriptor.getPrimitiveType().getPrimitiveTypeName();
            LogicalTypeAnnotation logical = descriptor.getPrimitiveType().getLogicalTypeAnnotation();
            boolean int32 = physical == PrimitiveTypeName.INT32;
            boolean int64 = physical == PrimitiveTypeName.INT64;
            Type type = planned.field().type();
            return switch (type.typeId()) {
                case INTEGER, DATE -> int32 ? new LongColumn(planned, descriptor, Form.INT, 0) : null;
                // An int column promoted to long keeps INT32 in older files; the record reader widens it too.
                case LONG -> int32 || int64 ? new LongColumn(planned, descriptor, Form.LONG, 0) : null;
                case TIME -> int64 && logical instanceof LogicalTypeAnnotation.TimeLogicalTypeAnnotation time
                        && time.getUnit() == LogicalTypeAnnotation.TimeUnit.MICROS
                        ? new LongColumn(planned, descriptor, Form.LONG, 0) : null;
                case TIMESTAMP -> int64 && logical instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation at
                        && at.getUnit() == LogicalTypeAnnotation.TimeUnit.MICROS
                        ? new LongColumn(planned, descriptor, Form.LONG, 0) : null;
                case DECIMAL -> {
                    int scale = ((Types.DecimalType) type).scale();
                    if (!(logical instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation decimal)
                            || decimal.getScale() != scale) {
                        yield null;
                    }
                    if (int32 || int64) {
                        yield new LongColumn(planned, descriptor, Form.DECIMAL, scale);
                    }
                    yield physical == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY || physical == PrimitiveTypeName.BINARY
                            ? new WideDecimalColumn(planned, descriptor, scale) : null;
                }
                case STRING -> physical == PrimitiveTypeName.BINARY ? new TextColumn(planned, descriptor) : null;
                default -> null;
            };
        }

        /** Decodes the reader's current value (or null) into the running values; the caller consumes it. */
        final void read(ColumnReader reader) {
            isNull = reader.getCurrentDefinitionLevel() != defined;
            if (isNull) {
                nulls++;
            } else {
                value(reader);
            }
        }

        final void readAll(ColumnReader reader, long rows) {
            for (long row = 0; row < rows; row++) {
                read(reader);
                reader.consume();
            }
        }

        final void addNulls(long count) {
            nulls += count;
        }

        /**
         * Whether {@link ColumnPages} may read this column's chunks: outside a key, or as a key of this one integer
         * column; the columns of any other key go row by row together.
         */
        boolean byPages() {
            return false;
        }

        /** Where {@link ColumnPages} puts the values; null when they are only null-counted. */
        ColumnPages.LongSink pageSink() {
            return null;
        }

        /** Takes the current value, which is not null. */
        abstract void value(ColumnReader reader);

        /** Appends the value last read to the row's key, as {@link DistinctKeys.EncodedKey#append} would its boxed form. */
        abstract void appendKey(DistinctKeys.EncodedKey key) throws IOException;

        void emit(MetricCalculator calculator) {
            for (int metric : planned.nulls()) {
                calculator.addNulls(metric, nulls);
            }
        }
    }

    /** A column only null-counted: its values are skipped, never decoded. */
    private static final class NullCount extends Column {
        NullCount(Planned planned, ColumnDescriptor descriptor) {
            super(planned, descriptor);
        }

        @Override
        void value(ColumnReader reader) {
            reader.skip();
        }

        @Override
        boolean byPages() {
            return true;
        }

        @Override
        void appendKey(DistinctKeys.EncodedKey key) {
            throw new IllegalStateException("a key column's values are decoded");
        }
    }

    /** The Java form Iceberg's internal reader gives a column's values in. */
    private enum Form {
        /** int, date (days): Integer. */
        INT,
        /** long, time and timestamps (microseconds): Long. */
        LONG,
        /** A decimal stored as its unscaled INT32 or INT64: BigDecimal. */
        DECIMAL
    }

    /** Integers, dates, times, timestamps and narrow decimals: compared and summed as their longs. */
    private static final class LongColumn extends Column {
        private final boolean int32;
        private final Form form;
        private final int scale;
        private final boolean summed;
        long value;
        private boolean any;
        private long min = Long.MAX_VALUE;
        private long max = Long.MIN_VALUE;
        private long sum;
        // What the sum held each time adding to it would have overflowed.
        private BigInteger overflowed = BigInteger.ZERO;

        LongColumn(Planned planned, ColumnDescriptor descriptor, Form form, int scale) {
            super(planned, descriptor);
            this.int32 = descriptor.getPrimitiveType().getPrimitiveTypeName() == PrimitiveTypeName.INT32;
            this.form = form;
            this.scale = scale;
            this.summed = planned.sums().length > 0;
        }

        @Override
        void value(ColumnReader reader) {
            accept(int32 ? reader.getInteger() : reader.getLong());
        }

        @Override
        boolean byPages() {
            return true;
        }

        @Override
        ColumnPages.LongSink pageSink() {
            return this::accept;
        }

        /** {@link #pageSink} for the table's lone integer key: each value also into {@code keys}. */
        ColumnPages.LongSink keySink(DistinctKeys.IntegerKey keys) {
            return v -> {
                accept(v);
                keys.add(v);
            };
        }

        private void accept(long v) {
            value = v;
            any = true;
            if (v < min) {
                min = v;
            }
            if (v > max) {
                max = v;
            }
            if (summed) {
                long next = sum + v;
                // Overflow iff both operands have the sign opposite to the result's (as MetricCalculator's Sum).
                if (((sum ^ next) & (v ^ next)) < 0) {
                    overflowed = overflowed.add(BigInteger.valueOf(sum));
                    next = v;
                }
                sum = next;
            }
        }

        @Override
        void appendKey(DistinctKeys.EncodedKey key) throws IOException {
            if (isNull) {
                key.appendNull();
            } else if (form == Form.INT) {
                key.appendInt((int) value);
            } else if (form == Form.LONG) {
                key.appendLong(value);
            } else {
                key.append(BigDecimal.valueOf(value, scale));
            }
        }

        private Object boxed(long v) {
            return switch (form) {
                case INT -> Integer.valueOf((int) v);
                case LONG -> Long.valueOf(v);
                case DECIMAL -> BigDecimal.valueOf(v, scale);
            };
        }

        @Override
        void emit(MetricCalculator calculator) {
            super.emit(calculator);
            if (!any) {
                return;
            }
            for (int metric : planned.sums()) {
                calculator.addSum(metric, new BigDecimal(overflowed.add(BigInteger.valueOf(sum)), scale));
            }
            for (int metric : planned.mins()) {
                calculator.offerMin(metric, boxed(min));
            }
            for (int metric : planned.maxs()) {
                calculator.offerMax(metric, boxed(max));
            }
        }
    }

    /** Decimals stored as two's complement bytes (precision above 18), as Iceberg's reader decodes them. */
    private static final class WideDecimalColumn extends Column {
        private final int scale;
        private final boolean summed;
        private BigDecimal value;
        private BigDecimal min;
        private BigDecimal max;
        private BigDecimal sum;

        WideDecimalColumn(Planned planned, ColumnDescriptor descriptor, int scale) {
            super(planned, descriptor);
            this.scale = scale;
            this.summed = planned.sums().length > 0;
        }

        @Override
        void value(ColumnReader reader) {
            BigDecimal v = new BigDecimal(new BigInteger(reader.getBinary().getBytesUnsafe()), scale);
            value = v;
            if (min == null || v.compareTo(min) < 0) {
                min = v;
            }
            if (max == null || v.compareTo(max) > 0) {
                max = v;
            }
            if (summed) {
                sum = sum == null ? v : sum.add(v);
            }
        }

        @Override
        void appendKey(DistinctKeys.EncodedKey key) throws IOException {
            key.append(isNull ? null : value);
        }

        @Override
        void emit(MetricCalculator calculator) {
            super.emit(calculator);
            if (sum != null) {
                for (int metric : planned.sums()) {
                    calculator.addSum(metric, sum);
                }
            }
            for (int metric : planned.mins()) {
                calculator.offerMin(metric, min);
            }
            for (int metric : planned.maxs()) {
                calculator.offerMax(metric, max);
            }
        }
    }

    /**
     * Strings, compared as their UTF-8 bytes unsigned, which is code point order (MetricCalculator's order); only
     * the extremes are decoded into strings, once per file.
     */
    private static final class TextColumn extends Column {
        private static final PrimitiveComparator<Binary> UTF8_ORDER =
                PrimitiveComparator.UNSIGNED_LEXICOGRAPHICAL_BINARY_COMPARATOR;
        private final boolean ordered;
        private Binary value;
        private Binary min;
        private Binary max;

        TextColumn(Planned planned, ColumnDescriptor descriptor) {
            super(planned, descriptor);
            this.ordered = planned.mins().length > 0 || planned.maxs().length > 0;
        }

        @Override
        void value(ColumnReader reader) {
            Binary v = reader.getBinary();
            value = v;
            if (ordered) {
                if (min == null || UTF8_ORDER.compare(v, min) < 0) {
                    min = copy(v);
                }
                if (max == null || UTF8_ORDER.compare(v, max) > 0) {
                    max = copy(v);
                }
            }
        }

        /**
         * {@code v}'s bytes in an array of their own. Not {@link Binary#copy()}: it returns a constant value itself,
         * and a value of an uncompressed page is a slice of its chunk's read buffer, read into again (ReadBuffers)
         * once the row group is closed.
         */
        private static Binary copy(Binary v) {
            byte[] bytes = new byte[v.length()];
            v.toByteBuffer().duplicate().get(bytes);
            return Binary.fromConstantByteArray(bytes);
        }

        @Override
        void appendKey(DistinctKeys.EncodedKey key) throws IOException {
            if (isNull) {
                key.appendNull();
            } else {
                key.appendText(value.getBytesUnsafe());
            }
        }

        @Override
        void emit(MetricCalculator calculator) {
            super.emit(calculator);
            for (int metric : planned.mins()) {
                calculator.offerMin(metric, min == null ? null : min.toStringUsingUTF8());
            }
            for (int metric : planned.maxs()) {
                calculator.offerMax(metric, max == null ? null : max.toStringUsingUTF8());
            }
        }
    }
}

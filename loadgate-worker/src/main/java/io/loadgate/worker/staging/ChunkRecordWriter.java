package io.loadgate.worker.staging;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.parquet.ParquetValueWriter;
import org.apache.iceberg.parquet.ParquetValueWriters;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimestampLogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;

/**
 * The Parquet value writer of staged chunks: the column values Iceberg's {@link GenericParquetWriter} writes, by
 * cheaper steps for the types a source gives, so the files are byte for byte the same (ChunkRecordWriterTest).
 *
 * <p>Why: in a profile of an extraction, Iceberg's generic conversions were a tenth of the worker's CPU. It makes a
 * timestamp's microseconds with {@code ChronoUnit.MICROS.between} (a calendar walk), boxes four integers for the
 * argument check of every decimal and makes a BigInteger of its unscaled value, and hands strings to Parquet as
 * buffer-backed binaries, whose hashing (the dictionary) and comparing (the statistics) go byte by byte through a
 * {@code ByteBuffer}. Here a timestamp is its epoch second times a million plus its microsecond, a decimal is checked
 * with two comparisons and its unscaled long read without a BigInteger, and a string is an array-backed binary.
 * Anything else (a schema not flat, a type a source never gives) keeps Iceberg's writer.
 */
final class ChunkRecordWriter {
    private static final OffsetDateTime EPOCH = OffsetDateTime.of(1970, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC);
    private static final LocalDateTime LOCAL_EPOCH = EPOCH.toLocalDateTime();

    private ChunkRecordWriter() {
    }

    /** The writer of records of {@code schema} into {@code type}, Iceberg's own where this one has no cheaper step. */
    static ParquetValueWriter<?> create(Schema schema, MessageType type) {
        List<Types.NestedField> fields = schema.columns();
        if (type.getFieldCount() != fields.size() || type.getColumns().size() != fields.size()) {
            return GenericParquetWriter.create(schema, type);
        }
        List<ParquetValueWriter<?>> writers = new ArrayList<>(fields.size());
        for (int i = 0; i < fields.size(); i++) {
            org.apache.parquet.schema.Type parquetField = type.getType(i);
            ColumnDescriptor column = type.getColumns().get(i);
            ParquetValueWriter<?> writer = parquetField.getId() != null && parquetField.getId().intValue() == fields.get(i).fieldId()
                    ? writer(fields.get(i).type(), column)
                    : null;
            if (writer == null) {
                return GenericParquetWriter.create(schema, type);
            }
            writers.add(ParquetValueWriters.option(parquetField, column.getMaxDefinitionLevel(), writer));
        }
        return ParquetValueWriters.recordWriter(schema.asStruct(), writers);
    }

    private static ParquetValueWriter<?> writer(Type type, ColumnDescriptor column) {
        return switch (type.typeId()) {
            case INTEGER -> ParquetValueWriters.ints(column);
            case LONG -> ParquetValueWriters.longs(column);
            case FLOAT -> ParquetValueWriters.floats(column);
            case DOUBLE -> ParquetValueWriters.doubles(column);
            case BOOLEAN -> ParquetValueWriters.booleans(column);
            case BINARY -> ParquetValueWriters.byteBuffers(column);
            case STRING -> new StringWriter(column);
            case DATE -> new DateWriter(column);
            case TIMESTAMP -> !inMicros(column) ? null
                    : ((Types.TimestampType) type).shouldAdjustToUTC() ? new TimestamptzWriter(column) : new TimestampWriter(column);
            case DECIMAL -> {
                Types.DecimalType decimal = (Types.DecimalType) type;
                yield decimal.precision() <= 9 ? ParquetValueWriters.decimalAsInteger(column, decimal.precision(), decimal.scale())
                        : decimal.precision() <= 18 ? new LongDecimalWriter(column, decimal.precision(), decimal.scale())
                        : ParquetValueWriters.decimalAsFixed(column, decimal.precision(), decimal.scale());
            }
            default -> null;
        };
    }

    static boolean inMicros(ColumnDescriptor column) {
        return column.getPrimitiveType().getLogicalTypeAnnotation() instanceof TimestampLogicalTypeAnnotation timestamp
                && timestamp.getUnit() == LogicalTypeAnnotation.TimeUnit.MICROS;
    }

    private static final class StringWriter extends ParquetValueWriters.PrimitiveWriter<CharSequence> {
        StringWriter(ColumnDescriptor column) {
            super(column);
        }

        @Override
        public void write(int repetitionLevel, CharSequence value) {
            // A new array each value: the dictionary keeps the binaries it is given.
            column.writeBinary(repetitionLevel, Binary.fromConstantByteArray(value.toString().getBytes(StandardCharsets.UTF_8)));
        }
    }

    private static final class DateWriter extends ParquetValueWriters.PrimitiveWriter<LocalDate> {
        DateWriter(ColumnDescriptor column) {
            super(column);
        }

        @Override
        public void write(int repetitionLevel, LocalDate value) {
            column.writeInteger(repetitionLevel, day(value.toEpochDay()));
        }
    }

    /**
     * A date's days from 1970 as Parquet stores them: Iceberg's {@code ChronoUnit.DAYS.between(1970-01-01, value)},
     * but where Iceberg's cast to an int wraps a day beyond it into another date (the driver gives PostgreSQL's
     * 'infinity' as LocalDate.MAX), this fails.
     */
    static int day(long epochDay) {
        if (epochDay != (int) epochDay) {
            throw new IllegalArgumentException("Cannot write date " + LocalDate.ofEpochDay(epochDay)
                    + ": beyond the days a Parquet date holds (an infinite date in the source?)");
        }
        return (int) epochDay;
    }

    private static final class TimestamptzWriter extends ParquetValueWriters.PrimitiveWriter<OffsetDateTime> {
        TimestamptzWriter(ColumnDescriptor column) {
            super(column);
        }

        @Override
        public void write(int repetitionLevel, OffsetDateTime value) {
            column.writeLong(repetitionLevel, value.getNano() % 1_000 == 0
                    ? micros(value.toEpochSecond(), value.getNano())
                    // A fraction below a microsecond: Iceberg's between() truncates toward 1970, not down.
                    : ChronoUnit.MICROS.between(EPOCH, value));
        }
    }

    private static final class TimestampWriter extends ParquetValueWriters.PrimitiveWriter<LocalDateTime> {
        TimestampWriter(ColumnDescriptor column) {
            super(column);
        }

        @Override
        public void write(int repetitionLevel, LocalDateTime value) {
            column.writeLong(repetitionLevel, value.getNano() % 1_000 == 0
                    ? micros(value.toEpochSecond(ZoneOffset.UTC), value.getNano())
                    : ChronoUnit.MICROS.between(LOCAL_EPOCH, value));
        }
    }

    /** Whole microseconds from 1970; overflows fail as Iceberg's between() fails, with an ArithmeticException. */
    private static long micros(long epochSecond, int nanos) {
        return Math.addExact(Math.multiplyExact(epochSecond, 1_000_000L), nanos / 1_000);
    }

    private static final class LongDecimalWriter extends ParquetValueWriters.PrimitiveWriter<BigDecimal> {
        private final int precision;
        private final int scale;

        LongDecimalWriter(ColumnDescriptor column, int precision, int scale) {
            super(column);
            this.precision = precision;
            this.scale = scale;
        }

        @Override
        public void write(int repetitionLevel, BigDecimal decimal) {
            column.writeLong(repetitionLevel, unscaled(decimal, precision, scale));
        }
    }

    /** The unscaled long of a decimal of at most 18 digits, after Iceberg's two checks (without boxing for them). */
    static long unscaled(BigDecimal decimal, int precision, int scale) {
        if (decimal.scale() != scale) {
            throw new IllegalArgumentException("Cannot write value as decimal(" + precision + "," + scale + "), wrong scale: " + decimal);
        }
        if (decimal.precision() > precision) {
            throw tooLarge(precision, scale, decimal);
        }
        // Its scale is the column's, so moving the point by it gives the unscaled value with the scale 0 whose
        // longValue() is the compact long: unscaledValue() makes a BigInteger of it for every value (4% of an
        // extraction's worker samples).
        return decimal.scaleByPowerOfTen(scale).longValue();
    }

    static IllegalArgumentException tooLarge(int precision, int scale, BigDecimal decimal) {
        return new IllegalArgumentException("Cannot write value as decimal(" + precision + "," + scale + "), too large: " + decimal);
    }
}

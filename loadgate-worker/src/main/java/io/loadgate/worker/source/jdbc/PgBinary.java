package io.loadgate.worker.source.jdbc;

import io.loadgate.worker.source.ColumnType;
import io.loadgate.worker.source.PrimitiveRow;
import io.loadgate.worker.source.SourceColumn;
import io.loadgate.worker.source.SourceException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Locale;
import org.postgresql.util.ByteConverter;

/**
 * PostgreSQL's binary representation of the types Loadgate stages (each type's {@code typsend}), decoded into the
 * classes {@link ColumnType} names, with the arithmetic PgJDBC uses for the same bytes, so either reader of a column
 * gives equal values: {@link JdbcValues}' readers of a result set sent binary, and {@link PgCopyRows}' decoders of
 * {@code COPY ... (FORMAT binary)}.
 */
final class PgBinary {
    // Seconds from 1970-01-01 to 2000-01-01, PostgreSQL's epoch for timestamps on the wire.
    private static final long PG_EPOCH_SECONDS = 946_684_800L;
    // Days from 1970-01-01 to 2000-01-01, PostgreSQL's epoch for dates on the wire.
    private static final long PG_EPOCH_DAYS = 10_957L;
    private static final long SECONDS_PER_DAY = 86_400L;
    // The sign word of a binary numeric: positive, negative (NaN and the infinities are other values).
    private static final int PG_NUMERIC_POS = 0x0000;
    private static final int PG_NUMERIC_NEG = 0x4000;
    // The largest dscale the driver accepts (its NUMERIC_DSCALE_MASK).
    private static final int PG_NUMERIC_MAX_DSCALE = 0x3FFF;
    private static final long[] TEN_POWERS = {1L, 10L, 100L, 1_000L, 10_000L, 100_000L, 1_000_000L, 10_000_000L,
            100_000_000L, 1_000_000_000L, 10_000_000_000L, 100_000_000_000L, 1_000_000_000_000L,
            10_000_000_000_000L, 100_000_000_000_000L, 1_000_000_000_000_000L, 10_000_000_000_000_000L,
            100_000_000_000_000_000L, 1_000_000_000_000_000_000L};

    private PgBinary() {
    }

    /** One column's values from their binary bytes; one per column and reader, as some keep state between values. */
    @FunctionalInterface
    interface Decoder {
        Object decode(byte[] bytes, int offset, int length);
    }

    /** A column's decoder and the byte width of its values, or -1 where they vary. */
    record ColumnDecoder(Decoder decoder, int width) {
    }

    /**
     * The complete decoder of {@code column}, whose PostgreSQL type is {@code typeName}, for a stream of binary
     * values such as COPY's; null where the pair is not one decoded here (a domain, {@code bit}, {@code money}, a
     * float timestamp server), which a reader leaves to the driver. A value no staged type holds (a NaN or infinite
     * numeric, an infinite date or timestamp) fails with a message naming the column: the driver's decoding of
     * those either fails too or gives a value that is not the source's (an infinite date written as a day).
     */
    static ColumnDecoder decoder(SourceColumn column, String typeName, boolean integerTimestamps) {
        String type = typeName.toLowerCase(Locale.ROOT);
        return switch (column.type()) {
            case INT -> type.equals("int4") ? new ColumnDecoder((b, o, l) -> ByteConverter.int4(b, o), 4)
                    : type.equals("int2") ? new ColumnDecoder((b, o, l) -> (int) ByteConverter.int2(b, o), 2) : null;
            case LONG -> type.equals("int8") ? new ColumnDecoder((b, o, l) -> ByteConverter.int8(b, o), 8) : null;
            case FLOAT -> type.equals("float4") ? new ColumnDecoder((b, o, l) -> ByteConverter.float4(b, o), 4) : null;
            case DOUBLE -> type.equals("float8") ? new ColumnDecoder((b, o, l) -> ByteConverter.float8(b, o), 8) : null;
            case BOOLEAN -> type.equals("bool") ? new ColumnDecoder((b, o, l) -> b[o] != 0, 1) : null;
            case STRING -> type.equals("text") || type.equals("varchar") || type.equals("bpchar")
                    ? new ColumnDecoder((b, o, l) -> new String(b, o, l, StandardCharsets.UTF_8), -1) : null;
            case BINARY -> type.equals("bytea")
                    ? new ColumnDecoder((b, o, l) -> ByteBuffer.wrap(Arrays.copyOfRange(b, o, o + l)), -1) : null;
            case DECIMAL -> type.equals("numeric") ? new ColumnDecoder((b, o, l) -> decimal(column, b, o, l), -1) : null;
            case DATE -> type.equals("date") ? new ColumnDecoder(new DateDecoder(column), 4) : null;
            case TIMESTAMP -> integerTimestamps && type.equals("timestamp")
                    ? new ColumnDecoder(new TimestampDecoder(column, false), 8) : null;
            case TIMESTAMPTZ -> integerTimestamps && type.equals("timestamptz")
                    ? new ColumnDecoder(new TimestampDecoder(column, true), 8) : null;
        };
    }

    private static BigDecimal decimal(SourceColumn column, byte[] bytes, int offset, int length) {
        BigDecimal value = numeric(bytes, offset, length);
        if (value != null) {
            return value;
        }
        if (length >= 8 && (ByteConverter.int2(bytes, offset + 4) & 0xFFFF) != PG_NUMERIC_POS
                && (ByteConverter.int2(bytes, offset + 4) & 0xFFFF) != PG_NUMERIC_NEG) {
            throw new SourceException("column " + column.name() + " holds a NaN or an infinite numeric, which no decimal holds;"
                    + " filter it out or map it in source.query");
        }
        return (BigDecimal) ByteConverter.numeric(bytes, offset, length);
    }

    /**
     * The driver's BigDecimal of a binary numeric whose unscaled value at its display scale has up to 18 digits;
     * null for any other bytes, including any the server does not send (leading zero digits, digits out of range,
     * nonzero digits beyond dscale), whose handling stays the driver's. Binary numeric: int16 ndigits, weight (of
     * the first digit, in powers of 10000), sign and dscale (the display scale, which the driver's BigDecimal
     * keeps), then ndigits base-10000 digits. The driver builds every value through {@code BigInteger} arithmetic
     * (about 9% of an extraction's CPU in a profile), where a {@code long} holds the unscaled value of any numeric
     * up to 18 digits.
     */
    static BigDecimal numeric(byte[] bytes, int offset, int length) {
        long unscaled = unscaled(bytes, offset, length);
        return unscaled == PrimitiveRow.NOT_COMPACT ? null : BigDecimal.valueOf(unscaled, dscale(bytes, offset));
    }

    /** The display scale of a binary numeric, the scale of the driver's BigDecimal of it. */
    static int dscale(byte[] bytes, int offset) {
        return ByteConverter.int2(bytes, offset + 6);
    }

    /**
     * The unscaled value at its {@link #dscale} of the binary numerics {@link #numeric} decodes without the driver;
     * {@link PrimitiveRow#NOT_COMPACT} for any other bytes (no value of 18 digits or fewer is that long).
     */
    static long unscaled(byte[] bytes, int offset, int length) {
        if (length < 8) {
            return PrimitiveRow.NOT_COMPACT;
        }
        int ndigits = ByteConverter.int2(bytes, offset) & 0xFFFF;
        int weight = ByteConverter.int2(bytes, offset + 2);
        int sign = ByteConverter.int2(bytes, offset + 4) & 0xFFFF;
        int dscale = dscale(bytes, offset);
        if (length != 8 + 2 * ndigits || (sign != PG_NUMERIC_POS && sign != PG_NUMERIC_NEG)
                || dscale < 0 || dscale > PG_NUMERIC_MAX_DSCALE) {
            return PrimitiveRow.NOT_COMPACT;
        }
        if (ndigits == 0) {
            // Zero, whatever its weight.
            return 0;
        }
        int digits = offset + 8;
        int first = ByteConverter.int2(bytes, digits);
        // A unit of the last digit is 10000^(weight + 1 - ndigits): 10^exponent units of the last place of dscale.
        int exponent = 4 * (weight + 1 - ndigits) + dscale;
        if (first < 1 || first > 9_999 || exponent < -3 || digitCount(first, weight, dscale) > 18) {
            return PrimitiveRow.NOT_COMPACT;
        }
        long unscaled = 0;
        int last = ndigits - 1;
        for (int i = 0; i < last; i++) {
            int digit = ByteConverter.int2(bytes, digits + 2 * i);
            if (digit < 0 || digit > 9_999) {
                return PrimitiveRow.NOT_COMPACT;
            }
            unscaled = unscaled * 10_000 + digit;
        }
        int digit = ByteConverter.int2(bytes, digits + 2 * last);
        if (digit < 0 || digit > 9_999) {
            return PrimitiveRow.NOT_COMPACT;
        }
        if (exponent >= 0) {
            unscaled = (unscaled * 10_000 + digit) * TEN_POWERS[exponent];
        } else {
            // The last digit reaches past dscale (1.5 at dscale 1 is 1, 5000): only zeros may be cut, by constants.
            int kept = switch (exponent) {
                case -1 -> digit / 10;
                case -2 -> digit / 100;
                default -> digit / 1_000;
            };
            if (kept * TEN_POWERS[-exponent] != digit) {
                return PrimitiveRow.NOT_COMPACT;
            }
            unscaled = unscaled * TEN_POWERS[4 + exponent] + kept;
        }
        return sign == PG_NUMERIC_NEG ? -unscaled : unscaled;
    }

    /**
     * How many digits, at most, a numeric of this first digit, weight and dscale has unscaled: with 18 or fewer, no
     * step of {@link #numeric} overflows a long, so none needs a check (a division per digit cost more than the
     * driver's decoding). The first digit's own width, a branch hard to predict, matters only near 18.
     */
    private static int digitCount(int first, int weight, int dscale) {
        int upTo = 4 * (weight + 1) + dscale;
        return upTo <= 18 ? upTo : upTo - 4 + (first >= 1_000 ? 4 : first >= 100 ? 3 : first >= 10 ? 2 : 1);
    }

    /** Whether days from PostgreSQL's epoch are one of its two infinite dates. */
    static boolean infiniteDate(int pgDays) {
        return pgDays == Integer.MAX_VALUE || pgDays == Integer.MIN_VALUE;
    }

    /** Whether microseconds from PostgreSQL's epoch are one of its two infinite timestamps. */
    static boolean infiniteTimestamp(long micros) {
        return micros == Long.MAX_VALUE || micros == Long.MIN_VALUE;
    }

    /** Days from 1970 of a binary date; an infinite one fails as its decoder fails. */
    static long epochDay(SourceColumn column, byte[] bytes, int offset) {
        int pgDays = ByteConverter.int4(bytes, offset);
        if (infiniteDate(pgDays)) {
            throw infinite(column);
        }
        return pgDays + PG_EPOCH_DAYS;
    }

    /**
     * Microseconds from 1970 of a binary timestamp (UTC for timestamptz); an infinite one fails as its decoder fails,
     * one beyond a long from 1970 (the last days PostgreSQL holds) with the ArithmeticException the writer of its
     * decoded value throws.
     */
    static long epochMicros(SourceColumn column, byte[] bytes, int offset) {
        long micros = ByteConverter.int8(bytes, offset);
        if (infiniteTimestamp(micros)) {
            throw infinite(column);
        }
        return Math.addExact(micros, PG_EPOCH_SECONDS * 1_000_000L);
    }

    /**
     * The day a decoder decoded last, and its {@code LocalDate}. A partition's dates and timestamps mostly fall on a
     * few days (a business day's rows, an hour's events), and {@code LocalDate.ofEpochDay}, a calendar computation,
     * was 11% of an extraction's CPU in a profile when it ran for every value. One per reader: readers are not
     * shared between threads.
     */
    static final class LastDay {
        private long epochDay = Long.MIN_VALUE;
        private LocalDate date;

        /** The date of finite days from PostgreSQL's epoch: the driver's arithmetic, BC dates included. */
        LocalDate ofPgDays(int pgDays) {
            return ofEpochDay(pgDays + PG_EPOCH_DAYS);
        }

        /**
         * The UTC date and time of finite microseconds from PostgreSQL's epoch: floored, as the driver does, and in
         * seconds (the microseconds of 294276 AD overflow a long from 1970); then LocalDateTime.ofEpochSecond's own
         * steps, with the day from the last one.
         */
        LocalDateTime ofPgMicros(long micros) {
            long seconds = Math.floorDiv(micros, 1_000_000L) + PG_EPOCH_SECONDS;
            long nanoOfSecond = Math.floorMod(micros, 1_000_000L) * 1_000L;
            return LocalDateTime.of(ofEpochDay(Math.floorDiv(seconds, SECONDS_PER_DAY)),
                    LocalTime.ofNanoOfDay(Math.floorMod(seconds, SECONDS_PER_DAY) * 1_000_000_000L + nanoOfSecond));
        }

        private LocalDate ofEpochDay(long day) {
            if (date == null || day != epochDay) {
                date = LocalDate.ofEpochDay(day);
                epochDay = day;
            }
            return date;
        }
    }

    private static final class DateDecoder implements Decoder {
        private final SourceColumn column;
        private final LastDay days = new LastDay();

        DateDecoder(SourceColumn column) {
            this.column = column;
        }

        @Override
        public Object decode(byte[] bytes, int offset, int length) {
            return days.ofEpochDay(epochDay(column, bytes, offset));
        }
    }

    private static final class TimestampDecoder implements Decoder {
        private final SourceColumn column;
        private final boolean withZone;
        private final LastDay days = new LastDay();

        TimestampDecoder(SourceColumn column, boolean withZone) {
            this.column = column;
            this.withZone = withZone;
        }

        @Override
        public Object decode(byte[] bytes, int offset, int length) {
            long micros = ByteConverter.int8(bytes, offset);
            if (infiniteTimestamp(micros)) {
                throw infinite(column);
            }
            LocalDateTime utc = days.ofPgMicros(micros);
            return withZone ? OffsetDateTime.of(utc, ZoneOffset.UTC) : utc;
        }
    }

    private static SourceException infinite(SourceColumn column) {
        return new SourceException("column " + column.name() + " holds infinity or -infinity, which no Parquet "
                + column.type().name().toLowerCase(Locale.ROOT) + " holds; filter it out or map it in source.query");
    }
}

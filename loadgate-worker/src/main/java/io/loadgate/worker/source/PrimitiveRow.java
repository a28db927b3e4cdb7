package io.loadgate.worker.source;

import org.apache.parquet.io.api.Binary;

/**
 * The current row of a {@link PartitionRows}, its values read as primitives in the representation Parquet stores,
 * so a chunk writer puts them into its columns with no object per value ({@link PartitionRows#primitiveRow}).
 * Each getter is for the {@link ColumnType} its comment names and only for a value that is not null; a value the
 * staged type cannot hold fails as {@link PartitionRows#value} would fail for it.
 *
 * <p>Why: boxing every number, a {@code java.time} object per date or instant and a {@code String} per text value
 * (decoded from UTF-8 only to be encoded back) were a third of a table extraction's allocation in a profile.
 */
public interface PrimitiveRow {
    /** Returned by {@link #unscaled} for a decimal that is not one long at the asked scale. */
    long NOT_COMPACT = Long.MIN_VALUE;

    boolean isNull(int index);

    /** BOOLEAN. */
    boolean booleanValue(int index);

    /** INT. */
    int intValue(int index);

    /** LONG. */
    long longValue(int index);

    /** FLOAT. */
    float floatValue(int index);

    /** DOUBLE. */
    double doubleValue(int index);

    /**
     * STRING: its UTF-8 bytes, as a view of the row's own bytes valid only until the next row
     * ({@link Binary#fromReusedByteArray}): what a Parquet column writer keeps of a value (a dictionary entry, a
     * page's minimum or maximum) it copies, and only then. A copy of every text value was a tenth of a table
     * extraction's allocation in a profile (bench/RESULTS.md, 2026-12-06).
     */
    Binary utf8(int index);

    /** DATE: days from 1970-01-01. */
    long epochDay(int index);

    /** TIMESTAMP and TIMESTAMPTZ: microseconds from 1970-01-01T00:00 (UTC for TIMESTAMPTZ). */
    long epochMicros(int index);

    /**
     * DECIMAL: the unscaled value at {@code scale} when the value has that scale and at most 18 digits; else
     * {@link #NOT_COMPACT}, and the caller takes {@link #value} (a {@code BigDecimal}) to handle or refuse it.
     */
    long unscaled(int index, int scale);

    /** The value as {@link PartitionRows#value} gives it. */
    Object value(int index);
}

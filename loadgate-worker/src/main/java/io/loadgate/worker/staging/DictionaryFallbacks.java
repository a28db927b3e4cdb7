package io.loadgate.worker.staging;

import static java.util.Objects.requireNonNull;

import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.values.ValuesWriter;
import org.apache.parquet.column.values.factory.DefaultValuesWriterFactory;
import org.apache.parquet.column.values.factory.ValuesWriterFactory;
import org.apache.parquet.column.values.fallback.FallbackValuesWriter;
import org.apache.parquet.column.values.plain.PlainValuesWriter;
import org.apache.parquet.io.api.Binary;

/**
 * Parquet's default values writers, except that a column whose first page falls back from its dictionary to plain
 * encoding lets the dictionary go at once, rather than when its row group is written.
 *
 * <p>Why: parquet-java's {@link FallbackValuesWriter} keeps its dictionary writer until the row group ends even when
 * the first page decided against it, and the cleared dictionary keeps its hash table's arrays (~640 KiB for the
 * first page's 20,000 values of a {@code long} column). A column of a new value nearly every row (a key, an amount, a
 * note) falls back on its first page, so each such column of each chunk held its emptied table for as long as the
 * chunk took to write, ~1 s: long enough for G1 to copy it from survivor space to survivor space at every young
 * collection (docs/validation.md, "Dictionaries let go on their first page").
 *
 * <p>Why it writes the same file: once the first page fell back, parquet's writer only passes each call on to its
 * plain writer, whose buffered size is the raw size parquet counts for it (a value's bytes, and four of length for a
 * binary one), so pages are cut at the same rows; from then on this writer calls the plain writer itself
 * (StagedParquetWriterTest compares the files with Iceberg's writer's byte for byte).
 */
final class DictionaryFallbacks implements ValuesWriterFactory {
    private final ValuesWriterFactory defaults = new DefaultValuesWriterFactory();

    @Override
    public void initialize(ParquetProperties properties) {
        defaults.initialize(properties);
    }

    @Override
    public ValuesWriter newValuesWriter(ColumnDescriptor column) {
        ValuesWriter writer = defaults.newValuesWriter(column);
        // Only a plain writer buffers exactly the raw size: a fixed-length one leaves out the length parquet counts,
        // so calling it directly would cut pages elsewhere.
        if (writer instanceof FallbackValuesWriter<?, ?> fallback && fallback.fallBackWriter instanceof PlainValuesWriter) {
            return new PlainAfterFirstPage(fallback);
        }
        return writer;
    }

    /** Parquet's fallback writer until its first page is written, then its plain writer alone if that page was plain. */
    static final class PlainAfterFirstPage extends ValuesWriter {
        /** Null once the first page is written. */
        private FallbackValuesWriter<?, ?> fallback;
        private ValuesWriter current;
        private Encoding firstPageEncoding;

        PlainAfterFirstPage(FallbackValuesWriter<?, ?> fallback) {
            this.fallback = requireNonNull(fallback, "fallback is null");
            this.current = fallback;
        }

        @Override
        public BytesInput getBytes() {
            return current.getBytes();
        }

        @Override
        public Encoding getEncoding() {
            Encoding encoding = current.getEncoding();
            if (fallback != null && firstPageEncoding == null) {
                firstPageEncoding = encoding;
            }
            return encoding;
        }

        /** Called once a page is written: after the first, the dictionary is let go if that page did not use it. */
        @Override
        public void reset() {
            current.reset();
            if (fallback == null) {
                return;
            }
            if (firstPageEncoding != null && !firstPageEncoding.usesDictionary()) {
                // A fallback writer never returns to its dictionary within a row group, and no dictionary page is
                // written for one it fell back from before its first page.
                fallback.initialWriter.close();
                current = fallback.fallBackWriter;
            }
            fallback = null;
        }

        @Override
        public long getBufferedSize() {
            return current.getBufferedSize();
        }

        @Override
        public long getAllocatedSize() {
            return current.getAllocatedSize();
        }

        @Override
        public DictionaryPage toDictPageAndClose() {
            return current.toDictPageAndClose();
        }

        /**
         * At the row group's end. Parquet's fallback writer would start the next row group with its dictionary again;
         * this one does not need to, since a column store's writers serve one row group ({@link StagedParquetWriter}
         * makes new ones for the next, as Parquet's own file writer does).
         */
        @Override
        public void resetDictionary() {
            current.resetDictionary();
        }

        @Override
        public void close() {
            current.close();
        }

        @Override
        public String memUsageString(String prefix) {
            return current.memUsageString(prefix);
        }

        @Override
        public void writeByte(int value) {
            current.writeByte(value);
        }

        @Override
        public void writeBoolean(boolean v) {
            current.writeBoolean(v);
        }

        @Override
        public void writeBytes(Binary v) {
            current.writeBytes(v);
        }

        @Override
        public void writeInteger(int v) {
            current.writeInteger(v);
        }

        @Override
        public void writeLong(long v) {
            current.writeLong(v);
        }

        @Override
        public void writeDouble(double v) {
            current.writeDouble(v);
        }

        @Override
        public void writeFloat(float v) {
            current.writeFloat(v);
        }
    }
}

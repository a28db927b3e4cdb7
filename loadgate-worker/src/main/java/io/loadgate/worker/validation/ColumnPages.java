package io.loadgate.worker.validation;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.column.values.bitpacking.BytePacker;
import org.apache.parquet.column.values.bitpacking.Packer;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * A flat column chunk read page by page: the definition levels counted run by run for the nulls, and the non-null
 * values, when they are wanted, decoded from PLAIN or dictionary pages in one loop per page. What parquet-java's
 * {@code ColumnReader} does per value (a level decoded, checked and consumed, a value bound, read and consumed) was
 * most of staging validation's CPU, and every value is still decoded here: only its walk is cheaper.
 *
 * <p>Nulls need no position: a page stores its non-null values densely after its levels, so a column's SUM, MIN and
 * MAX are over exactly those values, and its null count is its levels' zeros. Anything else (nested or
 * repeated columns, other value encodings) is not {@link #decodes decoded} here.
 */
final class ColumnPages {
    // Value encodings decoded here, and the levels' (a chunk lists both kinds together): RLE, and BIT_PACKED, which
    // parquet-java's version 1 pages name for the repetition levels of a flat column, which have no bytes.
    // The header's bits in what runHeader returns; its top byte is the header's length.
    private static final long RUN_HEADER = (1L << 56) - 1;
    private static final Set<Encoding> DECODED = EnumSet.of(Encoding.PLAIN, Encoding.PLAIN_DICTIONARY,
            Encoding.RLE_DICTIONARY, Encoding.RLE, Encoding.BIT_PACKED);

    private ColumnPages() {
    }

    /** Where a chunk's non-null values go, in the file's order. */
    @FunctionalInterface
    interface LongSink {
        void accept(long value);
    }

    /**
     * Whether {@link #read} takes this chunk of {@code column}: a top-level column (no repetition, at most one
     * definition level) and, when its values are wanted, an INT32 or INT64 column of PLAIN or dictionary pages.
     */
    static boolean decodes(ColumnChunkMetaData chunk, ColumnDescriptor column, boolean values) {
        if (column.getMaxRepetitionLevel() != 0 || column.getMaxDefinitionLevel() > 1) {
            return false;
        }
        if (!values) {
            return true;
        }
        PrimitiveTypeName physical = column.getPrimitiveType().getPrimitiveTypeName();
        return (physical == PrimitiveTypeName.INT32 || physical == PrimitiveTypeName.INT64)
                && DECODED.containsAll(chunk.getEncodings());
    }

    /**
     * Reads every page of the chunk: each non-null value, widened to a long, to {@code sink} (none when it is null)
     * and the number of nulls returned. Fails on a page it does not decode or bytes that do not hold what the page
     * header says; {@code rows} is the row group's, which the levels must account for. Each page's bytes go to
     * {@code done} once read, before the next page is: nothing here keeps them.
     */
    static long read(PageReader pages, ColumnDescriptor column, long rows, LongSink sink, Consumer<BytesInput> done)
            throws IOException {
        boolean int32 = column.getPrimitiveType().getPrimitiveTypeName() == PrimitiveTypeName.INT32;
        long[] dictionary = null;
        if (sink != null) {
            DictionaryPage page = pages.readDictionaryPage();
            dictionary = dictionary(page, column, int32);
            if (page != null) {
                done.accept(page.getBytes());
            }
        }
        boolean optional = column.getMaxDefinitionLevel() == 1;
        long nulls = 0;
        long values = 0;
        for (DataPage page = pages.readPage(); page != null; page = pages.readPage()) {
            int count = page.getValueCount();
            ByteBuffer data;
            Encoding encoding;
            int defined;
            BytesInput read;
            if (page instanceof DataPageV1 v1) {
                read = v1.getBytes();
                ByteBuffer bytes = buffer(read);
                int start = 0;
                defined = count;
                if (optional && v1.getDlEncoding() == Encoding.RLE) {
                    int length = bytes.getInt(0);
                    if (length < 0 || length > bytes.limit() - 4) {
                        throw malformed(column, "definition levels of " + length + " bytes");
                    }
                    defined = ones(bytes, 4, 4 + length, count, column);
                    start = 4 + length;
                } else if (optional && v1.getDlEncoding() == Encoding.BIT_PACKED) {
                    start = (count + 7) / 8;
                    defined = bitPackedOnes(bytes, start, count, column);
                } else if (optional) {
                    throw malformed(column, "definition levels encoded " + v1.getDlEncoding());
                }
                data = bytes.position(start).slice().order(ByteOrder.LITTLE_ENDIAN);
                encoding = v1.getValueEncoding();
            } else if (page instanceof DataPageV2 v2) {
                defined = count;
                if (optional) {
                    ByteBuffer levels = buffer(v2.getDefinitionLevels());
                    defined = ones(levels, 0, levels.limit(), count, column);
                }
                read = v2.getData();
                data = buffer(read);
                encoding = v2.getDataEncoding();
            } else {
                throw malformed(column, "a page of " + page.getClass().getSimpleName());
            }
            nulls += count - defined;
            values += count;
            if (sink != null) {
                decode(data, encoding, defined, int32, dictionary, column, sink);
            }
            done.accept(read);
        }
        if (values != rows) {
            throw malformed(column, values + " values for " + rows + " rows");
        }
        return nulls;
    }

    private static ByteBuffer buffer(BytesInput bytes) throws IOException {
        return bytes.toByteBuffer().slice().order(ByteOrder.LITTLE_ENDIAN);
    }

    private static long[] dictionary(DictionaryPage page, ColumnDescriptor column, boolean int32) throws IOException {
        if (page == null) {
            return null;
        }
        Dictionary dictionary = page.getEncoding().initDictionary(column, page);
        long[] values = new long[dictionary.getMaxId() + 1];
        for (int id = 0; id < values.length; id++) {
            values[id] = int32 ? dictionary.decodeToInt(id) : dictionary.decodeToLong(id);
        }
        return values;
    }

    /** The {@code count} values of a page, {@code data} starting at them. */
    private static void decode(ByteBuffer data, Encoding encoding, int count, boolean int32, long[] dictionary,
                               ColumnDescriptor column, LongSink sink) throws IOException {
        if (encoding == Encoding.PLAIN) {
            int width = int32 ? 4 : 8;
            if ((long) count * width > data.limit()) {
                throw malformed(column, count + " values in " + data.limit() + " bytes");
            }
            if (int32) {
                for (int i = 0; i < count; i++) {
                    sink.accept(data.getInt(i * 4));
                }
            } else {
                for (int i = 0; i < count; i++) {
                    sink.accept(data.getLong(i * 8));
                }
            }
        } else if (encoding == Encoding.PLAIN_DICTIONARY || encoding == Encoding.RLE_DICTIONARY) {
            if (dictionary == null) {
                throw malformed(column, "dictionary ids without a dictionary");
            }
            if (count > 0) {
                ids(data, count, dictionary, column, sink);
            }
        } else {
            throw malformed(column, "values encoded " + encoding);
        }
    }

    /** Dictionary ids: a byte of bit width, then RLE/bit-packed runs of ids; each id's value to {@code sink}. */
    private static void ids(ByteBuffer data, int count, long[] dictionary, ColumnDescriptor column, LongSink sink)
            throws IOException {
        int bitWidth = data.get(0) & 0xFF;
        if (bitWidth > 32) {
            throw malformed(column, "dictionary ids of " + bitWidth + " bits");
        }
        BytePacker packer = Packer.LITTLE_ENDIAN.newBytePacker(bitWidth);
        int valueBytes = (bitWidth + 7) / 8;
        int[] unpacked = new int[8];
        int position = 1;
        int remaining = count;
        while (remaining > 0) {
            long header = runHeader(data, position, data.limit(), column);
            position += (int) (header >>> 56);
            header &= RUN_HEADER;
            if ((header & 1) == 0) {
                int run = (int) Math.min(header >>> 1, remaining);
                if (position + valueBytes > data.limit()) {
                    throw malformed(column, "a run past the page's end");
                }
                int id = 0;
                for (int i = 0; i < valueBytes; i++) {
                    id |= (data.get(position + i) & 0xFF) << (8 * i);
                }
                position += valueBytes;
                long value = value(dictionary, id, column);
                for (int i = 0; i < run; i++) {
                    sink.accept(value);
                }
                remaining -= run;
            } else {
                long groups = header >>> 1;
                if (position + groups * bitWidth > data.limit()) {
                    throw malformed(column, "bit-packed ids past the page's end");
                }
                for (long g = 0; g < groups && remaining > 0; g++) {
                    packer.unpack8Values(data, position, unpacked, 0);
                    position += bitWidth;
                    int n = Math.min(8, remaining);
                    for (int i = 0; i < n; i++) {
                        sink.accept(value(dictionary, unpacked[i], column));
                    }
                    remaining -= n;
                }
            }
        }
    }

    private static long value(long[] dictionary, int id, ColumnDescriptor column) throws IOException {
        if (id < 0 || id >= dictionary.length) {
            throw malformed(column, "dictionary id " + id + " of " + dictionary.length);
        }
        return dictionary[id];
    }

    /**
     * The unsigned varint that starts a run at {@code position} (at most 5 bytes: a run's length fits an int) in its
     * low bits, and in the top byte how many bytes it took.
     */
    private static long runHeader(ByteBuffer bytes, int position, int end, ColumnDescriptor column) throws IOException {
        long header = 0;
        int length = 0;
        byte b;
        do {
            if (position + length >= end || length == 5) {
                throw malformed(column, "a run's header past its end");
            }
            b = bytes.get(position + length);
            header |= (long) (b & 0x7F) << (7 * length);
            length++;
        } while ((b & 0x80) != 0);
        return header | (long) length << 56;
    }

    /**
     * How many of {@code count} one-bit levels in the RLE/bit-packed runs of {@code bytes[start, end)} are 1
     * (defined): RLE runs by their length, bit-packed ones eight levels a byte by their bit count.
     */
    static int ones(ByteBuffer bytes, int start, int end, int count, ColumnDescriptor column) throws IOException {
        int position = start;
        int remaining = count;
        int ones = 0;
        while (remaining > 0) {
            long header = runHeader(bytes, position, end, column);
            position += (int) (header >>> 56);
            header &= RUN_HEADER;
            if ((header & 1) == 0) {
                int run = (int) Math.min(header >>> 1, remaining);
                if (position >= end) {
                    throw malformed(column, "definition levels past their end");
                }
                int level = bytes.get(position++) & 0xFF;
                if (level > 1) {
                    throw malformed(column, "definition level " + level);
                }
                ones += level * run;
                remaining -= run;
            } else {
                long groups = header >>> 1;
                if (position + groups > end) {
                    throw malformed(column, "definition levels past their end");
                }
                long levels = Math.min(groups * 8, remaining);
                int full = (int) (levels / 8);
                for (int i = 0; i < full; i++) {
                    ones += Integer.bitCount(bytes.get(position + i) & 0xFF);
                }
                int rest = (int) (levels % 8);
                if (rest > 0) {
                    ones += Integer.bitCount(bytes.get(position + full) & ((1 << rest) - 1));
                }
                position += (int) groups;
                remaining -= (int) levels;
            }
        }
        return ones;
    }

    /**
     * How many of {@code count} one-bit levels are 1 in the deprecated BIT_PACKED form (old writers' version 1
     * pages): packed from the most significant bit, with no length before them.
     */
    static int bitPackedOnes(ByteBuffer bytes, int length, int count, ColumnDescriptor column) throws IOException {
        if (length > bytes.limit()) {
            throw malformed(column, "definition levels past the page's end");
        }
        int ones = 0;
        int full = count / 8;
        for (int i = 0; i < full; i++) {
            ones += Integer.bitCount(bytes.get(i) & 0xFF);
        }
        int rest = count % 8;
        if (rest > 0) {
            ones += Integer.bitCount(bytes.get(full) & 0xFF & (0xFF << (8 - rest)));
        }
        return ones;
    }

    private static IOException malformed(ColumnDescriptor column, String what) {
        return new IOException("column " + Arrays.toString(column.getPath()) + ": " + what);
    }
}

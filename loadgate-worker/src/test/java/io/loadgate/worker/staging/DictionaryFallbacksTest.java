package io.loadgate.worker.staging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.ref.WeakReference;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.values.ValuesWriter;
import org.apache.parquet.column.values.fallback.FallbackValuesWriter;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.Test;

class DictionaryFallbacksTest {
    private static final int PAGE_ROWS = 20_000;

    @Test
    void writesThePagesOfParquetsOwnWriters() throws IOException {
        // Values new every row (the first page falls back), repeating (it keeps its dictionary), and repeating until
        // the dictionary outgrows its limit in the second page (it falls back in the middle of the row group).
        record Column(String name, PrimitiveTypeName type, IntFunction<Object> value) {
        }
        List<Column> columns = List.of(
                new Column("new longs", PrimitiveTypeName.INT64, i -> i * 7L),
                new Column("repeating longs", PrimitiveTypeName.INT64, i -> (long) (i % 100)),
                new Column("longs outgrowing the dictionary", PrimitiveTypeName.INT64, i -> (long) (i < PAGE_ROWS ? i % 10 : i)),
                new Column("new ints", PrimitiveTypeName.INT32, i -> i - 12),
                new Column("new doubles", PrimitiveTypeName.DOUBLE, i -> i * 1.5e10),
                new Column("new floats", PrimitiveTypeName.FLOAT, i -> i / 3.0f),
                new Column("new strings", PrimitiveTypeName.BINARY, i -> Binary.fromString("note-" + i)),
                new Column("repeating strings", PrimitiveTypeName.BINARY, i -> Binary.fromString("kind-" + i % 30)),
                new Column("new fixed", PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY,
                        i -> Binary.fromConstantByteArray(new byte[] {(byte) (i >> 16), (byte) (i >> 8), (byte) i})),
                new Column("booleans", PrimitiveTypeName.BOOLEAN, i -> i % 3 == 0));
        for (Column column : columns) {
            ColumnDescriptor descriptor = descriptor(column.type());
            ValuesWriter theirs = properties(false).newValuesWriter(descriptor);
            ValuesWriter ours = properties(true).newValuesWriter(descriptor);
            List<byte[]> theirPages = new ArrayList<>();
            List<byte[]> ourPages = new ArrayList<>();
            int rows = 3 * PAGE_ROWS + 5_000;
            for (int i = 0; i < rows; i++) {
                Object value = column.value().apply(i);
                write(theirs, value);
                write(ours, value);
                assertThat(ours.getBufferedSize()).as("%s, buffered after row %d", column.name(), i)
                        .isEqualTo(theirs.getBufferedSize());
                if ((i + 1) % PAGE_ROWS == 0 || i + 1 == rows) {
                    theirPages.add(page(theirs));
                    ourPages.add(page(ours));
                }
            }

            assertThat(ourPages).as(column.name()).hasSameSizeAs(theirPages);
            for (int p = 0; p < theirPages.size(); p++) {
                assertThat(ourPages.get(p)).as("%s, page %d", column.name(), p).isEqualTo(theirPages.get(p));
            }
            DictionaryPage theirDictionary = theirs.toDictPageAndClose();
            DictionaryPage ourDictionary = ours.toDictPageAndClose();
            assertThat(ourDictionary == null).as(column.name()).isEqualTo(theirDictionary == null);
            if (theirDictionary != null) {
                assertThat(ourDictionary.getBytes().toByteArray()).as(column.name())
                        .isEqualTo(theirDictionary.getBytes().toByteArray());
            }
            theirs.close();
            ours.close();
        }
    }

    @Test
    void takesOverTheWritersThatFallBackToPlainValues() {
        ParquetProperties ours = properties(true);
        for (PrimitiveTypeName type : List.of(PrimitiveTypeName.INT32, PrimitiveTypeName.INT64, PrimitiveTypeName.FLOAT,
                PrimitiveTypeName.DOUBLE, PrimitiveTypeName.BINARY)) {
            assertThat(ours.newValuesWriter(descriptor(type))).as("%s", type)
                    .isInstanceOf(DictionaryFallbacks.PlainAfterFirstPage.class);
        }
        for (PrimitiveTypeName type : List.of(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, PrimitiveTypeName.BOOLEAN)) {
            assertThat(ours.newValuesWriter(descriptor(type))).as("%s", type)
                    .isNotInstanceOf(DictionaryFallbacks.PlainAfterFirstPage.class);
        }
    }

    @Test
    void letsADictionaryGoOnceTheFirstPageFellBackFromIt() throws IOException, InterruptedException {
        FallbackValuesWriter<?, ?> fallback = parquetsWriter();
        WeakReference<ValuesWriter> dictionary = new WeakReference<>(fallback.initialWriter);
        ValuesWriter writer = new DictionaryFallbacks.PlainAfterFirstPage(fallback);
        fallback = null;
        for (long i = 0; i < PAGE_ROWS; i++) {
            writer.writeLong(i);
        }
        assertThat(page(writer)).isNotEmpty();
        writer.writeLong(PAGE_ROWS);

        collectUntilCleared(dictionary);
        assertThat(dictionary.get()).as("the dictionary, after a first page without it").isNull();
        assertThat(writer.toDictPageAndClose()).isNull();
    }

    @Test
    void keepsADictionaryTheFirstPageUsed() throws IOException, InterruptedException {
        FallbackValuesWriter<?, ?> fallback = parquetsWriter();
        WeakReference<ValuesWriter> dictionary = new WeakReference<>(fallback.initialWriter);
        ValuesWriter writer = new DictionaryFallbacks.PlainAfterFirstPage(fallback);
        fallback = null;
        for (long i = 0; i < PAGE_ROWS; i++) {
            writer.writeLong(i % 10);
        }
        assertThat(page(writer)).isNotEmpty();

        collectUntilCleared(dictionary);
        assertThat(dictionary.get()).as("the dictionary, after a first page that used it").isNotNull();
        assertThat(writer.toDictPageAndClose()).isNotNull();
    }

    private static FallbackValuesWriter<?, ?> parquetsWriter() {
        return (FallbackValuesWriter<?, ?>) properties(false).newValuesWriter(descriptor(PrimitiveTypeName.INT64));
    }

    private static ParquetProperties properties(boolean ours) {
        ParquetProperties.Builder builder = ParquetProperties.builder()
                .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_1_0)
                // Small, so that a column of values repeating in the first page outgrows it in the second.
                .withDictionaryPageSize(64 << 10);
        if (ours) {
            builder.withValuesWriterFactory(new DictionaryFallbacks());
        }
        return builder.build();
    }

    private static ColumnDescriptor descriptor(PrimitiveTypeName type) {
        return Types.buildMessage().required(type).length(3).named("c").named("t").getColumns().get(0);
    }

    private static void write(ValuesWriter writer, Object value) {
        if (value instanceof Long v) {
            writer.writeLong(v);
        } else if (value instanceof Integer v) {
            writer.writeInteger(v);
        } else if (value instanceof Double v) {
            writer.writeDouble(v);
        } else if (value instanceof Float v) {
            writer.writeFloat(v);
        } else if (value instanceof Binary v) {
            writer.writeBytes(v);
        } else {
            writer.writeBoolean((Boolean) value);
        }
    }

    /** A page as a column writer takes it: its bytes, then its encoding, then the reset. */
    private static byte[] page(ValuesWriter writer) throws IOException {
        byte[] bytes = writer.getBytes().toByteArray();
        byte[] encoding = writer.getEncoding().name().getBytes(StandardCharsets.US_ASCII);
        writer.reset();
        byte[] page = Arrays.copyOf(bytes, bytes.length + encoding.length);
        System.arraycopy(encoding, 0, page, bytes.length, encoding.length);
        return page;
    }

    private static void collectUntilCleared(WeakReference<?> reference) throws InterruptedException {
        for (int i = 0; i < 10 && reference.get() != null; i++) {
            System.gc();
            Thread.sleep(20);
        }
    }
}

package io.loadgate.worker.validation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loadgate.worker.testing.GenericParquet;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.apache.parquet.bytes.ByteBufferAllocator;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.LocalInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ParquetFilesTest {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "note", Types.StringType.get()));
    private static final int ROWS = 30_000;


    @TempDir
    Path dir;

    @Test
    void readsTheFooterAndRowGroupsParquetJavaReadsItself() throws IOException {
        LocalInputFile file = new LocalInputFile(write("zstd", 65_536, 1_048_576));
        ParquetMetadata expected;
        try (ParquetFileReader reader = ParquetFileReader.open(file)) {
            expected = reader.getFooter();
        }

        try (ParquetFileReader second = ParquetFiles.open(file)) {
            try (ParquetFileReader first = ParquetFiles.open(file)) {
                assertThat(first.getFooter().toString()).isEqualTo(expected.toString());
                assertThat(first.readNextRowGroup().getRowCount()).isPositive();
            }
            // Two readers of one file, the first closed while the second reads: each has options of its own.
            assertThat(second.getFooter().getBlocks()).hasSizeGreaterThan(1);
            long rows = 0;
            for (PageReadStore group = second.readNextRowGroup(); group != null; group = second.readNextRowGroup()) {
                rows += group.getRowCount();
            }
            assertThat(rows).isEqualTo(ROWS);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"zstd", "snappy", "gzip", "uncompressed"})
    void everyPageDecompressesToWhatParquetJavaReadsItself(String codec) throws IOException {
        InputFile file = new LocalInputFile(write(codec, 131_072, 16_384));

        List<byte[]> expected = pages(ParquetFileReader.open(file));
        List<byte[]> read = pages(ParquetFiles.open(file));

        // Several row groups of several pages each, every page's bytes the same.
        assertThat(expected).hasSizeGreaterThan(8);
        assertThat(read).hasSameSizeAs(expected);
        for (int i = 0; i < expected.size(); i++) {
            assertThat(read.get(i)).as("page %d", i).isEqualTo(expected.get(i));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"zstd", "uncompressed"})
    void aColumnChunkIsReadInBuffersUnderHalfAG1Region(String codec) throws IOException {
        // One row group, pages of 1 MiB: the note column's chunk is several times the largest buffer, and its pages
        // cross from one buffer into the next.
        InputFile file = new LocalInputFile(write(codec, 64 << 20, 1 << 20, 96));
        List<Integer> allocated = new ArrayList<>();
        HeapByteBufferAllocator heap = new HeapByteBufferAllocator();
        ByteBufferAllocator recording = new ByteBufferAllocator() {
            @Override
            public ByteBuffer allocate(int size) {
                allocated.add(size);
                return heap.allocate(size);
            }

            @Override
            public void release(ByteBuffer buffer) {
                heap.release(buffer);
            }

            @Override
            public boolean isDirect() {
                return false;
            }
        };

        List<byte[]> expected = pages(ParquetFileReader.open(file));
        List<byte[]> read = pages(ParquetFiles.open(file, recording, ParquetFiles.codecs()));

        assertThat(read).hasSameSizeAs(expected);
        for (int i = 0; i < expected.size(); i++) {
            assertThat(read.get(i)).as("page %d", i).isEqualTo(expected.get(i));
        }
        // Half of the 1 MiB region G1 gives a heap under 2 GiB: a larger array is a humongous object.
        assertThat(allocated).allSatisfy(size -> assertThat(size).isLessThan(512 << 10));
        assertThat(allocated.stream().mapToLong(Integer::longValue).sum()).isGreaterThan(1L << 20);
    }

    @Test
    void aZstdPageIsDecompressedByReadCodecs() throws IOException {
        Path path = write("zstd", 131_072, 16_384);
        long firstPage;
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(path))) {
            firstPage = reader.getRowGroups().get(0).getColumns().get(0).getFirstDataPageOffset();
        }
        // The first page's ZSTD frame no longer starts with ZSTD's magic number; only ReadCodecs words its failure so.
        byte[] bytes = java.nio.file.Files.readAllBytes(path);
        int magic = (int) firstPage;
        while (!(bytes[magic] == 0x28 && bytes[magic + 1] == (byte) 0xB5 && bytes[magic + 2] == 0x2F
                && bytes[magic + 3] == (byte) 0xFD)) {
            magic++;
        }
        bytes[magic] ^= 0x01;
        java.nio.file.Files.write(path, bytes);

        assertThatThrownBy(() -> pages(ParquetFiles.open(new LocalInputFile(path))))
                .hasStackTraceContaining("cannot decompress a ZSTD page");
    }

    /** Every data page's decompressed bytes, column by column, row group by row group; closes the reader. */
    private static List<byte[]> pages(ParquetFileReader reader) throws IOException {
        try (reader) {
            List<ColumnDescriptor> columns = reader.getFileMetaData().getSchema().getColumns();
            List<byte[]> pages = new ArrayList<>();
            for (PageReadStore group = reader.readNextRowGroup(); group != null; group = reader.readNextRowGroup()) {
                for (ColumnDescriptor column : columns) {
                    PageReader pageReader = group.getPageReader(column);
                    for (DataPage page = pageReader.readPage(); page != null; page = pageReader.readPage()) {
                        pages.add(((DataPageV1) page).getBytes().toByteArray());
                    }
                }
            }
            return pages;
        }
    }

    private Path write(String codec, int rowGroupBytes, int pageBytes) {
        return write(codec, rowGroupBytes, pageBytes, 0);
    }

    /** With {@code randomHexDigits} > 0, each note is as many random hex digits: a column that compresses little. */
    private Path write(String codec, int rowGroupBytes, int pageBytes, int randomHexDigits) {
        Random random = new Random(42);
        List<Record> rows = new ArrayList<>(ROWS);
        for (long i = 0; i < ROWS; i++) {
            Record r = GenericRecord.create(SCHEMA);
            r.setField("id", i * 7_919);
            StringBuilder note = new StringBuilder("note " + (i * 31 % 9_973));
            while (note.length() < randomHexDigits) {
                note.append(Long.toHexString(random.nextLong()));
            }
            r.setField("note", i % 11 == 0 ? null : note.toString());
            rows.add(r);
        }
        return GenericParquet.write(dir.resolve(codec + ".parquet").toFile(), SCHEMA, rows, Map.of(
                TableProperties.PARQUET_COMPRESSION, codec,
                TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, Integer.toString(rowGroupBytes),
                TableProperties.PARQUET_PAGE_SIZE_BYTES, Integer.toString(pageBytes))).toPath();
    }
}

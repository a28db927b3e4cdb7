package io.loadgate.worker.validation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.luben.zstd.Zstd;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.iceberg.Files;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.LocalInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ReadCodecsTest {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "note", Types.StringType.get()));
    private static final int ROWS = 30_000;

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"zstd", "snappy", "gzip", "uncompressed"})
    void everyPageDecompressesToWhatParquetJavaReadsItself(String codec) throws IOException {
        InputFile file = new LocalInputFile(write(codec));

        List<byte[]> expected = pages(ParquetFileReader.open(file));
        List<byte[]> read = pages(ParquetFiles.open(file));

        // Several row groups of several pages each, every page's bytes the same.
        assertThat(expected).hasSizeGreaterThan(8);
        assertThat(read).hasSameSizeAs(expected);
        for (int i = 0; i < expected.size(); i++) {
            assertThat(read.get(i)).as("page %d", i).isEqualTo(expected.get(i));
        }
    }

    @Test
    void zstdIsDecompressedHereAndEveryOtherCodecByTheFactoryGiven() {
        List<CompressionCodecName> asked = new ArrayList<>();
        List<String> released = new ArrayList<>();
        ReadCodecs codecs = new ReadCodecs(new CompressionCodecFactory() {
            @Override
            public BytesInputCompressor getCompressor(CompressionCodecName codec) {
                throw new UnsupportedOperationException();
            }

            @Override
            public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
                asked.add(codec);
                return null;
            }

            @Override
            public void release() {
                released.add("others");
            }
        });

        CompressionCodecFactory.BytesInputDecompressor zstd = codecs.getDecompressor(CompressionCodecName.ZSTD);
        assertThat(zstd).isInstanceOf(ReadCodecs.ZstdPages.class)
                .isSameAs(codecs.getDecompressor(CompressionCodecName.ZSTD));
        codecs.getDecompressor(CompressionCodecName.SNAPPY);
        codecs.release();

        assertThat(asked).containsExactly(CompressionCodecName.SNAPPY);
        assertThat(released).containsExactly("others");
        // Released with the reader: a codec asked for afterwards is a new one.
        assertThat(codecs.getDecompressor(CompressionCodecName.ZSTD)).isNotSameAs(zstd);
    }

    @Test
    void aPageIsDecompressedFromASliceOfALargerBuffer() throws IOException {
        byte[] page = "a page of text, a page of text, a page of text".repeat(100).getBytes(StandardCharsets.UTF_8);
        byte[] frame = Zstd.compress(page);
        byte[] chunk = new byte[frame.length + 100];
        System.arraycopy(frame, 0, chunk, 37, frame.length);
        ReadCodecs.ZstdPages zstd = new ReadCodecs.ZstdPages();
        try {
            ByteBuffer slice = ByteBuffer.wrap(chunk, 37, frame.length).slice();
            assertThat(zstd.decompress(BytesInput.from(slice), page.length).toByteArray()).isEqualTo(page);
            // A read-only buffer has no array to read from: its bytes are copied first.
            assertThat(zstd.decompress(BytesInput.from(slice.asReadOnlyBuffer()), page.length).toByteArray())
                    .isEqualTo(page);

            ByteBuffer input = ByteBuffer.wrap(chunk);
            input.position(37);
            ByteBuffer output = ByteBuffer.allocate(page.length + 10);
            zstd.decompress(input, frame.length, output, page.length);
            assertThat(input.position()).isEqualTo(37 + frame.length);
            assertThat(output.position()).isEqualTo(page.length);
            assertThat(Arrays.copyOf(output.array(), page.length)).isEqualTo(page);
        } finally {
            zstd.release();
        }
    }

    @Test
    void aPageThatDoesNotDecompressToItsHeadersSizeFailsTheRead() {
        byte[] page = "forty-two bytes of a page, and a few more.".getBytes(StandardCharsets.UTF_8);
        byte[] frame = Zstd.compress(page);
        ReadCodecs.ZstdPages zstd = new ReadCodecs.ZstdPages();
        try {
            assertThatThrownBy(() -> zstd.decompress(BytesInput.from(frame), page.length + 1))
                    .isInstanceOf(IOException.class)
                    .hasMessage("a ZSTD page decompressed to " + page.length + " bytes, its header says "
                            + (page.length + 1));
            assertThatThrownBy(() -> zstd.decompress(BytesInput.from(frame), page.length - 1))
                    .isInstanceOf(IOException.class)
                    .hasMessageStartingWith("cannot decompress a ZSTD page: ");
            byte[] garbage = Arrays.copyOf(frame, frame.length);
            garbage[0] ^= 0x55;
            assertThatThrownBy(() -> zstd.decompress(BytesInput.from(garbage), page.length))
                    .isInstanceOf(IOException.class)
                    .hasMessageStartingWith("cannot decompress a ZSTD page: ");
        } finally {
            zstd.release();
        }
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

    private Path write(String codec) throws IOException {
        File file = dir.resolve(codec + ".parquet").toFile();
        try (FileAppender<Record> appender = Parquet.write(Files.localOutput(file)).schema(SCHEMA)
                .set(TableProperties.PARQUET_COMPRESSION, codec)
                .set(TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, "131072")
                .set(TableProperties.PARQUET_PAGE_SIZE_BYTES, "16384")
                .createWriterFunc(GenericParquetWriter::create).build()) {
            for (long i = 0; i < ROWS; i++) {
                Record r = GenericRecord.create(SCHEMA);
                r.setField("id", i * 7_919);
                r.setField("note", i % 11 == 0 ? null : "note " + (i * 31 % 9_973));
                appender.add(r);
            }
        }
        return file.toPath();
    }
}

package io.loadgate.worker.staging;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.job.StagingSpec;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.function.BiFunction;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.parquet.ParquetCodecFactory;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.iceberg.parquet.ParquetValueWriter;
import org.apache.parquet.bytes.ByteBufferAllocator;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputCompressor;
import org.apache.parquet.crypto.InternalFileEncryptor;
import org.apache.parquet.hadoop.ColumnChunkPageWriteStore;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.codec.CleanUtil;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.DelegatingPositionOutputStream;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.schema.MessageType;

/**
 * Writes one staged Parquet file as Iceberg's {@code Parquet.write} does with the same settings (the same bytes,
 * StagedParquetWriterTest), except where a row group's compressed pages wait until the row group is written: here
 * in direct memory, freed as soon as it is written, rather than on the heap; and a dictionary its column gave up on
 * the first page is let go then ({@link DictionaryFallbacks}).
 *
 * <p>Why: a partition's writer holds its chunk's pages (~15 MB for a million rows of the bench's table) for as long
 * as the chunk takes to write, long enough that G1 copies them into the old generation, where they die with the
 * chunk. That garbage grew with the rows loaded and was most of what a worker promoted; as it filled the old
 * generation the young one was squeezed and G1 grew the heap (docs/validation.md, "A row group's pages off the
 * heap"). Iceberg's builder gives no way to choose the page store's allocator, so the few calls it makes are made
 * here: a file writer, a page store per row group, and the value writer of {@link ChunkWriter} driving the columns.
 */
final class StagedParquetWriter<T> implements Closeable {
    /** Iceberg's {@code write.parquet.row-group-size-bytes}; a chunk of the default size is one row group. */
    private static final long ROW_GROUP_BYTES = 128L << 20;
    /** Iceberg's {@code write.parquet.dict-size-bytes}. */
    private static final int DICTIONARY_PAGE_BYTES = 2 << 20;
    /** Parquet's {@code parquet.columnindex.truncate.length}, which Iceberg's writer passes on. */
    private static final int COLUMN_INDEX_TRUNCATE_LENGTH = 64;
    static final ByteBufferAllocator DIRECT = new FreedDirectBuffers();

    private final String location;
    private final long rowGroupBytes;
    private final ByteBufferAllocator pageAllocator;
    private final ParquetProperties properties;
    private final MessageType type;
    private final BytesInputCompressor compressor;
    private final ParquetValueWriter<T> values;
    private final ParquetFileWriter file;
    private final Map<String, String> metadata;
    private ColumnChunkPageWriteStore pages;
    private ColumnWriteStore columns;
    private int rowGroups;
    private long records;
    private long nextSizeCheck;
    private boolean closed;

    /** Creates {@code output} and starts its first row group. */
    StagedParquetWriter(DigestingOutputFile output, Schema schema, StagingSpec staging, int pageBytes,
                        BiFunction<Schema, MessageType, ParquetValueWriter<?>> writerFunction) throws IOException {
        this(output, schema, staging, pageBytes, writerFunction, ROW_GROUP_BYTES, DIRECT);
    }

    /** The writer of the constructor above, with its row groups' size and its pages' allocator chosen (for tests). */
    @SuppressWarnings("unchecked")
    StagedParquetWriter(DigestingOutputFile output, Schema schema, StagingSpec staging, int pageBytes,
                        BiFunction<Schema, MessageType, ParquetValueWriter<?>> writerFunction, long rowGroupBytes,
                        ByteBufferAllocator pageAllocator) throws IOException {
        requireNonNull(output, "output is null");
        requireNonNull(schema, "schema is null");
        requireNonNull(staging, "staging is null");
        this.location = output.location();
        this.rowGroupBytes = rowGroupBytes;
        this.pageAllocator = requireNonNull(pageAllocator, "pageAllocator is null");
        this.properties = ParquetProperties.builder()
                .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_1_0)
                .withPageSize(pageBytes)
                .withDictionaryPageSize(DICTIONARY_PAGE_BYTES)
                .withValuesWriterFactory(new DictionaryFallbacks())
                .build();
        this.type = ParquetSchemaUtil.convert(schema, "table");
        this.values = (ParquetValueWriter<T>) writerFunction.apply(schema, type);
        this.metadata = Map.of("iceberg.schema", SchemaParser.toJson(schema));
        this.compressor = new ParquetCodecFactory(codecConfiguration(staging), properties.getPageSizeThreshold())
                .getCompressor(CompressionCodecName.valueOf(staging.compression().name()));
        this.file = new ParquetFileWriter(parquetFile(output), type, ParquetFileWriter.Mode.CREATE, rowGroupBytes, 0,
                COLUMN_INDEX_TRUNCATE_LENGTH, properties.getStatisticsTruncateLength(),
                properties.getPageWriteChecksumEnabled(), (InternalFileEncryptor) null);
        file.start();
        startRowGroup();
    }

    /** The codec's level where Iceberg's writer puts {@code write.parquet.compression-level}. */
    private static Configuration codecConfiguration(StagingSpec staging) {
        Configuration conf = new Configuration(false);
        Integer level = staging.compressionLevel();
        if (level != null) {
            switch (staging.compression()) {
                case ZSTD -> {
                    conf.set("io.compression.codec.zstd.level", level.toString());
                    conf.set("parquet.compression.codec.zstd.level", level.toString());
                }
                case GZIP -> conf.set("zlib.compress.level", level.toString());
                case SNAPPY, UNCOMPRESSED -> { }
            }
        }
        return conf;
    }

    void add(T row) {
        values.write(0, row);
        columns.endRecord();
        records++;
        if (records >= nextSizeCheck) {
            checkSize();
        }
    }

    /** Parquet's own pacing: measure the buffered bytes every 100 to 10,000 rows, more often as the group fills. */
    private void checkSize() {
        long buffered = columns.getBufferedSize();
        if (buffered >= rowGroupBytes) {
            flushRowGroup();
            startRowGroup();
            return;
        }
        long rowsLeft = (long) ((rowGroupBytes - buffered) / ((double) buffered / records));
        nextSizeCheck = records + Math.min(Math.max(rowsLeft / 2, properties.getMinRowCountForPageSizeCheck()),
                properties.getMaxRowCountForPageSizeCheck());
    }

    private void startRowGroup() {
        pages = new ColumnChunkPageWriteStore(compressor, type, pageAllocator, COLUMN_INDEX_TRUNCATE_LENGTH,
                properties.getPageWriteChecksumEnabled(), null, rowGroups++);
        columns = properties.newColumnWriteStore(type, pages, pages);
        values.setColumnStore(columns);
        records = 0;
        nextSizeCheck = properties.getMinRowCountForPageSizeCheck();
    }

    private void flushRowGroup() {
        try {
            file.startBlock(records);
            columns.flush();
            pages.flushToFileWriter(file);
            file.endBlock();
            columns.close();
        } catch (IOException e) {
            throw new UncheckedIOException("writing a row group of " + location + " failed: " + e.getMessage(), e);
        } finally {
            pages.close();
        }
    }

    /** Writes the rows' last row group and the footer. A failure still frees the pages held off the heap. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (records > 0) {
                flushRowGroup();
            }
            file.end(metadata);
        } finally {
            pages.close();
            compressor.release();
        }
    }

    /** Parquet's view of a staged file, as Iceberg's {@code ParquetIO} gives it; the file is only ever created. */
    private static OutputFile parquetFile(DigestingOutputFile output) {
        return new OutputFile() {
            @Override
            public org.apache.parquet.io.PositionOutputStream create(long blockSizeHint) {
                PositionOutputStream stream = output.create();
                return new DelegatingPositionOutputStream(stream) {
                    @Override
                    public long getPos() throws IOException {
                        return stream.getPos();
                    }
                };
            }

            @Override
            public org.apache.parquet.io.PositionOutputStream createOrOverwrite(long blockSizeHint) {
                throw new UnsupportedOperationException("staged files are never overwritten: " + output.location());
            }

            @Override
            public boolean supportsBlockSize() {
                return false;
            }

            @Override
            public long defaultBlockSize() {
                return 0;
            }

            @Override
            public String getPath() {
                return output.location();
            }
        };
    }

    /**
     * Direct buffers freed when Parquet releases them. Parquet's own direct allocator leaves them to the garbage
     * collector, which would free their memory only when it collects the small buffer objects, by then in the old
     * generation.
     */
    private static final class FreedDirectBuffers implements ByteBufferAllocator {
        @Override
        public ByteBuffer allocate(int size) {
            return ByteBuffer.allocateDirect(size);
        }

        @Override
        public void release(ByteBuffer buffer) {
            CleanUtil.cleanDirectBuffer(buffer);
        }

        @Override
        public boolean isDirect() {
            return true;
        }
    }
}

package io.loadgate.worker.validation;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.bytes.ByteBufferAllocator;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.conf.HadoopParquetConfiguration;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.InputFile;

/**
 * Opens Parquet files as {@code ParquetFileReader.open(file)} does, with read options made from Hadoop's defaults,
 * but from a {@link Configuration} loaded once. parquet-java makes a new Configuration for every file it opens so,
 * and the first read of each parses Hadoop's default resources again: 8–10 ms a file on the bench machine, against
 * about 1 ms to read a staged file's footer. A step that opens every file of a run (staging validation, the
 * publish's footer metrics, the target's check) paid it per file. ZSTD pages are decompressed by {@link ReadCodecs},
 * column chunks read in buffers of at most {@link #READ_BUFFER_BYTES}.
 */
public final class ParquetFiles {
    private static final Configuration DEFAULTS = new Configuration();
    /**
     * The largest buffer a column chunk is read into (parquet-java's default: 8 MiB; a vectored read, its default
     * for local files, takes each run of adjacent chunks into one buffer of its whole size). Under half of G1's 1 MiB
     * region, so no buffer is a humongous object (see {@code ChunkWriter.PAGE_BYTES}); a page across two buffers is
     * copied into one of its own size.
     */
    static final int READ_BUFFER_BYTES = 256 << 10;

    private ParquetFiles() {
    }

    /**
     * A reader of {@code file}. Each gets options of its own: the options hold the codecs their reader takes
     * decompressors from and releases when it closes, which readers on several threads must not share.
     */
    public static ParquetFileReader open(InputFile file) throws IOException {
        return open(file, new HeapByteBufferAllocator(), codecs());
    }

    /** The codecs of a reader: ZSTD by {@link ReadCodecs}, the others by parquet-java's factory. */
    static ReadCodecs codecs() {
        return new ReadCodecs(new CodecFactory(new HadoopParquetConfiguration(DEFAULTS), 0));
    }

    /**
     * A reader of {@code file} whose column chunks are read into buffers of {@code allocator} and whose pages are
     * decompressed by {@code codecs} (of {@link #codecs()}, for this reader alone), which it releases when it closes:
     * its caller can hand the pages it has read back to them.
     */
    static ParquetFileReader open(InputFile file, ByteBufferAllocator allocator, ReadCodecs codecs)
            throws IOException {
        requireNonNull(file, "file is null");
        return ParquetFileReader.open(file, ParquetReadOptions.builder(new HadoopParquetConfiguration(DEFAULTS))
                .withCodecFactory(codecs)
                .withAllocator(allocator)
                .withUseHadoopVectoredIo(false)
                .withMaxAllocationInBytes(READ_BUFFER_BYTES)
                .build());
    }
}

package io.loadgate.worker.validation;

import static java.util.Objects.requireNonNull;

import com.github.luben.zstd.ZstdDecompressCtx;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * The codecs one reader decompresses a file's pages with: a ZSTD page in one call into an array of its size, every
 * other codec as parquet-java's own factory does.
 *
 * <p>Why: parquet-java decompresses a ZSTD page through zstd-jni's {@code ZstdInputStream}, an object with a finalizer,
 * reading the page's bytes: a slice of the buffer its column chunk was read into (7 MiB for a column of a
 * 1,000,000-row chunk). Until the finalizer thread has run and a later collection has found the stream unreachable,
 * each page's stream keeps its chunk's whole buffer alive. A heap dump of a worker measuring staged files found 38 MiB
 * of column chunks held only by such streams; they outlive young collections and fill the old generation: a
 * 25,000,000-row load's full collections left up to 270 MiB live with them, 42–87 MiB without (docs/validation.md).
 * A {@link ZstdDecompressCtx} has no finalizer: one per reader, closed when the reader releases its codecs. The bytes
 * decompressed are the same; a page that does not decompress to exactly the size its header gives fails the read.
 */
final class ReadCodecs implements CompressionCodecFactory {
    private final CompressionCodecFactory others;
    private ZstdPages zstd;

    /** {@code others} decompresses every codec but ZSTD, and is released with this. */
    ReadCodecs(CompressionCodecFactory others) {
        this.others = requireNonNull(others, "others is null");
    }

    @Override
    public BytesInputCompressor getCompressor(CompressionCodecName codec) {
        return others.getCompressor(codec);
    }

    @Override
    public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
        if (codec != CompressionCodecName.ZSTD) {
            return others.getDecompressor(codec);
        }
        if (zstd == null) {
            zstd = new ZstdPages();
        }
        return zstd;
    }

    @Override
    public void release() {
        try {
            others.release();
        } finally {
            if (zstd != null) {
                zstd.release();
                zstd = null;
            }
        }
    }

    /** ZSTD pages decompressed by one native context, reused page after page. */
    static final class ZstdPages implements BytesInputDecompressor {
        private final ZstdDecompressCtx context = new ZstdDecompressCtx();

        @Override
        public BytesInput decompress(BytesInput bytes, int uncompressedSize) throws IOException {
            ByteBuffer compressed = bytes.toByteBuffer();
            byte[] page = new byte[uncompressedSize];
            int size;
            try {
                if (compressed.hasArray()) {
                    size = context.decompressByteArray(page, 0, uncompressedSize, compressed.array(),
                            compressed.arrayOffset() + compressed.position(), compressed.remaining());
                } else {
                    byte[] copy = new byte[compressed.remaining()];
                    compressed.duplicate().get(copy);
                    size = context.decompressByteArray(page, 0, uncompressedSize, copy, 0, copy.length);
                }
            } catch (RuntimeException e) {
                throw new IOException("cannot decompress a ZSTD page: " + e.getMessage(), e);
            }
            requireSize(size, uncompressedSize);
            return BytesInput.from(page);
        }

        /** As parquet-java's heap decompressor does it: the input read past the page, the page put into the output. */
        @Override
        public void decompress(ByteBuffer input, int compressedSize, ByteBuffer output, int uncompressedSize)
                throws IOException {
            ByteBuffer compressed = input.duplicate();
            compressed.limit(compressed.position() + compressedSize);
            output.put(decompress(BytesInput.from(compressed), uncompressedSize).toByteBuffer());
            input.position(input.position() + compressedSize);
        }

        @Override
        public void release() {
            context.close();
        }

        private static void requireSize(int size, int expected) throws IOException {
            if (size != expected) {
                throw new IOException("a ZSTD page decompressed to " + size + " bytes, its header says " + expected);
            }
        }
    }
}

package io.loadgate.worker.validation;

import static java.util.Objects.requireNonNull;

import com.github.luben.zstd.ZstdDecompressCtx;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.parquet.bytes.ByteBufferAllocator;
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

    /**
     * Takes back {@code page}, a page this reader's ZSTD decompressor made, whose reader has read it to its end and
     * keeps nothing of it: the next page is decompressed into its array. Bytes this did not make are ignored.
     */
    void recycle(BytesInput page) {
        if (zstd != null) {
            zstd.recycle(page);
        }
    }

    /**
     * ZSTD pages decompressed by one native context, reused page after page, into arrays that are reused too when
     * their reader {@link #recycle recycles} them. Why: staging validation's decompressed pages were half of what a
     * worker allocated while it measured a load's files (1.5 of 2.5 GB in the last 3 s of a 25,000,000-row load,
     * JFR), so many young collections in a second that G1 took the pause time for a sign to grow the heap. Only a
     * page handed back is written over: a reader that keeps a page's bytes (parquet-java's dictionaries, a string's
     * extremes) never hands them back.
     */
    static final class ZstdPages implements BytesInputDecompressor {
        private final ZstdDecompressCtx context = new ZstdDecompressCtx();
        // A compressed page across two of its chunk's read buffers is copied into this first, reused page after page.
        private final Scratch input = new Scratch();
        // The last page made, and its array; an array handed back, the next page's.
        private BytesInput lent;
        private byte[] lentArray;
        private byte[] spare;

        @Override
        public BytesInput decompress(BytesInput bytes, int uncompressedSize) throws IOException {
            ByteBuffer compressed = bytes.toByteBuffer(input, unused -> { });
            if (!compressed.hasArray()) {
                compressed = input.allocate(compressed.remaining()).put(compressed.duplicate()).flip();
            }
            byte[] page = spare != null && spare.length >= uncompressedSize ? spare : new byte[uncompressedSize];
            spare = null;
            int size;
            try {
                size = context.decompressByteArray(page, 0, uncompressedSize, compressed.array(),
                        compressed.arrayOffset() + compressed.position(), compressed.remaining());
            } catch (RuntimeException e) {
                throw new IOException("cannot decompress a ZSTD page: " + e.getMessage(), e);
            }
            requireSize(size, uncompressedSize);
            // Not BytesInput.from(byte[], ...): it boxes the length for a debug log, page after page.
            lent = BytesInput.from(ByteBuffer.wrap(page, 0, uncompressedSize));
            lentArray = page;
            return lent;
        }

        void recycle(BytesInput page) {
            if (page != null && page == lent) {
                spare = lentArray;
                lent = null;
                lentArray = null;
            }
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

    /** Heap buffers over one array, grown as needed: each allocation's bytes are the previous one's, written over. */
    private static final class Scratch implements ByteBufferAllocator {
        private byte[] bytes = new byte[0];

        @Override
        public ByteBuffer allocate(int size) {
            if (bytes.length < size) {
                bytes = new byte[size];
            }
            return ByteBuffer.wrap(bytes, 0, size);
        }

        @Override
        public void release(ByteBuffer buffer) {
        }

        @Override
        public boolean isDirect() {
            return false;
        }
    }
}

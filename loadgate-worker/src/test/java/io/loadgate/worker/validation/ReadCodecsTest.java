package io.loadgate.worker.validation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.luben.zstd.Zstd;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;

class ReadCodecsTest {
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

    @Test
    void onlyThePageLastMadeAndHandedBackIsDecompressedIntoAgain() throws IOException {
        byte[] a = text("first ", 3_000);
        byte[] b = text("second ", 2_000);
        byte[] c = text("third ", 1_000);
        ReadCodecs.ZstdPages zstd = new ReadCodecs.ZstdPages();
        try {
            BytesInput first = zstd.decompress(BytesInput.from(Zstd.compress(a)), a.length);
            BytesInput second = zstd.decompress(BytesInput.from(Zstd.compress(b)), b.length);
            assertThat(array(second)).as("a page not handed back is kept").isNotSameAs(array(first));

            zstd.recycle(second);
            BytesInput third = zstd.decompress(BytesInput.from(Zstd.compress(c)), c.length);
            assertThat(array(third)).as("a larger page's array holds a smaller page").isSameAs(array(second));
            assertThat(third.size()).isEqualTo(c.length);
            assertThat(third.toByteArray()).isEqualTo(c);
            assertThat(first.toByteArray()).isEqualTo(a);

            // Bytes this did not make, and a page made before the last, are not taken back.
            zstd.recycle(BytesInput.from(new byte[c.length]));
            zstd.recycle(first);
            BytesInput fourth = zstd.decompress(BytesInput.from(Zstd.compress(b)), b.length);
            assertThat(array(fourth)).isNotSameAs(array(third)).isNotSameAs(array(first));
            assertThat(third.toByteArray()).isEqualTo(c);
            assertThat(first.toByteArray()).isEqualTo(a);
            assertThat(fourth.toByteArray()).isEqualTo(b);

            // A page larger than the array handed back gets one of its own size.
            zstd.recycle(fourth);
            byte[] large = text("a larger page ", 10_000);
            assertThat(zstd.decompress(BytesInput.from(Zstd.compress(large)), large.length).toByteArray())
                    .isEqualTo(large);
        } finally {
            zstd.release();
        }
    }

    @Test
    void aCompressedPageAcrossTwoReadBuffersIsDecompressedAsOne() throws IOException {
        ReadCodecs.ZstdPages zstd = new ReadCodecs.ZstdPages();
        try {
            // Twice, the second page smaller: both are copied into the same scratch array first.
            for (byte[] page : List.of(text("a page in two buffers ", 4_000), text("another ", 500))) {
                byte[] frame = Zstd.compress(page);
                int cut = frame.length / 3;
                BytesInput split = BytesInput.from(List.of(ByteBuffer.wrap(frame, 0, cut).slice(),
                        ByteBuffer.wrap(frame, cut, frame.length - cut).slice()));
                assertThat(zstd.decompress(split, page.length).toByteArray()).isEqualTo(page);
            }
        } finally {
            zstd.release();
        }
    }

    private static byte[] text(String word, int times) {
        return word.repeat(times).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] array(BytesInput page) throws IOException {
        return page.toByteBuffer().array();
    }
}

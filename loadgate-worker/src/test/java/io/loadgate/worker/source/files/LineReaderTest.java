package io.loadgate.worker.source.files;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * The reader's lines, 8 bytes at a time, are the stream split on {@code \n} with one trailing {@code \r} dropped,
 * wherever the stream's reads end; its count is their number; a line is ASCII when none of its bytes is over 0x7f.
 */
class LineReaderTest {
    @Property(tries = 1000)
    void linesAreTheBytesSplitOnNewlinesWhereverTheReadsEnd(@ForAll("streams") byte[] stream,
                                                           @ForAll @IntRange(min = 1, max = 70_000) int readSize)
            throws IOException {
        List<byte[]> expected = split(stream);
        List<String> lines = new ArrayList<>();
        try (LineReader reader = new LineReader(new Trickle(stream, readSize))) {
            for (byte[] line : expected) {
                assertThat(reader.advance()).as("a line after %s", lines.size()).isTrue();
                byte[] got = Arrays.copyOfRange(reader.bytes(), reader.offset(), reader.offset() + reader.length());
                assertThat(got).as("line %s", lines.size()).isEqualTo(line);
                boolean ascii = true;
                for (byte b : line) {
                    ascii &= b >= 0;
                }
                assertThat(reader.ascii()).as("line %s is ASCII", lines.size()).isEqualTo(ascii);
                assertThat(reader.text()).isEqualTo(new String(line, StandardCharsets.UTF_8));
                lines.add(reader.text());
            }
            assertThat(reader.advance()).as("no line after the last").isFalse();
        }
        assertThat(LineReader.count(new Trickle(stream, readSize))).isEqualTo(expected.size());
        assertThat(LineReader.count(new ByteArrayInputStream(stream))).isEqualTo(expected.size());
    }

    @Test
    void aLineLongerThanTheBufferIsJoinedAndNextGivesTheText() throws IOException {
        byte[] stream = ("{\"a\":\"" + "é".repeat(50_000) + "\"}\r\n\nx\r").getBytes(StandardCharsets.UTF_8);
        try (LineReader reader = new LineReader(new ByteArrayInputStream(stream))) {
            assertThat(reader.next()).isEqualTo("{\"a\":\"" + "é".repeat(50_000) + "\"}");
            assertThat(reader.ascii()).isFalse();
            assertThat(reader.next()).isEmpty();
            assertThat(reader.ascii()).isTrue();
            assertThat(reader.next()).isEqualTo("x");
            assertThat(reader.next()).isNull();
        }
        assertThat(LineReader.count(new ByteArrayInputStream(stream))).isEqualTo(3);
        assertThat(LineReader.count(new ByteArrayInputStream(new byte[0]))).isZero();
    }

    /** The lines {@link LineReader}'s contract gives, split byte by byte. */
    private static List<byte[]> split(byte[] stream) {
        List<byte[]> lines = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= stream.length; i++) {
            if (i == stream.length ? i > start : stream[i] == '\n') {
                int end = i > start && stream[i - 1] == '\r' ? i - 1 : i;
                lines.add(Arrays.copyOfRange(stream, start, end));
                start = i + 1;
            }
        }
        return lines;
    }

    @Provide
    Arbitrary<byte[]> streams() {
        // Newlines, carriage returns, ASCII and high bytes (0x80, 0x8a: a newline's bits with the top one set).
        Arbitrary<Byte> b = Arbitraries.of((byte) '\n', (byte) '\r', (byte) 'a', (byte) 0, (byte) 0x0b,
                (byte) 0x80, (byte) 0x8a, (byte) 0xc3, (byte) 0xa9, (byte) 0xff, (byte) '{');
        Arbitrary<byte[]> small = b.array(byte[].class).ofMaxSize(200);
        // Sometimes a line longer than the reader's 64 KiB buffer.
        Arbitrary<byte[]> large = Arbitraries.integers().between(60_000, 140_000).flatMap(n ->
                b.array(byte[].class).ofSize(40).map(tail -> {
                    byte[] stream = new byte[n + tail.length];
                    Arrays.fill(stream, 0, n, (byte) 'x');
                    System.arraycopy(tail, 0, stream, n, tail.length);
                    return stream;
                }));
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(9, small), net.jqwik.api.Tuple.of(1, large));
    }

    /** A stream whose reads give at most {@code readSize} bytes, as a decompressor's or a socket's may. */
    private static final class Trickle extends InputStream {
        private final ByteArrayInputStream in;
        private final int readSize;

        Trickle(byte[] bytes, int readSize) {
            this.in = new ByteArrayInputStream(bytes);
            this.readSize = readSize;
        }

        @Override
        public int read() {
            return in.read();
        }

        @Override
        public int read(byte[] b, int off, int len) {
            return in.read(b, off, Math.min(len, readSize));
        }
    }
}

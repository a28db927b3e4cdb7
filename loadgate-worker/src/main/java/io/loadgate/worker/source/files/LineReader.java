package io.loadgate.worker.source.files;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Lines of a (decompressed) stream, split on {@code \n} alone, exactly as {@link #count} counts them: a final line
 * without a newline is a line, a trailing {@code \r} is dropped from its line. Reading and counting must agree to
 * the line, because the planner's count is the number of rows the partition must give.
 *
 * <p>A line is kept as its bytes ({@link #bytes}, {@link #offset}, {@link #length}) and decoded only when its text is
 * asked for ({@link #text}): an NDJSON line in ASCII is parsed from its bytes, which was half a file load's parse.
 * Both scans read 8 bytes at a time: a newline is the byte that {@code word ^ 0x0a..} turns to zero.
 */
final class LineReader implements AutoCloseable {
    private static final int BUFFER = 64 * 1024;
    private static final VarHandle WORDS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long NEWLINES = 0x0a0a0a0a0a0a0a0aL;
    private static final long LOWS = 0x0101010101010101L;
    private static final long SEVENS = 0x7f7f7f7f7f7f7f7fL;
    private static final long HIGHS = 0x8080808080808080L;

    private final InputStream in;
    private final byte[] buffer = new byte[BUFFER];
    private int position;
    private int limit;
    /** Holds a line that the buffer's end cut, its pieces joined. */
    private byte[] joined = new byte[256];
    /** The high bits of the line's bytes so far: zero while it is ASCII. */
    private long high;
    private byte[] lineBytes;
    private int lineOffset;
    private int lineLength;
    private String lineText;

    LineReader(InputStream in) {
        this.in = in;
    }

    /** The next line's text, or null at the end of the stream. */
    String next() throws IOException {
        return advance() ? text() : null;
    }

    /** Moves to the next line; false at the end of the stream. Its bytes are valid until the next call. */
    boolean advance() throws IOException {
        lineText = null;
        high = 0;
        int length = 0;
        boolean any = false;
        while (true) {
            if (position == limit) {
                limit = in.read(buffer, 0, BUFFER);
                position = 0;
                if (limit <= 0) {
                    limit = 0;
                    if (any) {
                        found(joined, 0, length);
                    }
                    return any;
                }
            }
            int start = position;
            position = newline(start, limit);
            int piece = position - start;
            if (position < limit && !any) {
                // The whole line is in the buffer: no copy.
                position++;
                found(buffer, start, piece);
                return true;
            }
            any = true;
            if (length + piece > joined.length) {
                joined = Arrays.copyOf(joined, Math.max(joined.length * 2, length + piece));
            }
            System.arraycopy(buffer, start, joined, length, piece);
            length += piece;
            if (position < limit) {
                position++;
                found(joined, 0, length);
                return true;
            }
        }
    }

    private void found(byte[] bytes, int offset, int length) {
        lineBytes = bytes;
        lineOffset = offset;
        lineLength = length > 0 && bytes[offset + length - 1] == '\r' ? length - 1 : length;
    }

    /** The index of the first {@code \n} of {@code buffer[from, to)}, or {@code to}; adds the bytes before to {@link #high}. */
    private int newline(int from, int to) {
        int i = from;
        for (; i <= to - Long.BYTES; i += Long.BYTES) {
            long word = (long) WORDS.get(buffer, i);
            long x = word ^ NEWLINES;
            // The lowest byte set here is the first zero of x; bytes above it may be set falsely (a borrow).
            long zero = (x - LOWS) & ~x & HIGHS;
            if (zero != 0) {
                int bits = Long.numberOfTrailingZeros(zero) - 7;
                high |= word & HIGHS & ((1L << bits) - 1);
                return i + (bits >>> 3);
            }
            high |= word & HIGHS;
        }
        for (; i < to; i++) {
            byte b = buffer[i];
            if (b == '\n') {
                return i;
            }
            high |= b & 0x80;
        }
        return to;
    }

    /** The line's bytes, from {@link #offset}, {@link #length} of them (without its {@code \r}). */
    byte[] bytes() {
        return lineBytes;
    }

    int offset() {
        return lineOffset;
    }

    int length() {
        return lineLength;
    }

    /** Whether every byte of the line is ASCII: then its bytes are its characters, one each. */
    boolean ascii() {
        return high == 0;
    }

    /** The line decoded as UTF-8 (a malformed sequence becomes U+FFFD, as {@code new String} decodes it). */
    String text() {
        if (lineText == null) {
            lineText = new String(lineBytes, lineOffset, lineLength, StandardCharsets.UTF_8);
        }
        return lineText;
    }

    /** The number of lines {@link #next} gives for {@code in}, counted on the bytes without decoding them. */
    static long count(InputStream in) throws IOException {
        byte[] buffer = new byte[BUFFER];
        long lines = 0;
        byte last = '\n';
        int read;
        while ((read = in.read(buffer)) > 0) {
            int i = 0;
            for (; i <= read - Long.BYTES; i += Long.BYTES) {
                long x = (long) WORDS.get(buffer, i) ^ NEWLINES;
                // Exact, unlike the test in newline: a byte's low seven bits plus 0x7f never carry into the next.
                long nonzero = ((x & SEVENS) + SEVENS) | x;
                lines += Long.bitCount(~nonzero & HIGHS);
            }
            for (; i < read; i++) {
                if (buffer[i] == '\n') {
                    lines++;
                }
            }
            last = buffer[read - 1];
        }
        return last == '\n' ? lines : lines + 1;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}

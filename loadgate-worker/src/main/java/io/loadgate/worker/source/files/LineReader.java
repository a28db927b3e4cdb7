package io.loadgate.worker.source.files;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Lines of a (decompressed) stream, split on {@code \n} alone, exactly as {@link #count} counts them: a final line
 * without a newline is a line, a trailing {@code \r} is dropped from its line. Reading and counting must agree to
 * the line, because the planner's count is the number of rows the partition must give.
 */
final class LineReader implements AutoCloseable {
    private static final int BUFFER = 64 * 1024;

    private final InputStream in;
    private final byte[] buffer = new byte[BUFFER];
    private int position;
    private int limit;
    private byte[] line = new byte[256];

    LineReader(InputStream in) {
        this.in = in;
    }

    /** The next line, or null at the end of the stream. */
    String next() throws IOException {
        int length = 0;
        boolean any = false;
        while (true) {
            if (position == limit) {
                limit = in.read(buffer, 0, BUFFER);
                position = 0;
                if (limit <= 0) {
                    limit = 0;
                    return any ? text(length) : null;
                }
            }
            any = true;
            int start = position;
            while (position < limit && buffer[position] != '\n') {
                position++;
            }
            int piece = position - start;
            if (length + piece > line.length) {
                line = Arrays.copyOf(line, Math.max(line.length * 2, length + piece));
            }
            System.arraycopy(buffer, start, line, length, piece);
            length += piece;
            if (position < limit) {
                position++;
                return text(length);
            }
        }
    }

    private String text(int length) {
        int end = length > 0 && line[length - 1] == '\r' ? length - 1 : length;
        return new String(line, 0, end, StandardCharsets.UTF_8);
    }

    /** The number of lines {@link #next} gives for {@code in}, counted on the bytes without decoding them. */
    static long count(InputStream in) throws IOException {
        byte[] buffer = new byte[BUFFER];
        long lines = 0;
        byte last = '\n';
        int read;
        while ((read = in.read(buffer)) > 0) {
            for (int i = 0; i < read; i++) {
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

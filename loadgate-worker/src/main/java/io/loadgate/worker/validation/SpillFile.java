package io.loadgate.worker.validation;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.ref.Cleaner;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One temporary file of sorted key runs, appended to by one set and read by whichever set unites it; deleted when no
 * run refers to it any more, so a calculator dropped half-way (a failed validation) leaves nothing behind. Not
 * {@code deleteOnExit}: that list only grows in a worker that runs for months.
 */
final class SpillFile {
    private static final Cleaner CLEANER = Cleaner.create();

    private final Path path;
    private final DataOutputStream out;
    private long length;

    SpillFile() throws IOException {
        this.path = Files.createTempFile("loadgate-keys-", ".runs");
        this.out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(path), 1 << 16));
        CLEANER.register(this, new Delete(path, out));
    }

    Path path() {
        return path;
    }

    /** Where the next run starts. */
    long length() {
        return length;
    }

    void writeLong(long value) throws IOException {
        out.writeLong(value);
        length += Long.BYTES;
    }

    void write(byte[] bytes) throws IOException {
        out.write(bytes);
        length += bytes.length;
    }

    /** Unsigned LEB128: seven bits a byte, low bits first. */
    void writeVarLong(long value) throws IOException {
        while ((value & ~0x7FL) != 0) {
            out.write((int) (value & 0x7F) | 0x80);
            value >>>= 7;
            length++;
        }
        out.write((int) value);
        length++;
    }

    /** Readers open the file on their own: what is written must be there before they read. */
    void flush() throws IOException {
        out.flush();
    }

    /** Reads back from {@code offset}, where a run was written. */
    Input open(long offset) throws IOException {
        InputStream file = Files.newInputStream(path);
        try {
            file.skipNBytes(offset);
        } catch (IOException | RuntimeException e) {
            file.close();
            throw e;
        }
        return new Input(new DataInputStream(new BufferedInputStream(file, 1 << 16)));
    }

    /** A run being read back: what {@link SpillFile} wrote, in the same order. */
    static final class Input implements AutoCloseable {
        private final DataInputStream in;

        private Input(DataInputStream in) {
            this.in = in;
        }

        long readLong() throws IOException {
            return in.readLong();
        }

        byte[] readBytes(int length) throws IOException {
            byte[] bytes = in.readNBytes(length);
            if (bytes.length != length) {
                throw endsEarly();
            }
            return bytes;
        }

        long readVarLong() throws IOException {
            long value = 0;
            for (int shift = 0; ; shift += 7) {
                int b = in.read();
                if (b < 0) {
                    throw endsEarly();
                }
                value |= (long) (b & 0x7F) << shift;
                if ((b & 0x80) == 0) {
                    return value;
                }
            }
        }

        private static EOFException endsEarly() {
            return new EOFException("a spilled run ends early");
        }

        @Override
        public void close() {
            try {
                in.close();
            } catch (IOException e) {
                // Read to the end already, or failing anyway: nothing to keep.
            }
        }
    }

    private record Delete(Path path, OutputStream out) implements Runnable {
        @Override
        public void run() {
            try {
                out.close();
                Files.deleteIfExists(path);
            } catch (IOException e) {
                // A temporary file left in java.io.tmpdir; nothing depends on it.
            }
        }
    }
}

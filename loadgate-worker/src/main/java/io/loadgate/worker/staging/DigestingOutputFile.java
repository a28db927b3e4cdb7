package io.loadgate.worker.staging;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;

/**
 * An output file that hashes and counts its bytes as they are written, so a chunk's checksum needs no second
 * read. It only creates: a chunk's name is final and is never overwritten.
 */
final class DigestingOutputFile implements OutputFile {
    private final OutputFile delegate;
    private final MessageDigest digest;
    private long bytes;
    private boolean created;
    private boolean closed;

    DigestingOutputFile(OutputFile delegate) {
        this.delegate = requireNonNull(delegate, "delegate is null");
        try {
            this.digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }

    @Override
    public PositionOutputStream create() {
        PositionOutputStream out = delegate.create();
        created = true;
        return new PositionOutputStream() {
            @Override
            public long getPos() {
                return bytes;
            }

            @Override
            public void write(int b) throws IOException {
                out.write(b);
                digest.update((byte) b);
                bytes++;
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                out.write(b, off, len);
                digest.update(b, off, len);
                bytes += len;
            }

            @Override
            public void flush() throws IOException {
                out.flush();
            }

            @Override
            public void close() throws IOException {
                out.close();
                closed = true;
            }
        };
    }

    @Override
    public PositionOutputStream createOrOverwrite() {
        throw new UnsupportedOperationException("chunk files are never overwritten: " + location());
    }

    @Override
    public String location() {
        return delegate.location();
    }

    @Override
    public InputFile toInputFile() {
        return delegate.toInputFile();
    }

    /** Whether this object created the file: only then may a failed write delete it. */
    boolean created() {
        return created;
    }

    long byteCount() {
        requireClosed();
        return bytes;
    }

    String sha256Hex() {
        requireClosed();
        return HexFormat.of().formatHex(digest.digest());
    }

    private void requireClosed() {
        if (!closed) {
            throw new IllegalStateException("the file is still open: " + location());
        }
    }
}

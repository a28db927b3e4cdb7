package io.loadgate.worker.staging;

import static java.util.Objects.requireNonNull;

import java.net.URI;

/**
 * A closed chunk file, as reported to the ledger: {@code checksum} is the SHA-256 (lower-case hex) of the file's
 * bytes, {@code byteCount} its length.
 */
public record StagedChunk(int chunkIndex, URI path, long recordCount, long byteCount, String checksum) {
    public StagedChunk {
        requireNonNull(path, "path is null");
        requireNonNull(checksum, "checksum is null");
        if (chunkIndex < 0 || recordCount < 0 || byteCount < 0) {
            throw new IllegalArgumentException("negative chunkIndex or counts");
        }
    }
}

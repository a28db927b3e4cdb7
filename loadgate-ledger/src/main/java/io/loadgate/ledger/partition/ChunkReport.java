package io.loadgate.ledger.partition;

import static java.util.Objects.requireNonNull;

import java.util.UUID;

/** One closed chunk file, reported by the partition's owner. Recording it is the commit of that file. */
public record ChunkReport(UUID claimToken, int chunkIndex, int chunkCount, String fragmentIdentifier,
                          String hdfsPath, long recordCount, long byteCount, String checksum) {
    public ChunkReport {
        requireNonNull(claimToken, "claimToken is null");
        requireNonNull(hdfsPath, "hdfsPath is null");
    }
}

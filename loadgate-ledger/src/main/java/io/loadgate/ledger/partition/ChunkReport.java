package io.loadgate.ledger.partition;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.ChunkKind;
import java.util.UUID;

/**
 * One closed chunk file, reported by the partition's owner. Recording it is the commit of that file. A report
 * without a kind (as the seed API's clients send) is a DATA chunk.
 */
public record ChunkReport(UUID claimToken, int chunkIndex, int chunkCount, String fragmentIdentifier,
                          String hdfsPath, long recordCount, long byteCount, String checksum, ChunkKind kind) {
    public ChunkReport {
        requireNonNull(claimToken, "claimToken is null");
        requireNonNull(hdfsPath, "hdfsPath is null");
        kind = kind == null ? ChunkKind.DATA : kind;
    }
}

package io.loadgate.api;

import static java.util.Objects.requireNonNull;

import java.util.UUID;

/** Requests and responses of {@code /v1/runs/{runId}/partitions/{partitionId}/...}. */
public final class PartitionApi {
    private PartitionApi() {
    }

    /** {@code POST .../claim}: the token identifies this attempt; sending the same token again is a safe retry. */
    public record Claim(UUID claimToken, String workerNode) {
        public Claim {
            requireNonNull(claimToken, "claimToken is null");
        }
    }

    /**
     * {@code claimed=false} means: leave the partition alone (someone else has it, it is done, or the run moved on).
     * {@code heartbeatIntervalMillis} (extension; null from a ledger that does not say) is how often the ledger
     * expects the owner's heartbeat.
     */
    public record ClaimResult(boolean claimed, RunStatus runStatus, PartitionStatus partitionStatus, int attempt,
                              Long heartbeatIntervalMillis) {
        public ClaimResult {
            requireNonNull(runStatus, "runStatus is null");
            requireNonNull(partitionStatus, "partitionStatus is null");
        }
    }

    /** {@code POST .../chunks}: one closed chunk file. The identical report again is counted once. */
    public record ChunkReport(UUID claimToken, int chunkIndex, int chunkCount, String fragmentIdentifier,
                              String hdfsPath, long recordCount, long byteCount, String checksum, ChunkKind kind) {
        public ChunkReport {
            requireNonNull(claimToken, "claimToken is null");
            requireNonNull(hdfsPath, "hdfsPath is null");
            requireNonNull(kind, "kind is null");
        }

        /** A DATA chunk, as the seed API knows them. */
        public ChunkReport(UUID claimToken, int chunkIndex, int chunkCount, String fragmentIdentifier,
                           String hdfsPath, long recordCount, long byteCount, String checksum) {
            this(claimToken, chunkIndex, chunkCount, fragmentIdentifier, hdfsPath, recordCount, byteCount, checksum,
                    ChunkKind.DATA);
        }
    }

    public record ChunkResult(boolean recorded, PartitionStatus partitionStatus, RunStatus runStatus,
                              int receivedChunks, int chunkCount, boolean validationScheduled) {
        public ChunkResult {
            requireNonNull(partitionStatus, "partitionStatus is null");
            requireNonNull(runStatus, "runStatus is null");
        }
    }

    /**
     * {@code POST .../fail}. {@code errorClass} SNAPSHOT (or errorCode ORA-01555/ORA-08180) ends the run
     * FAILED_SNAPSHOT_EXPIRED; TRANSIENT in recovery mode REISSUE with attempts left reissues the partition.
     */
    public record PartitionFailure(UUID claimToken, String errorStage, String errorClass, String errorCode,
                                   String message, Integer attempt) {
        public PartitionFailure {
            requireNonNull(claimToken, "claimToken is null");
        }
    }

    public record FailResult(PartitionStatus partitionStatus, RunStatus runStatus, boolean changed) {
        public FailResult {
            requireNonNull(partitionStatus, "partitionStatus is null");
            requireNonNull(runStatus, "runStatus is null");
        }
    }

    /**
     * {@code POST .../heartbeat}: keeps the claim alive. {@code rowsRead}, when known, is how many source rows this
     * attempt has read so far (rejected rows too), which the ledger shows as the partition's progress until its
     * chunks are reported; null sends no count.
     */
    public record PartitionHeartbeat(UUID claimToken, Long rowsRead) {
        public PartitionHeartbeat {
            requireNonNull(claimToken, "claimToken is null");
            if (rowsRead != null && rowsRead < 0) {
                throw new IllegalArgumentException("rowsRead is negative: " + rowsRead);
            }
        }
    }

    /** {@code POST .../heartbeat}: the partition's state after the beat; a worker stops when it is no longer RUNNING. */
    public record HeartbeatResult(PartitionStatus partitionStatus, RunStatus runStatus) {
        public HeartbeatResult {
            requireNonNull(partitionStatus, "partitionStatus is null");
            requireNonNull(runStatus, "runStatus is null");
        }
    }
}

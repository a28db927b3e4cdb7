package io.loadgate.api;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonInclude;
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

    /**
     * {@code POST .../chunks}: one closed chunk file. The identical report again is counted once.
     *
     * <p>{@code linesRead}, {@code linesSkipped}, {@code rowsEmitted} (extension, all three or none, the same on every
     * chunk of the partition): the partition's rows came from a mapper that read {@code linesRead} lines (the
     * partition's expectedRowCount), gave no row for {@code linesSkipped} of them, and emitted {@code rowsEmitted}
     * rows, which the partition's chunks must hold, staged or rejected.
     *
     * <p>{@code handOffTo} (extension): the reporter's worker node, which will run the run's staging validation
     * itself if this report completes the extraction: the ledger then leases the VALIDATE_RUN dispatch to that node
     * in the report's own transaction and answers with it ({@link ChunkResult#nextDispatch}), sparing a lease's round
     * trip. Absent (a NiFi flow), the dispatch waits in the outbox as before.
     */
    public record ChunkReport(UUID claimToken, int chunkIndex, int chunkCount, String fragmentIdentifier,
                              String hdfsPath, long recordCount, long byteCount, String checksum, ChunkKind kind,
                              @JsonInclude(JsonInclude.Include.NON_NULL) Long linesRead,
                              @JsonInclude(JsonInclude.Include.NON_NULL) Long linesSkipped,
                              @JsonInclude(JsonInclude.Include.NON_NULL) Long rowsEmitted,
                              @JsonInclude(JsonInclude.Include.NON_NULL) String handOffTo) {
        public ChunkReport {
            requireNonNull(claimToken, "claimToken is null");
            requireNonNull(hdfsPath, "hdfsPath is null");
            requireNonNull(kind, "kind is null");
            String problem = mappedCountsProblem(linesRead, linesSkipped, rowsEmitted);
            if (problem != null) {
                throw new IllegalArgumentException(problem);
            }
        }

        /** A report that asks for no hand-off. */
        public ChunkReport(UUID claimToken, int chunkIndex, int chunkCount, String fragmentIdentifier,
                           String hdfsPath, long recordCount, long byteCount, String checksum, ChunkKind kind,
                           Long linesRead, Long linesSkipped, Long rowsEmitted) {
            this(claimToken, chunkIndex, chunkCount, fragmentIdentifier, hdfsPath, recordCount, byteCount, checksum,
                    kind, linesRead, linesSkipped, rowsEmitted, null);
        }

        /** The same report, asking the ledger to hand the run's validation to {@code node} if it completes the run. */
        public ChunkReport handingOffTo(String node) {
            return new ChunkReport(claimToken, chunkIndex, chunkCount, fragmentIdentifier, hdfsPath, recordCount,
                    byteCount, checksum, kind, linesRead, linesSkipped, rowsEmitted, node);
        }

        /** A chunk of rows read from the source as they are (no mapper). */
        public ChunkReport(UUID claimToken, int chunkIndex, int chunkCount, String fragmentIdentifier,
                           String hdfsPath, long recordCount, long byteCount, String checksum, ChunkKind kind) {
            this(claimToken, chunkIndex, chunkCount, fragmentIdentifier, hdfsPath, recordCount, byteCount, checksum,
                    kind, null, null, null);
        }

        /** A DATA chunk, as the seed API knows them. */
        public ChunkReport(UUID claimToken, int chunkIndex, int chunkCount, String fragmentIdentifier,
                           String hdfsPath, long recordCount, long byteCount, String checksum) {
            this(claimToken, chunkIndex, chunkCount, fragmentIdentifier, hdfsPath, recordCount, byteCount, checksum,
                    ChunkKind.DATA);
        }

        /** Whether the report carries a mapper's counts. */
        public boolean mapped() {
            return linesRead != null;
        }

        /**
         * Why a mapper's counts cannot be, or null: all three or none, none negative, no more lines skipped than
         * read, and at least one row for each line not skipped.
         */
        public static String mappedCountsProblem(Long linesRead, Long linesSkipped, Long rowsEmitted) {
            if (linesRead == null && linesSkipped == null && rowsEmitted == null) {
                return null;
            }
            if (linesRead == null || linesSkipped == null || rowsEmitted == null) {
                return "linesRead, linesSkipped and rowsEmitted go together: all three or none";
            }
            if (linesRead < 0 || linesSkipped < 0 || rowsEmitted < 0) {
                return "linesRead, linesSkipped and rowsEmitted must not be negative";
            }
            if (linesSkipped > linesRead) {
                return "linesSkipped " + linesSkipped + " is above linesRead " + linesRead;
            }
            if (linesRead - linesSkipped > rowsEmitted) {
                return "rowsEmitted " + rowsEmitted + " is below the " + (linesRead - linesSkipped)
                        + " lines that were not skipped (each gives at least one row)";
            }
            return null;
        }
    }

    /**
     * {@code nextDispatch} (extension, absent unless the report asked for a hand-off): the run's VALIDATE_RUN
     * dispatch, leased to the reporter's node, when this report completed the extraction (or is the resend of the one
     * that did, by the same request).
     */
    public record ChunkResult(boolean recorded, PartitionStatus partitionStatus, RunStatus runStatus,
                              int receivedChunks, int chunkCount, boolean validationScheduled,
                              @JsonInclude(JsonInclude.Include.NON_NULL) DispatchApi.LeasedDispatch nextDispatch) {
        public ChunkResult {
            requireNonNull(partitionStatus, "partitionStatus is null");
            requireNonNull(runStatus, "runStatus is null");
        }

        public ChunkResult(boolean recorded, PartitionStatus partitionStatus, RunStatus runStatus, int receivedChunks,
                           int chunkCount, boolean validationScheduled) {
            this(recorded, partitionStatus, runStatus, receivedChunks, chunkCount, validationScheduled, null);
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

package io.loadgate.worker.staging;

import static java.util.Objects.requireNonNull;

import java.util.UUID;

/**
 * Who writes a partition's chunks: the name of every file carries the partition, the chunk index, the claim
 * attempt and the first 8 characters of the claim token, e.g. {@code part-0003-chunk-000002-a1-5f2c9e1a.parquet}.
 * Two workers holding different claims on one partition (a zombie and its replacement) therefore never write
 * the same file, and the ledger's file list says whose files count. A {@code writer} names the engine's own attempt
 * when another engine runs the partition (Spark's task attempt: {@code ...-a1-5f2c9e1a-s0t3a1.parquet}), so the
 * files of two attempts of one Spark task can be told apart by name too; it is empty for Loadgate's workers.
 */
public record ChunkNaming(String partitionId, int attempt, UUID claimToken, String writer) {
    /** The name of a Loadgate worker's chunks, which carry no writer. */
    public ChunkNaming(String partitionId, int attempt, UUID claimToken) {
        this(partitionId, attempt, claimToken, "");
    }

    public ChunkNaming {
        requireNonNull(partitionId, "partitionId is null");
        if (!partitionId.matches("[0-9]{4}|NULL")) {
            throw new IllegalArgumentException("partitionId must match ^([0-9]{4}|NULL)$, got " + partitionId);
        }
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt must be positive, got " + attempt);
        }
        requireNonNull(claimToken, "claimToken is null");
        requireNonNull(writer, "writer is null");
        if (!writer.matches("[a-z0-9]{0,32}")) {
            throw new IllegalArgumentException("writer must match ^[a-z0-9]{0,32}$, got " + writer);
        }
    }

    public String fileName(int chunkIndex) {
        if (chunkIndex < 0 || chunkIndex > 999_999) {
            throw new IllegalArgumentException("chunkIndex out of range: " + chunkIndex);
        }
        return String.format("part-%s-chunk-%06d-a%d-%s%s.parquet", partitionId, chunkIndex, attempt, tokenPrefix(),
                writerSuffix());
    }

    /** The one file of rows the job's transforms rejected, e.g. {@code part-0003-rejects-a1-5f2c9e1a.parquet}. */
    public String rejectsFileName() {
        return String.format("part-%s-rejects-a%d-%s%s.parquet", partitionId, attempt, tokenPrefix(), writerSuffix());
    }

    private String writerSuffix() {
        return writer.isEmpty() ? "" : "-" + writer;
    }

    private String tokenPrefix() {
        return claimToken.toString().substring(0, 8);
    }
}

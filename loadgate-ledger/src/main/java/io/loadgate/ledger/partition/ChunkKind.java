package io.loadgate.ledger.partition;

/**
 * What a chunk file holds. Every source row of a partition lands in exactly one chunk of either kind, so the
 * partition's expected row count is checked against both; only DATA chunks are published. REJECTS chunks keep the
 * rows a job's transforms refused, each with its reason, for the operator to read.
 */
public enum ChunkKind {
    DATA,
    REJECTS
}

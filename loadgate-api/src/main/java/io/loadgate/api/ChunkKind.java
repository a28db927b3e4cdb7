package io.loadgate.api;

/**
 * What a chunk file holds (an extension of the chunk report): the rows to publish, or the rows the job's transforms
 * rejected, kept with their reasons. Both count towards the partition's expected rows; only DATA is published.
 */
public enum ChunkKind {
    DATA,
    REJECTS
}

package io.loadgate.worker.source.jdbc;

/** What a partition's rows do with their connection once they are closed. */
@FunctionalInterface
interface ConnectionRelease {
    /**
     * @param readToTheEnd whether every row was read and the statement ended as the server ended it: only then is
     *                     the connection known to be idle in its transaction, not in the middle of a result
     */
    void release(boolean readToTheEnd);
}

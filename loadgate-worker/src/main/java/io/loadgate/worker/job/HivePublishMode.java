package io.loadgate.worker.job;

/**
 * How a Hive target publishes a run ({@code target.hive.publish}).
 */
public enum HivePublishMode {
    /**
     * One metastore call points the key's partition at a directory holding exactly the run's data files: for
     * EXTERNAL tables, zero-copy, and settled by a probe after a lost answer.
     */
    DIRECTORY,
    /**
     * One {@code INSERT OVERWRITE} through HiveServer2 from an external staging table over exactly the run's data
     * files: for managed (Hive 4: transactional) tables, which cannot point at arbitrary directories. Never retried;
     * a lost answer is left to the operator unless the partition's parameters name this run.
     */
    INSERT_OVERWRITE
}

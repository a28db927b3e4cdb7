package io.loadgate.worker.source;

/** When a snapshot source measures the job's source metrics (see {@link Source#openSnapshot(String, SourceMetricsTiming)}). */
public enum SourceMetricsTiming {
    /** While planning, before the run's manifest: the plan carries them (the contract's manifest). */
    WHILE_PLANNING,
    /**
     * After planning, by {@link SnapshotHolder#sourceMetrics()} at the same snapshot, so that the partitions can
     * extract meanwhile; the plan carries none.
     */
    AFTER_PLANNING
}

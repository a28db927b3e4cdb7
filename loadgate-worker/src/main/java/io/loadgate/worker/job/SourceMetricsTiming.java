package io.loadgate.worker.job;

/**
 * When a snapshot source measures the job's source metrics ({@code source.metrics}). Both measure the same SQL at
 * the same snapshot; they differ in which cores the scans compete for (docs/validation.md).
 */
public enum SourceMetricsTiming {
    /**
     * {@link #WHILE_PLANNING} when the source server runs on this host (the scans would take the cores the partition
     * readers and the workers need), {@link #DURING_EXTRACTION} otherwise. The source resolves it when it plans.
     */
    AUTO,
    /** While planning, before the run's manifest: the plan carries them (the contract's manifest). */
    WHILE_PLANNING,
    /**
     * After planning, at the same snapshot, while the partitions extract: the manifest says they are pending and
     * the submitter sends them when measured. For a source server on hosts of its own, whose cores the extraction
     * leaves idle.
     */
    DURING_EXTRACTION
}

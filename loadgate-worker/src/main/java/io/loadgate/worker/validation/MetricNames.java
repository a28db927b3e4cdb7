package io.loadgate.worker.validation;

/**
 * Metric names shared by the source, staging and target sides; a metric compares only when both sides spell it
 * the same. Column names are used as the job spec writes them.
 */
public final class MetricNames {
    public static final String COUNT = "COUNT";
    public static final String DUPLICATE_KEYS = "DUPLICATE_KEYS";
    /** Rows the job's transforms rejected, judged against the job's limit as the tolerance. */
    public static final String REJECTED_COUNT = "REJECTED_COUNT";
    /**
     * Prefixes a metric of the data chunks alone, recorded at staging when rows were rejected: what the target must
     * hold, since the source's metrics then include rows that are never published.
     */
    public static final String DATA_PREFIX = "DATA:";
    /**
     * The target's data files for the business key against the ledger's data files of the run, each side as
     * {@code TargetFiles.describe} writes it: equal only when they are the same files by location, size, record
     * count and (where the ledger has one) the SHA-256 of their bytes.
     */
    public static final String TARGET_FILES = "TARGET_FILES";

    private MetricNames() {
    }

    public static String sum(String column) {
        return "SUM:" + column;
    }

    public static String min(String column) {
        return "MIN:" + column;
    }

    public static String max(String column) {
        return "MAX:" + column;
    }

    public static String nullCount(String column) {
        return "NULL_COUNT:" + column;
    }
}

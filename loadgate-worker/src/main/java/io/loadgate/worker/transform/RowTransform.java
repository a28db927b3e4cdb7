package io.loadgate.worker.transform;

import org.apache.iceberg.data.Record;

/**
 * A single-row transform: what it does to a row depends on that row alone, so partitions can be transformed
 * anywhere, in any order, any number of times (a reissued partition gives the same rows).
 */
@FunctionalInterface
public interface RowTransform {
    /**
     * Rewrites {@code row} in place, or refuses it.
     *
     * @return null to keep the row, else why it is rejected (one line, kept beside the row)
     */
    String apply(Record row);
}

package io.loadgate.worker.source;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.validation.MetricSet;
import java.util.List;
import java.util.Optional;

/**
 * Everything the planner measured inside the snapshot: the manifest's content ({@code snapshotRef}, split stats,
 * partitions with expected counts, source metrics) and the columns a reader will yield. {@code sourceMetrics} is
 * empty when they are measured after planning ({@link SnapshotHolder#sourceMetrics()}).
 */
public record SourcePlan(String snapshotRef, List<SourceColumn> columns, SplitStats split, List<Partition> partitions,
                         Optional<MetricSet> sourceMetrics) {
    public SourcePlan {
        requireNonNull(snapshotRef, "snapshotRef is null");
        columns = List.copyOf(columns);
        requireNonNull(split, "split is null");
        partitions = List.copyOf(partitions);
        requireNonNull(sourceMetrics, "sourceMetrics is null");
        long expected = partitions.stream().mapToLong(Partition::expectedRowCount).sum();
        if (expected != split.rowCount()) {
            // The ledger would reject the manifest (EXPECTED_SUM_MISMATCH); a planner bug must not get that far.
            throw new IllegalStateException("partitions expect " + expected + " rows, the source has " + split.rowCount());
        }
    }
}

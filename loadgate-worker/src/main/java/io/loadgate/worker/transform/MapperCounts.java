package io.loadgate.worker.transform;

import io.loadgate.api.PartitionApi;
import java.util.Map;

/**
 * What a mapper did with a partition: every line read was mapped (it gave rows, or was skipped), and the rows it
 * emitted are the partition's rows, each staged or rejected. {@code skipReasons}: how many lines each reason
 * skipped (at most {@link MapperProcess#MAX_REASONS} reasons; later ones are counted under one "other" entry).
 */
public record MapperCounts(long linesRead, long linesSkipped, long rowsEmitted, Map<String, Long> skipReasons) {
    public MapperCounts {
        // The ledger's rule for the counts a chunk report carries: what it would refuse is a bug here.
        String problem = PartitionApi.ChunkReport.mappedCountsProblem(linesRead, linesSkipped, rowsEmitted);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        skipReasons = Map.copyOf(skipReasons);
    }
}

package io.loadgate.worker.transform;

import java.util.Map;

/**
 * What a mapper did with a partition: every line read was mapped (it gave rows, or was skipped), and the rows it
 * emitted are the partition's rows, each staged or rejected. {@code skipReasons}: how many lines each reason
 * skipped (at most {@link MapperProcess#MAX_REASONS} reasons; later ones are counted under one "other" entry).
 */
public record MapperCounts(long linesRead, long linesSkipped, long rowsEmitted, Map<String, Long> skipReasons) {
    public MapperCounts {
        if (linesRead < 0 || linesSkipped < 0 || rowsEmitted < 0 || linesSkipped > linesRead
                || linesRead - linesSkipped > rowsEmitted) {
            throw new IllegalArgumentException("inconsistent mapper counts: " + linesRead + " lines read, "
                    + linesSkipped + " skipped, " + rowsEmitted + " rows emitted");
        }
        skipReasons = Map.copyOf(skipReasons);
    }
}

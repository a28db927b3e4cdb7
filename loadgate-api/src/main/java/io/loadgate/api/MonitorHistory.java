package io.loadgate.api;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /v1/monitor/history?job=&from=&bucket=hour|day} (extension): per job and bucket of completion time, the
 * runs that ended in it by outcome, their rows at each stage and how long they took. Buckets without a run are
 * absent. {@code percentLoss} is the share of the rows read by the bucket's SUCCESS runs that did not reach the
 * target (rejected rows included), null when they read none.
 */
public record MonitorHistory(Bucket bucket, Instant from, Instant to, List<Row> rows) {
    public MonitorHistory {
        requireNonNull(bucket, "bucket is null");
        requireNonNull(from, "from is null");
        requireNonNull(to, "to is null");
        rows = List.copyOf(rows);
    }

    /** A bucket's width; its name is the {@code date_trunc} field, lower case on the wire. */
    public enum Bucket {
        HOUR,
        DAY;

        @com.fasterxml.jackson.annotation.JsonValue
        public String wire() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    public record Row(JobKey jobKey, Instant bucketStart, Map<RunStatus, Long> runsByOutcome, long rowsRead,
                      long rowsRejected, long rowsStaged, long rowsPublished, Double percentLoss,
                      double durationSecondsAvg, double durationSecondsMax) {
        public Row {
            requireNonNull(jobKey, "jobKey is null");
            requireNonNull(bucketStart, "bucketStart is null");
            runsByOutcome = Collections.unmodifiableMap(new LinkedHashMap<>(runsByOutcome));
        }
    }
}

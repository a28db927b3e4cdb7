package io.loadgate.ledger.run;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.JobKey;
import io.loadgate.api.MonitorHistory;
import io.loadgate.api.MonitorHistory.Bucket;
import io.loadgate.api.RunStatus;
import io.loadgate.ledger.db.Database;
import io.loadgate.ledger.db.Tx;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The monitor's history: finished runs per job and hour or day of their completion, read in one statement. */
public final class History {
    // Buckets are cut in UTC, whatever the session's time zone, so every client draws the same hours. The bucket
    // name is bound, and date_trunc accepts only its own field names.
    private static final String HISTORY = """
            SELECT r.job_key, date_trunc(?, r.completed_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS bucket_start,
                   r.status, count(*) AS runs,
                   COALESCE(sum(f.read_rows), 0) AS rows_read, COALESCE(sum(f.rejected_rows), 0) AS rows_rejected,
                   COALESCE(sum(r.staging_count), 0) AS rows_staged, COALESCE(sum(r.target_count), 0) AS rows_published,
                   avg(extract(epoch FROM r.completed_at - r.started_at)) AS seconds_avg,
                   max(extract(epoch FROM r.completed_at - r.started_at)) AS seconds_max
              FROM load_run r
              LEFT JOIN LATERAL (SELECT sum(record_count) AS read_rows,
                                        sum(record_count) FILTER (WHERE kind = 'REJECTS') AS rejected_rows
                                   FROM load_file WHERE run_id = r.run_id AND status = 'COMMITTED') f ON true
             WHERE r.completed_at >= ? AND r.completed_at < ? AND (?::text IS NULL OR r.job_key = ?)
             GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
            """;

    private final Database database;

    public History(Database database) {
        this.database = requireNonNull(database, "database is null");
    }

    /** One bucket of one job, status by status, as the statement returns it. */
    private record Part(JobKey jobKey, Instant bucketStart, RunStatus status, long runs, long read, long rejected,
                        long staged, long published, double secondsAvg, double secondsMax) {
    }

    public MonitorHistory read(JobKey jobKey, Instant from, Instant to, Bucket bucket) {
        requireNonNull(from, "from is null");
        requireNonNull(to, "to is null");
        requireNonNull(bucket, "bucket is null");
        List<Part> parts = database.inTransaction(tx -> tx.query(HISTORY, rs -> new Part(Tx.jobKey(rs, "job_key"),
                Tx.instant(rs, "bucket_start"), RunStatus.valueOf(rs.getString("status")), rs.getLong("runs"),
                rs.getLong("rows_read"), rs.getLong("rows_rejected"), rs.getLong("rows_staged"),
                rs.getLong("rows_published"), rs.getDouble("seconds_avg"), rs.getDouble("seconds_max")),
                bucket.wire(), from, to, jobKey, jobKey));
        Map<String, List<Part>> byBucket = new LinkedHashMap<>();
        for (Part part : parts) {
            byBucket.computeIfAbsent(part.jobKey() + "\u0000" + part.bucketStart(), k -> new ArrayList<>()).add(part);
        }
        List<MonitorHistory.Row> rows = new ArrayList<>();
        for (List<Part> of : byBucket.values()) {
            rows.add(row(of));
        }
        return new MonitorHistory(bucket, from, to, rows);
    }

    private static MonitorHistory.Row row(List<Part> parts) {
        Map<RunStatus, Long> outcomes = new EnumMap<>(RunStatus.class);
        long runs = 0;
        long read = 0;
        long rejected = 0;
        long staged = 0;
        long published = 0;
        double seconds = 0;
        double max = 0;
        Double loss = null;
        for (Part p : parts) {
            outcomes.put(p.status(), p.runs());
            runs += p.runs();
            read += p.read();
            rejected += p.rejected();
            staged += p.staged();
            published += p.published();
            seconds += p.secondsAvg() * p.runs();
            max = Math.max(max, p.secondsMax());
            // Only a SUCCESS run's rows are meant to reach the target: a failed run's missing rows are its failure,
            // already counted as such, not a loss.
            if (p.status() == RunStatus.SUCCESS && p.read() > 0) {
                loss = 100.0 * (p.read() - p.published()) / p.read();
            }
        }
        return new MonitorHistory.Row(parts.get(0).jobKey(), parts.get(0).bucketStart(), outcomes, read, rejected,
                staged, published, loss, seconds / runs, max);
    }
}

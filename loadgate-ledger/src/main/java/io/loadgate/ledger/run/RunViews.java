package io.loadgate.ledger.run;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.BusinessKey;
import io.loadgate.api.DispatchStatus;
import io.loadgate.api.DispatchType;
import io.loadgate.api.JobKey;
import io.loadgate.api.OperatorApi;
import io.loadgate.api.PartitionStatus;
import io.loadgate.api.RunApi;
import io.loadgate.api.RunId;
import io.loadgate.api.RunStatus;
import io.loadgate.api.TargetState;
import io.loadgate.ledger.LedgerJson;
import io.loadgate.ledger.db.Database;
import io.loadgate.ledger.db.SqlLists;
import io.loadgate.ledger.db.Tx;
import io.loadgate.ledger.event.EventLog;
import io.loadgate.ledger.rollback.Rollbacks;
import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/** Read models of runs for the API, the CLI and the monitor. Reads never lock. */
public final class RunViews {
    // A partition that ended without its rows; SUCCESS is the only other finished state.
    private static final Set<PartitionStatus> FAILED_PARTITION = EnumSet.of(PartitionStatus.FAILED,
            PartitionStatus.TIMED_OUT);
    // progress: a partition's chunk rows once it has chunks, else the rows its owner says it has read. A worker
    // reports its chunks only after writing them all, so while a partition is still RUNNING its count of rows read
    // may exceed the chunks reported so far and is kept, lest the bar step back; finished, only chunks count, so
    // progress ends equal to extracted.
    private static final String RUN_COLUMNS = """
            r.run_id, r.job_key, r.business_key, r.status, r.executor, r.snapshot_scn, r.snapshot_ref, r.source_count,
            r.expected_partition_count, r.hdfs_run_path, r.stage_table, r.started_at, r.heartbeat_at,
            r.extract_completed_at, r.completed_at, r.error_stage, r.error_code, r.error_message, r.staging_count,
            r.target_count, r.target_ref,
            (SELECT count(*) FROM load_partition p WHERE p.run_id = r.run_id AND p.status = 'SUCCESS') AS success_partitions,
            (SELECT count(*) FROM load_partition p WHERE p.run_id = r.run_id AND p.status IN (%s))
                AS failed_partitions,
            (SELECT COALESCE(sum(f.record_count), 0) FROM load_file f WHERE f.run_id = r.run_id AND f.status = 'COMMITTED') AS extracted,
            (SELECT COALESCE(sum(f.record_count), 0) FROM load_file f
              WHERE f.run_id = r.run_id AND f.status = 'COMMITTED' AND f.kind = 'REJECTS') AS rejected,
            (SELECT COALESCE(sum(CASE WHEN c.rows IS NULL THEN COALESCE(p.rows_read, 0)
                                      WHEN p.status = 'RUNNING' THEN GREATEST(c.rows, p.rows_read)
                                      ELSE c.rows END), 0)
               FROM load_partition p,
                    LATERAL (SELECT sum(f.record_count) AS rows FROM load_file f WHERE f.run_id = p.run_id
                                AND f.partition_id = p.partition_id AND f.status = 'COMMITTED') c
              WHERE p.run_id = r.run_id) AS progress,
            -- The target's partition of a key holds the last SUCCESS to complete (runs of a key never overlap),
            -- unless an operator rolled that one back.
            CASE WHEN r.status <> 'SUCCESS' THEN NULL
                 WHEN EXISTS (SELECT 1 FROM load_event e WHERE e.run_id = r.run_id AND e.event_type = '%s')
                     THEN 'ROLLED_BACK'
                 WHEN EXISTS (SELECT 1 FROM load_run l WHERE l.job_key = r.job_key AND l.business_key = r.business_key
                                 AND l.status = 'SUCCESS' AND l.completed_at > r.completed_at) THEN 'REPLACED'
                 ELSE 'CURRENT' END AS target_state
            """.formatted(SqlLists.quoted(FAILED_PARTITION), Rollbacks.EVENT_TYPE);
    private static final String ONE = "SELECT " + RUN_COLUMNS + " FROM load_run r WHERE r.run_id = ?";
    private static final String LIST = "SELECT " + RUN_COLUMNS + """
             FROM load_run r
            WHERE (?::text IS NULL OR r.job_key = ?) AND (?::text IS NULL OR r.business_key = ?)
              AND (?::text IS NULL OR r.status = ?)
            ORDER BY r.started_at DESC, r.run_id LIMIT ?
            """;
    private static final String PARTITIONS = """
            SELECT p.partition_id, p.status, p.expected_row_count, p.actual_row_count, p.attempt_count, p.worker_node,
                   p.error_code, p.rows_read, p.lines_read, p.lines_skipped, p.rows_emitted, (SELECT count(*) FROM load_file f WHERE f.run_id = p.run_id
                                     AND f.partition_id = p.partition_id AND f.status = 'COMMITTED') AS file_count
              FROM load_partition p WHERE p.run_id = ? ORDER BY p.partition_id
            """;
    private static final String EXTRAS = """
            SELECT parameters::text, source_metrics::text, source_metrics_due_since IS NOT NULL
              FROM load_run WHERE run_id = ?""";
    private static final String DISPATCHES = """
            SELECT dispatch_id, dispatch_type, partition_id, status, attempt_count, sent_at, acked_at
              FROM load_dispatch WHERE run_id = ? ORDER BY created_at, dispatch_id
            """;

    private static final String STATUS_COUNTS = """
            SELECT status, count(*) FROM load_run
             WHERE status IN (%s) OR completed_at > now() - interval '24 hours'
             GROUP BY status ORDER BY status
            """.formatted(SqlLists.quoted(RunStatus.ACTIVE));
    private static final String DISPATCH_COUNTS = "SELECT status, count(*) FROM load_dispatch GROUP BY status ORDER BY status";
    private static final String ACTIVE = "SELECT " + RUN_COLUMNS + """
             FROM load_run r
            WHERE r.status IN (%s)
            ORDER BY r.started_at LIMIT 200
            """.formatted(SqlLists.quoted(RunStatus.ACTIVE));

    private static final String VITALS = """
            SELECT (SELECT count(*) FROM load_run WHERE status = 'PUBLISH_UNKNOWN') AS publish_unknown,
                   (SELECT count(*) FROM load_dispatch WHERE status = 'DEAD'
                       AND run_id IN (SELECT run_id FROM load_run WHERE status IN (%s)))
                       AS dead_dispatches_of_active_runs,
                   COALESCE((SELECT extract(epoch FROM now() - min(next_attempt_at)) FROM load_dispatch
                              WHERE status = 'PENDING' AND next_attempt_at <= now()), 0) AS oldest_due_dispatch_seconds,
                   COALESCE((SELECT extract(epoch FROM now() - min(COALESCE(heartbeat_at, started_at)))
                               FROM load_partition WHERE status = 'RUNNING'), 0) AS oldest_heartbeat_seconds,
                   (SELECT count(*) FROM load_partition WHERE status = 'RUNNING') AS running_partitions,
                   (SELECT COALESCE(sum(f.record_count), 0) FROM load_file f JOIN load_run r USING (run_id)
                     WHERE f.kind = 'REJECTS' AND f.status = 'COMMITTED' AND r.status = 'SUCCESS'
                       AND r.completed_at > now() - interval '24 hours') AS rejected_rows_24h,
                   (SELECT count(*) FROM load_run WHERE cleanup_skipped_at IS NOT NULL AND cleaned_at IS NULL)
                       AS cleanup_skipped_runs,
                   (SELECT count(*) FROM load_run r WHERE r.status IN (%s)
                       AND r.completed_at > now() - interval '24 hours' AND NOT EXISTS (%s)) AS unsuperseded_failed_runs
            """.formatted(SqlLists.quoted(RunStatus.ACTIVE), SqlLists.quoted(AttentionList.FAILED_RUN),
            AttentionList.LATER_SUCCESS);
    // Per job, the share of the rows its SUCCESS runs of the last 24 hours read that did not reach the target (the
    // history's percentLoss over a sliding day).
    /** Per job, the directories that appeared after their key was loaded (issue 11's watermark), ever. */
    private static final String LATE_DIRECTORIES = """
            SELECT job_key, count(*) FROM load_run_directory WHERE late GROUP BY job_key
            """;
    private static final String JOB_LOSS = """
            SELECT r.job_key, 100.0 * (sum(f.read_rows) - sum(COALESCE(r.target_count, 0))) / sum(f.read_rows)
              FROM load_run r,
                   LATERAL (SELECT sum(record_count) AS read_rows FROM load_file
                             WHERE run_id = r.run_id AND status = 'COMMITTED') f
             WHERE r.status = 'SUCCESS' AND r.completed_at > now() - interval '24 hours'
             GROUP BY r.job_key HAVING sum(f.read_rows) > 0 ORDER BY r.job_key
            """;
    // Per job, its newest successful load, by the database clock.
    private static final String JOB_FRESHNESS = """
            SELECT DISTINCT ON (job_key) job_key, run_id, business_key, completed_at,
                   extract(epoch FROM now() - completed_at) AS age_seconds
              FROM load_run WHERE status = 'SUCCESS' AND completed_at IS NOT NULL
             ORDER BY job_key, completed_at DESC
            """;

    private final Database database;
    private final AttentionRules rules;
    private final AttentionList attention;

    public RunViews(Database database) {
        this(database, AttentionRules.defaults());
    }

    public RunViews(Database database, AttentionRules rules) {
        this.database = requireNonNull(database, "database is null");
        this.rules = requireNonNull(rules, "rules is null");
        this.attention = new AttentionList(rules);
    }

    public AttentionRules rules() {
        return rules;
    }

    public Optional<RunApi.RunView> run(RunId runId) {
        return database.inTransaction(tx -> {
            Optional<RunApi.RunSummary> run = tx.queryOne(ONE, RunViews::summary, runId);
            if (run.isEmpty()) {
                return Optional.empty();
            }
            List<RunApi.PartitionView> partitions = tx.query(PARTITIONS, RunViews::partition, runId);
            Map<String, Long> counts = new LinkedHashMap<>();
            for (RunApi.PartitionView p : partitions) {
                counts.merge(p.status().name(), 1L, Long::sum);
            }
            Extras extras = tx.queryOne(EXTRAS, rs -> new Extras(rs.getString(1), rs.getString(2), rs.getBoolean(3)),
                    runId).orElseThrow();
            return Optional.of(RunApi.RunView.of(run.get(), jsonObject(extras.parameters()),
                    extras.sourceMetrics() == null ? Map.of() : stringMap(extras.sourceMetrics()),
                    extras.sourceMetricsPending(), counts, partitions, tx.query(DISPATCHES, RunViews::dispatch, runId)));
        });
    }

    /** A run's JSON columns, as stored, and whether its source metrics are awaited (see {@link RunRow}). */
    private record Extras(String parameters, String sourceMetrics, boolean sourceMetricsPending) {
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> jsonObject(String json) {
        return LedgerJson.MAPPER.convertValue(LedgerJson.read(json), LinkedHashMap.class);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> stringMap(String json) {
        return LedgerJson.MAPPER.convertValue(LedgerJson.read(json), LinkedHashMap.class);
    }

    public record RunFilter(JobKey jobKey, BusinessKey businessKey, RunStatus status, int limit) {
    }

    public List<RunApi.RunSummary> list(RunFilter filter) {
        String status = filter.status() == null ? null : filter.status().name();
        return database.inTransaction(tx -> tx.query(LIST, RunViews::summary, filter.jobKey(), filter.jobKey(),
                filter.businessKey(), filter.businessKey(), status, status, filter.limit()));
    }

    public List<EventLog.Event> events(RunId runId, long afterEventId, int limit) {
        return database.inTransaction(tx -> {
            RunTransitions.read(tx, runId).orElseThrow(() -> RunTransitions.notFound(runId));
            return EventLog.list(tx, runId, afterEventId, limit);
        });
    }

    /** The operator's overview: counts, what needs attention, and the active runs. */
    public Map<String, Object> monitorSummary() {
        // A map, not a record: clients keep whatever counters the ledger reports (OperatorApi.MonitorSummary).
        return database.inTransaction(tx -> {
            Map<String, Object> summary = new LinkedHashMap<>();
            summary.put("generatedAt", Instant.now());
            summary.put("runsByStatus", counts(tx, STATUS_COUNTS));
            summary.put("dispatchesByStatus", counts(tx, DISPATCH_COUNTS));
            summary.put("attention", attention.read(tx, tx.query(JOB_FRESHNESS, RunViews::freshness)));
            summary.put("activeRuns", tx.query(ACTIVE, RunViews::summary));
            return summary;
        });
    }

    /** The numbers an alert watches, read in one transaction. */
    public record Vitals(Map<String, Long> runsByStatus, Map<String, Long> dispatchesByStatus, long publishUnknown,
                         long deadDispatchesOfActiveRuns, double oldestDueDispatchSeconds,
                         double oldestHeartbeatSeconds, long runningPartitions, long rejectedRows24h,
                         long cleanupSkippedRuns, long unsupersededFailedRuns, long stuckRuns,
                         List<JobFreshness> jobs, Map<String, Double> percentLoss24h,
                         Map<String, Long> lateDirectories) {
        public Vitals {
            jobs = List.copyOf(jobs);
            lateDirectories = Map.copyOf(lateDirectories);
            percentLoss24h = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(percentLoss24h));
        }
    }

    /** A job's newest successful load and its age by the database clock. */
    public record JobFreshness(JobKey jobKey, RunId lastSuccessRunId, BusinessKey businessKey, Instant lastSuccessAt,
                               Duration lastSuccessAge) {
        public JobFreshness {
            requireNonNull(jobKey, "jobKey is null");
            requireNonNull(lastSuccessRunId, "lastSuccessRunId is null");
            requireNonNull(lastSuccessAge, "lastSuccessAge is null");
        }
    }

    private static JobFreshness freshness(ResultSet rs) throws SQLException {
        return new JobFreshness(Tx.jobKey(rs, "job_key"), Tx.runId(rs, "run_id"),
                Tx.businessKey(rs, "business_key"), Tx.instant(rs, "completed_at"),
                Duration.ofMillis((long) (rs.getDouble("age_seconds") * 1000)));
    }

    public Vitals vitals() {
        return database.inTransaction(tx -> {
            Map<String, Long> runs = counts(tx, STATUS_COUNTS);
            Map<String, Long> dispatches = counts(tx, DISPATCH_COUNTS);
            List<JobFreshness> jobs = tx.query(JOB_FRESHNESS, RunViews::freshness);
            Map<String, Double> loss = new LinkedHashMap<>();
            for (Map.Entry<String, Double> row : tx.query(JOB_LOSS, rs -> Map.entry(rs.getString(1), rs.getDouble(2)))) {
                loss.put(row.getKey(), row.getValue());
            }
            Map<String, Long> late = counts(tx, LATE_DIRECTORIES);
            long stuck = attention.read(tx, jobs).stream()
                    .filter(a -> a.kind() == OperatorApi.AttentionKind.STUCK_RUN).count();
            return tx.queryOne(VITALS, rs -> new Vitals(runs, dispatches, rs.getLong("publish_unknown"),
                    rs.getLong("dead_dispatches_of_active_runs"), rs.getDouble("oldest_due_dispatch_seconds"),
                    rs.getDouble("oldest_heartbeat_seconds"), rs.getLong("running_partitions"),
                    rs.getLong("rejected_rows_24h"), rs.getLong("cleanup_skipped_runs"), rs.getLong("unsuperseded_failed_runs"), stuck, jobs, loss, late)).orElseThrow();
        });
    }

    /** One row of a {@code status, count(*)} query. */
    private record StatusCount(String status, long count) {
    }

    private static Map<String, Long> counts(Tx tx, String sql) throws SQLException {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (StatusCount row : tx.query(sql, rs -> new StatusCount(rs.getString(1), rs.getLong(2)))) {
            counts.put(row.status(), row.count());
        }
        return counts;
    }

    private static RunApi.RunSummary summary(ResultSet rs) throws SQLException {
        BigDecimal scn = rs.getBigDecimal("snapshot_scn");
        return new RunApi.RunSummary(Tx.runId(rs, "run_id"), Tx.jobKey(rs, "job_key"),
                Tx.businessKey(rs, "business_key"), RunStatus.valueOf(rs.getString("status")), rs.getString("executor"),
                scn == null ? null : scn.toPlainString(), rs.getString("snapshot_ref"),
                Tx.nullableLong(rs, "source_count"), Tx.nullableLong(rs, "expected_partition_count"),
                rs.getLong("success_partitions"), rs.getLong("failed_partitions"), rs.getLong("extracted"),
                rs.getLong("rejected"), rs.getLong("progress"), Tx.nullableLong(rs, "staging_count"),
                Tx.nullableLong(rs, "target_count"), rs.getString("target_ref"), rs.getString("hdfs_run_path"),
                rs.getString("stage_table"), Tx.instant(rs, "started_at"), Tx.instant(rs, "heartbeat_at"),
                Tx.instant(rs, "extract_completed_at"), Tx.instant(rs, "completed_at"), rs.getString("error_stage"),
                rs.getString("error_code"), rs.getString("error_message"),
                rs.getString("target_state") == null ? null : TargetState.valueOf(rs.getString("target_state")));
    }

    private static RunApi.PartitionView partition(ResultSet rs) throws SQLException {
        return new RunApi.PartitionView(Tx.partitionId(rs, "partition_id"),
                PartitionStatus.valueOf(rs.getString("status")),
                rs.getLong("expected_row_count"), Tx.nullableLong(rs, "actual_row_count"), rs.getLong("file_count"),
                rs.getInt("attempt_count"), rs.getString("worker_node"), rs.getString("error_code"),
                Tx.nullableLong(rs, "rows_read"), Tx.nullableLong(rs, "lines_read"),
                Tx.nullableLong(rs, "lines_skipped"), Tx.nullableLong(rs, "rows_emitted"));
    }

    private static RunApi.DispatchView dispatch(ResultSet rs) throws SQLException {
        return new RunApi.DispatchView(rs.getObject("dispatch_id", UUID.class),
                DispatchType.valueOf(rs.getString("dispatch_type")), Tx.partitionId(rs, "partition_id"),
                DispatchStatus.valueOf(rs.getString("status")), rs.getInt("attempt_count"), Tx.instant(rs, "sent_at"),
                Tx.instant(rs, "acked_at"));
    }

}

package io.loadgate.ledger.cleanup;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.ErrorCode;
import io.loadgate.api.OperatorApi;
import io.loadgate.api.RunId;
import io.loadgate.api.RunStatus;
import io.loadgate.ledger.LedgerException;
import io.loadgate.ledger.LedgerSettings;
import io.loadgate.ledger.db.Database;
import io.loadgate.ledger.db.SqlLists;
import io.loadgate.ledger.db.Tx;
import io.loadgate.ledger.event.EventLog;
import io.loadgate.ledger.run.RunRow;
import io.loadgate.ledger.run.RunTransitions;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which finished runs' staging may go, and the record that it went. Only ended runs past their retention are
 * candidates; PUBLISH_UNKNOWN is active, so a run whose publish is in doubt is never one.
 */
public final class Cleanup {
    private static final String DUE = """
            r.status IN (%s)
            AND r.completed_at < now() - CASE WHEN r.status = 'SUCCESS' THEN ?::interval ELSE ?::interval END
            """.formatted(SqlLists.quoted(RunStatus.TERMINAL));
    /**
     * A cleaned run whose files the table still referenced, offered again: its key was replaced by a later SUCCESS
     * (or rolled back) more than the success retention ago, so the snapshots that referenced the files have had
     * time to expire, and it was cleaned longer ago than that (at most one offer per retention). A run cleaned
     * before the count was recorded is taken to have kept files if its status is one a table can hold files of.
     */
    private static final String OFFERED_AGAIN = """
            r.cleaned_at < now() - ?::interval
            AND (r.cleanup_kept_files > 0 OR (r.cleanup_kept_files IS NULL AND r.status IN ('SUCCESS', 'FAILED_TARGET_VALIDATION')))
            AND (EXISTS (SELECT 1 FROM load_run n
                          WHERE n.job_key = r.job_key AND n.business_key = r.business_key AND n.status = 'SUCCESS'
                            AND n.completed_at > r.completed_at AND n.completed_at < now() - ?::interval)
                 OR EXISTS (SELECT 1 FROM load_event e
                             WHERE e.run_id = r.run_id AND e.event_type = 'ROLLED_BACK'
                               AND e.created_at < now() - ?::interval))
            """;
    private static final String CANDIDATES = """
            SELECT r.run_id, r.job_key, r.business_key, r.status, r.completed_at, r.hdfs_run_path, r.stage_table,
                   r.target_ref
              FROM load_run r
            """ + " WHERE (r.cleaned_at IS NULL AND " + DUE + ") OR (" + OFFERED_AGAIN + ")"
            + " ORDER BY r.cleanup_skipped_at NULLS FIRST, r.completed_at LIMIT ?";
    private static final String IS_DUE = "SELECT 1 FROM load_run r WHERE r.run_id = ? AND (" + DUE + ")";
    private static final String IS_OFFERED_AGAIN = "SELECT 1 FROM load_run r WHERE r.run_id = ? AND ("
            + OFFERED_AGAIN + ")";
    private static final String CLEANED_AT = "SELECT cleaned_at FROM load_run WHERE run_id = ?";
    private static final String MARK = """
            UPDATE load_run SET cleaned_at = now(), cleanup_kept_files = ? WHERE run_id = ?
            """;
    private static final String MARK_SKIPPED = "UPDATE load_run SET cleanup_skipped_at = now() WHERE run_id = ?";
    private static final String ALL_FILES = """
            SELECT hdfs_path, status FROM load_file WHERE run_id = ? ORDER BY partition_id, chunk_index, file_id
            """;

    private final Database database;
    private final LedgerSettings.Retention retention;

    public Cleanup(Database database, LedgerSettings.Retention retention) {
        this.database = requireNonNull(database, "database is null");
        this.retention = requireNonNull(retention, "retention is null");
    }

    public List<OperatorApi.CleanupCandidate> candidates() {
        String afterSuccess = interval(retention.afterSuccess());
        return database.inTransaction(tx -> {
            List<OperatorApi.CleanupCandidate> runs = tx.query(CANDIDATES, Cleanup::candidate, afterSuccess,
                    interval(retention.afterFailure()), afterSuccess, afterSuccess, afterSuccess, retention.maxBatch());
            List<OperatorApi.CleanupCandidate> withFiles = new ArrayList<>(runs.size());
            for (OperatorApi.CleanupCandidate run : runs) {
                withFiles.add(run.withFiles(tx.query(ALL_FILES, rs -> new OperatorApi.CleanupFile(rs.getString(1),
                        rs.getString(2)), run.runId())));
            }
            return withFiles;
        });
    }

    /**
     * Records a cleanup of the run's staging: its first, or one of a run {@link #OFFERED_AGAIN}. The same call again
     * (an answer lost) changes nothing.
     *
     * @param keptFiles how many staged files stayed because the target references them; null when the cleaner did
     *     not say (the run is then offered again as if it kept some)
     */
    public OperatorApi.CleanupResult markCleaned(RunId runId, OperatorApi.Cleanup report, String actor) {
        String droppedTable = report.droppedTable();
        String deletedPath = report.deletedPath();
        Integer keptFiles = report.keptFiles();
        return database.inTransaction(tx -> {
            RunRow run = RunTransitions.lock(tx, runId);
            boolean cleaned = tx.queryOne(CLEANED_AT, rs -> rs.getTimestamp(1) != null, runId).orElse(false);
            if (cleaned && !offeredAgain(tx, runId)) {
                return new OperatorApi.CleanupResult(runId, false);
            }
            if (!cleaned && !due(tx, runId)) {
                throw notDue(run);
            }
            tx.update(MARK, keptFiles, runId);
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("droppedTable", droppedTable);
            details.put("deletedPath", deletedPath);
            details.put("keptFiles", keptFiles);
            EventLog.append(tx, runId, null, "CLEANED", run.status(), run.status(), actor, details);
            return new OperatorApi.CleanupResult(runId, true);
        });
    }

    /**
     * Records that a cleaner skipped a due run and why (an event an operator sees), and moves the run behind the
     * others in the candidates. Returns false for a run already cleaned and not offered again.
     */
    public boolean markSkipped(RunId runId, OperatorApi.CleanupSkipped skipped, String actor) {
        String reason = skipped.reason();
        return database.inTransaction(tx -> {
            RunRow run = RunTransitions.lock(tx, runId);
            boolean cleaned = tx.queryOne(CLEANED_AT, rs -> rs.getTimestamp(1) != null, runId).orElse(false);
            if (!cleaned && !due(tx, runId)) {
                throw notDue(run);
            }
            if (cleaned && !offeredAgain(tx, runId)) {
                return false;
            }
            tx.update(MARK_SKIPPED, runId);
            EventLog.append(tx, runId, null, "CLEANUP_SKIPPED", run.status(), run.status(), actor,
                    Map.of("reason", reason));
            return true;
        });
    }

    private boolean due(Tx tx, RunId runId) throws SQLException {
        return tx.queryOne(IS_DUE, rs -> true, runId, interval(retention.afterSuccess()),
                interval(retention.afterFailure())).isPresent();
    }

    private boolean offeredAgain(Tx tx, RunId runId) throws SQLException {
        String afterSuccess = interval(retention.afterSuccess());
        return tx.queryOne(IS_OFFERED_AGAIN, rs -> true, runId, afterSuccess, afterSuccess, afterSuccess).isPresent();
    }

    private static LedgerException notDue(RunRow run) {
        return new LedgerException.Conflict(ErrorCode.CLEANUP_NOT_DUE, "run " + run.runId() + " is " + run.status()
                + " and not past its retention", Map.of("runStatus", run.status().name()));
    }

    private static OperatorApi.CleanupCandidate candidate(ResultSet rs) throws SQLException {
        return new OperatorApi.CleanupCandidate(Tx.runId(rs, "run_id"), Tx.jobKey(rs, "job_key"),
                Tx.businessKey(rs, "business_key"), RunStatus.valueOf(rs.getString("status")), rs.getString("hdfs_run_path"),
                rs.getString("stage_table"), Tx.instant(rs, "completed_at"), rs.getString("target_ref"), List.of());
    }

    static String interval(java.time.Duration d) {
        return d.toMillis() + " milliseconds";
    }
}

package io.loadgate.ledger.run;

import io.loadgate.api.RunStatus;
import io.loadgate.ledger.LedgerException;
import io.loadgate.ledger.db.Tx;
import io.loadgate.ledger.event.EventLog;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The single point where a run changes state: one compare-and-set whose WHERE clause is the precondition, and the
 * RUN_STATUS event that records it, in the same transaction. Zero rows means someone else moved the run first; the
 * caller decides what that means for its request. A step that also records columns of its own (the manifest's
 * numbers, the extracted count) updates them after the transition, on the row the transition just moved. The one
 * exception is the publish claim (Publishing), which stores its token in the same statement as the status.
 */
public final class RunTransitions {
    // FOR NO KEY UPDATE, not FOR UPDATE: it excludes every other writer of the run row just the same, but does
    // not block the FOR KEY SHARE locks that inserts into load_event and load_file take through their foreign
    // keys, which would otherwise turn concurrent claims and chunk reports into deadlocks.
    private static final String LOCK = "SELECT " + RunRow.COLUMNS + " FROM load_run WHERE run_id = ? FOR NO KEY UPDATE";
    private static final String READ = "SELECT " + RunRow.COLUMNS + " FROM load_run WHERE run_id = ?";
    private static final String TRANSITION = """
            UPDATE load_run
               SET status = ?, status_changed_at = now(),
                   completed_at = CASE WHEN ? THEN now() ELSE completed_at END,
                   error_stage = COALESCE(?, error_stage),
                   error_code = COALESCE(?, error_code),
                   error_message = COALESCE(?, error_message)
             WHERE run_id = ? AND status = ?
            """;

    private RunTransitions() {
    }

    /** Locks the run row for the rest of the transaction: lock order is run, then partition, file, dispatch. */
    public static RunRow lock(Tx tx, UUID runId) throws SQLException {
        return tx.queryOne(LOCK, RunRow::map, runId).orElseThrow(() -> notFound(runId));
    }

    public static Optional<RunRow> read(Tx tx, UUID runId) throws SQLException {
        return tx.queryOne(READ, RunRow::map, runId);
    }

    public static LedgerException.NotFound notFound(Object runId) {
        return new LedgerException.NotFound("RUN_NOT_FOUND", "run " + runId + " does not exist");
    }

    /** Moves the run from {@code from} to {@code to}; returns false, changing nothing, when it is not in {@code from}. */
    public static boolean transition(Tx tx, UUID runId, RunStatus from, RunStatus to, Failure failure, String actor)
            throws SQLException {
        return transition(tx, runId, from, to, failure, actor, Map.of());
    }

    /** As {@link #transition(Tx, UUID, RunStatus, RunStatus, Failure, String)}, with more details for its event. */
    public static boolean transition(Tx tx, UUID runId, RunStatus from, RunStatus to, Failure failure, String actor,
                                     Map<String, ?> eventDetails) throws SQLException {
        int updated = tx.update(TRANSITION, to, to.isTerminal(), failure == null ? null : failure.stage(),
                failure == null ? null : failure.code(), failure == null ? null : failure.message(), runId, from);
        if (updated > 1) {
            throw new IllegalStateException("run transition updated " + updated + " rows");
        }
        if (updated == 1) {
            Map<String, Object> details = new LinkedHashMap<>();
            if (failure != null) {
                details.put("errorStage", failure.stage());
                details.put("errorCode", failure.code());
                details.put("message", failure.message());
            }
            details.putAll(eventDetails);
            EventLog.append(tx, runId, null, "RUN_STATUS", from, to, actor, details);
        }
        return updated == 1;
    }

    public static boolean transition(Tx tx, UUID runId, RunStatus from, RunStatus to, String actor) throws SQLException {
        return transition(tx, runId, from, to, null, actor);
    }

    /** Why a run failed, as the run row and its event keep it. */
    public record Failure(String stage, String code, String message) {
    }
}

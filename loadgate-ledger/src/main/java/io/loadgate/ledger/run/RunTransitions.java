package io.loadgate.ledger.run;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.ErrorCode;
import io.loadgate.api.RunId;
import io.loadgate.api.RunStatus;
import io.loadgate.ledger.LedgerException;
import io.loadgate.ledger.db.Tx;
import io.loadgate.ledger.event.EventLog;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The single point where a run changes state: one compare-and-set whose WHERE clause is the precondition, and the
 * RUN_STATUS event that records it, in the same transaction. Zero rows means someone else moved the run first; the
 * caller decides what that means for its request. A step that also records columns of its own (the manifest's
 * numbers, the extracted count) updates them after the transition, on the row the transition just moved. A step
 * whose columns must move with the status, or the precondition would not hold them (the publish claim's token, the
 * validator's identity), passes them as {@link Columns}: they are set by the transition's own statement.
 * {@code RunTransitionsBypassTest} fails when another statement of the ledger sets a run's status.
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
                   error_message = COALESCE(?, error_message)%s
             WHERE run_id = ? AND status = ?
            """;

    private RunTransitions() {
    }

    /** Locks the run row for the rest of the transaction: lock order is run, then partition, file, dispatch. */
    public static RunRow lock(Tx tx, RunId runId) throws SQLException {
        return tx.queryOne(LOCK, RunRow::map, runId).orElseThrow(() -> notFound(runId));
    }

    public static Optional<RunRow> read(Tx tx, RunId runId) throws SQLException {
        return tx.queryOne(READ, RunRow::map, runId);
    }

    public static LedgerException.NotFound notFound(Object runId) {
        return new LedgerException.NotFound(ErrorCode.RUN_NOT_FOUND, "run " + runId + " does not exist");
    }

    /** Moves the run from {@code from} to {@code to}; returns false, changing nothing, when it is not in {@code from}. */
    public static boolean transition(Tx tx, RunId runId, RunStatus from, RunStatus to, Failure failure, String actor)
            throws SQLException {
        return transition(tx, runId, from, to, failure, actor, Map.of());
    }

    /** As {@link #transition(Tx, UUID, RunStatus, RunStatus, Failure, String)}, with more details for its event. */
    public static boolean transition(Tx tx, RunId runId, RunStatus from, RunStatus to, Failure failure, String actor,
                                     Map<String, ?> eventDetails) throws SQLException {
        return move(tx, runId, from, to, failure, Columns.NONE, actor, eventDetails);
    }

    /**
     * As {@link #transition(Tx, UUID, RunStatus, RunStatus, String)}, also setting {@code columns} in the same
     * statement, so that the run is never seen in {@code to} without them.
     */
    public static boolean transitionWith(Tx tx, RunId runId, RunStatus from, RunStatus to, Columns columns,
                                         String actor, Map<String, ?> eventDetails) throws SQLException {
        return move(tx, runId, from, to, null, columns, actor, eventDetails);
    }

    private static boolean move(Tx tx, RunId runId, RunStatus from, RunStatus to, Failure failure, Columns columns,
                                String actor, Map<String, ?> eventDetails) throws SQLException {
        List<Object> args = new ArrayList<>(List.of(to, to.isTerminal()));
        args.add(failure == null ? null : failure.stage());
        args.add(failure == null ? null : failure.code());
        args.add(failure == null ? null : failure.message());
        args.addAll(columns.values());
        args.add(runId);
        args.add(from);
        String sql = TRANSITION.formatted(columns.assignments().isEmpty() ? "" : ",\n       " + columns.assignments());
        int updated = tx.update(sql, args.toArray());
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

    public static boolean transition(Tx tx, RunId runId, RunStatus from, RunStatus to, String actor) throws SQLException {
        return transition(tx, runId, from, to, null, actor);
    }

    /**
     * Columns a transition sets beside the status: {@code assignments} is SQL of the form {@code a = ?, b = now()},
     * the constant text of its caller; {@code values} binds its placeholders in order (nulls allowed).
     */
    public record Columns(String assignments, List<Object> values) {
        static final Columns NONE = new Columns("");

        public Columns {
            requireNonNull(assignments, "assignments is null");
            values = Collections.unmodifiableList(new ArrayList<>(requireNonNull(values, "values is null")));
        }

        public Columns(String assignments, Object... values) {
            this(assignments, Arrays.asList(values));
        }
    }

    /** Why a run failed, as the run row and its event keep it. */
    public record Failure(String stage, String code, String message) {
    }
}

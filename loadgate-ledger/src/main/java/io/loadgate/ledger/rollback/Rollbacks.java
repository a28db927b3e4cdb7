package io.loadgate.ledger.rollback;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.ErrorCode;
import io.loadgate.api.RunApi;
import io.loadgate.api.RunId;
import io.loadgate.api.RunStatus;
import io.loadgate.ledger.LedgerException;
import io.loadgate.ledger.db.Database;
import io.loadgate.ledger.db.Tx;
import io.loadgate.ledger.event.EventLog;
import io.loadgate.ledger.run.RunRow;
import io.loadgate.ledger.run.RunTransitions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Records that an operator removed a business key's partition from the target after the run that published it
 * succeeded. The run keeps its status (SUCCESS is terminal in the contract) and gains a {@value #EVENT_TYPE}
 * event, so whoever reads the run sees that the rows it published are gone, by which snapshot and why.
 */
public final class Rollbacks {
    public static final String EVENT_TYPE = "ROLLED_BACK";

    // The target partition holds what the last successful run published: runs of one key never overlap (one
    // active run per key), so the last to complete is also the last to publish.
    private static final String LATEST_SUCCESS = """
            SELECT run_id FROM load_run WHERE job_key = ? AND business_key = ? AND status = 'SUCCESS'
             ORDER BY completed_at DESC, started_at DESC LIMIT 1
            """;
    private static final String RECORDED = """
            SELECT details ->> 'targetRef' FROM load_event WHERE run_id = ? AND event_type = 'ROLLED_BACK'
             ORDER BY event_id LIMIT 1
            """;

    private final Database database;

    public Rollbacks(Database database) {
        this.database = requireNonNull(database, "database is null");
    }

    /**
     * Appends the ROLLED_BACK event to the latest SUCCESS run of its job and business key. The same
     * {@code targetRef} again is {@code changed=false}: the operator's command repeats the call when the answer
     * was lost after its commit to the target, which must not be undone or doubled.
     *
     * @throws LedgerException.Conflict {@code RUN_STATUS_MISMATCH} (not SUCCESS), {@code NOT_LATEST_SUCCESS} (a
     *     later run of the key succeeded: the target holds its rows, not this run's), {@code ALREADY_ROLLED_BACK}
     *     (recorded before with another targetRef)
     */
    public RunApi.RunChange record(RunId runId, String reason, String targetRef, String actor) {
        requireNonNull(reason, "reason is null");
        requireNonNull(targetRef, "targetRef is null");
        return database.inTransaction(tx -> {
            RunRow run = RunTransitions.lock(tx, runId);
            Optional<String> recorded = tx.queryOne(RECORDED, rs -> rs.getString(1), runId);
            if (recorded.isPresent()) {
                if (recorded.get().equals(targetRef)) {
                    return new RunApi.RunChange(runId, run.status(), false);
                }
                throw new LedgerException.Conflict(ErrorCode.ALREADY_ROLLED_BACK, "run " + runId
                        + " was already rolled back by target snapshot " + recorded.get(),
                        Map.of("targetRef", recorded.get()));
            }
            if (run.status() != RunStatus.SUCCESS) {
                throw new LedgerException.Conflict(ErrorCode.RUN_STATUS_MISMATCH, "run " + runId + " is " + run.status()
                        + "; only a SUCCESS run's publish can be rolled back", Map.of("runStatus", run.status().name()));
            }
            RunId latest = tx.queryOne(LATEST_SUCCESS, rs -> Tx.runId(rs, 1), run.jobKey(),
                    run.businessKey()).orElseThrow();
            if (!latest.equals(runId)) {
                throw new LedgerException.Conflict(ErrorCode.NOT_LATEST_SUCCESS, "run " + runId + " is not the latest"
                        + " successful run of " + run.jobKey() + " for " + run.businessKey() + "; run " + latest
                        + " published after it", Map.of("latestRunId", latest.toString()));
            }
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("reason", reason);
            details.put("targetRef", targetRef);
            EventLog.append(tx, runId, null, EVENT_TYPE, null, null, actor, details);
            return new RunApi.RunChange(runId, run.status(), true);
        });
    }
}

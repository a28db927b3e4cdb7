package io.loadgate.ledger.run;

import io.loadgate.api.DispatchType;
import io.loadgate.api.ErrorCode;
import io.loadgate.api.RunApi;
import io.loadgate.api.RunId;
import io.loadgate.api.RunStatus;
import io.loadgate.ledger.LedgerException;
import io.loadgate.ledger.LedgerJson;
import io.loadgate.ledger.db.Tx;
import io.loadgate.ledger.dispatch.Outbox;
import io.loadgate.ledger.event.EventLog;
import java.sql.SQLException;
import java.util.Map;

/**
 * Source metrics that come after the manifest (an extension): a manifest with {@code sourceMetricsPending} lets the
 * partitions extract while its submitter measures the source's metrics at the same snapshot, and the metrics follow
 * with {@code PUT /v1/runs/{runId}/source-metrics}.
 *
 * <p>The rule that keeps this a real check: the staging validation is scheduled (its VALIDATE_RUN dispatch inserted)
 * only once extraction is complete <em>and</em> the metrics are in, whichever comes last, in the transaction of that
 * last event; and {@code validation/start} starts nothing for a run still awaiting them. Every judge compares the
 * metrics of staged or target data with these (validation/start hands them to the validator, the target check reads
 * them from the run), so with none to compare against there is nothing to judge: a validation started earlier would
 * get an empty map and every metric would lack its expected value.
 */
public final class SourceMetricsLater {
    private static final String RECORD = """
            UPDATE load_run SET source_metrics = ?, source_metrics_version = ?, source_metrics_due_since = NULL
             WHERE run_id = ? AND source_metrics_due_since IS NOT NULL
            """;
    // jsonb equality ignores key order, which a resend may change.
    private static final String SAME = """
            SELECT source_metrics = ?::jsonb AND source_metrics_version IS NOT DISTINCT FROM ? FROM load_run
             WHERE run_id = ?
            """;
    static final String AWAIT = "UPDATE load_run SET source_metrics_due_since = now() WHERE run_id = ?";

    private SourceMetricsLater() {
    }

    /**
     * Inserts the VALIDATE_RUN dispatch of a run whose extraction is complete, unless its source metrics are still
     * awaited (then their arrival inserts it). {@code run} must be locked in {@code tx}.
     *
     * @return whether the validation was scheduled
     */
    public static boolean scheduleValidation(Tx tx, RunRow run) throws SQLException {
        if (run.sourceMetricsPending()) {
            return false;
        }
        Outbox.insert(tx, run.runId(), run.executor(), DispatchType.VALIDATE_RUN, null, Map.of());
        return true;
    }

    /**
     * Records the awaited metrics of a locked run; the same metrics again answer {@code changed=false}.
     *
     * @throws LedgerException.Conflict {@code RUN_STATUS_MISMATCH} for a run without a manifest, or one that ended
     *     while they were awaited; {@code SOURCE_METRICS_CONFLICT} when the run has other metrics
     */
    static RunApi.SourceMetricsAccepted record(Tx tx, RunRow run, RunApi.SourceMetrics metrics, String actor)
            throws SQLException {
        RunId runId = run.runId();
        if (run.status() == RunStatus.CREATED) {
            throw new LedgerException.Conflict(ErrorCode.RUN_STATUS_MISMATCH, "run " + runId
                    + " has no manifest yet; source metrics follow a manifest", Map.of("runStatus", "CREATED"));
        }
        var json = LedgerJson.jsonb(metrics.sourceMetrics());
        if (!run.sourceMetricsPending()) {
            boolean same = tx.queryOne(SAME, rs -> rs.getBoolean(1), json, metrics.sourceMetricsVersion(), runId)
                    .orElse(false);
            if (!same) {
                throw new LedgerException.Conflict(ErrorCode.SOURCE_METRICS_CONFLICT, "run " + runId
                        + " already has other source metrics", Map.of("runStatus", run.status().name()));
            }
            return new RunApi.SourceMetricsAccepted(runId, run.status(), false, false);
        }
        if (run.status().isTerminal()) {
            throw new LedgerException.Conflict(ErrorCode.RUN_STATUS_MISMATCH, "run " + runId + " ended as "
                    + run.status() + " before its source metrics came", Map.of("runStatus", run.status().name()));
        }
        if (tx.update(RECORD, json, metrics.sourceMetricsVersion(), runId) != 1) {
            throw new IllegalStateException("recording the awaited source metrics of locked run " + runId
                    + " changed no row");
        }
        // Extraction already complete: it left the validation to these metrics.
        boolean scheduled = run.status() == RunStatus.EXTRACTED_VALIDATED;
        if (scheduled) {
            Outbox.insert(tx, runId, run.executor(), DispatchType.VALIDATE_RUN, null, Map.of());
        }
        EventLog.append(tx, runId, null, "SOURCE_METRICS", null, null, actor,
                Map.of("metrics", metrics.sourceMetrics().size(), "validationScheduled", scheduled));
        return new RunApi.SourceMetricsAccepted(runId, run.status(), true, scheduled);
    }
}

package io.loadgate.ledger.run;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.BusinessKey;
import io.loadgate.api.Executor;
import io.loadgate.api.JobKey;
import io.loadgate.api.RunId;
import io.loadgate.api.RunStatus;
import io.loadgate.ledger.LedgerSettings;
import io.loadgate.ledger.db.Tx;
import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;

/**
 * The fields of a run that the ledger's decisions read, as locked at the start of a transaction.
 * {@code sourceMetricsPending}: its manifest left the source's metrics to follow, and they have not come yet.
 */
public record RunRow(
        RunId runId,
        JobKey jobKey,
        BusinessKey businessKey,
        RunStatus status,
        Executor executor,
        String hdfsRunPath,
        String stageTable,
        boolean allowEmptySource,
        Long sourceCount,
        String snapshotScn,
        String snapshotRef,
        UUID publishToken,
        LedgerSettings.RecoveryMode recoveryMode,
        boolean sourceMetricsPending) {

    public RunRow {
        requireNonNull(runId, "runId is null");
        requireNonNull(status, "status is null");
        requireNonNull(executor, "executor is null");
    }

    /** The run's own recovery mode, or the server's when the run did not name one. */
    public LedgerSettings.RecoveryMode recoveryMode(LedgerSettings settings) {
        return recoveryMode == null ? settings.recoveryMode() : recoveryMode;
    }

    static final String COLUMNS = """
            run_id, job_key, business_key, status, executor, hdfs_run_path, stage_table, allow_empty_source,
            source_count, snapshot_scn, snapshot_ref, publish_token, recovery_mode,
            source_metrics_due_since IS NOT NULL AS source_metrics_pending""";

    static RunRow map(ResultSet rs) throws SQLException {
        BigDecimal scn = rs.getBigDecimal("snapshot_scn");
        return new RunRow(
                Tx.runId(rs, "run_id"),
                Tx.jobKey(rs, "job_key"),
                Tx.businessKey(rs, "business_key"),
                RunStatus.valueOf(rs.getString("status")),
                Executor.fromWire(rs.getString("executor")),
                rs.getString("hdfs_run_path"),
                rs.getString("stage_table"),
                rs.getBoolean("allow_empty_source"),
                Tx.nullableLong(rs, "source_count"),
                scn == null ? null : scn.toPlainString(),
                rs.getString("snapshot_ref"),
                rs.getObject("publish_token", UUID.class),
                rs.getString("recovery_mode") == null ? null
                        : LedgerSettings.RecoveryMode.valueOf(rs.getString("recovery_mode")),
                rs.getBoolean("source_metrics_pending"));
    }
}

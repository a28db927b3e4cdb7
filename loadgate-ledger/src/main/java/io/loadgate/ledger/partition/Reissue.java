package io.loadgate.ledger.partition;

import io.loadgate.api.DispatchType;
import io.loadgate.api.PartitionStatus;
import io.loadgate.ledger.LedgerJson;
import io.loadgate.ledger.db.Tx;
import io.loadgate.ledger.dispatch.Outbox;
import io.loadgate.ledger.event.EventLog;
import io.loadgate.ledger.run.RunRow;
import io.loadgate.ledger.run.Runs;
import java.sql.SQLException;
import java.util.Map;

/**
 * Sends a partition back for another attempt at the same snapshot. Its token is cleared, so the old owner's
 * late reports get CLAIM_MISMATCH, and its chunks are marked FAILED, so they are never validated or published.
 * Its rows read are cleared too: the next attempt starts reading from the beginning.
 */
public final class Reissue {
    private static final String RETRY = """
            UPDATE load_partition
               SET status = 'RETRY', claim_token = NULL, heartbeat_at = NULL, rows_read = NULL, error_code = ?
             WHERE run_id = ? AND partition_id = ? AND status = ?
            RETURNING spec::text
            """;
    private static final String FAIL_FILES = """
            UPDATE load_file SET status = 'FAILED' WHERE run_id = ? AND partition_id = ? AND status = 'COMMITTED'
            """;

    private Reissue() {
    }

    /** Returns false, changing nothing, when the partition is no longer in {@code from}. */
    public static boolean reissue(Tx tx, RunRow run, String partitionId, PartitionStatus from, String reason,
                                  String actor) throws SQLException {
        var spec = tx.queryOne(RETRY, rs -> rs.getString(1), reason, run.runId(), partitionId, from);
        if (spec.isEmpty()) {
            return false;
        }
        int failedFiles = tx.update(FAIL_FILES, run.runId(), partitionId);
        EventLog.append(tx, run.runId(), partitionId, "PARTITION_STATUS", from, PartitionStatus.RETRY, actor,
                Map.of("reason", reason == null ? "" : reason, "failedFiles", failedFiles));
        Outbox.insert(tx, run.runId(), run.executor(), DispatchType.REISSUE_PARTITION, partitionId,
                Runs.extractPayload(run.hdfsRunPath(), LedgerJson.read(spec.get()), run.snapshotScn(),
                        run.snapshotRef()));
        return true;
    }
}

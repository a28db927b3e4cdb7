package io.loadgate.ledger.dispatch;

import io.loadgate.api.DispatchStatus;
import io.loadgate.api.DispatchType;
import io.loadgate.api.Executor;
import io.loadgate.api.RunId;
import io.loadgate.ledger.LedgerJson;
import io.loadgate.ledger.db.Tx;
import io.loadgate.ledger.event.EventLog;
import java.sql.SQLException;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The transactional outbox: a decision that needs a next step inserts its dispatch in the decision's own
 * transaction, so the step can neither be lost while the decision stands nor survive a rolled-back decision.
 * A trigger on the table sends pg_notify so that the dispatcher and long-polling workers wake at once.
 */
public final class Outbox {
    private static final String INSERT = """
            INSERT INTO load_dispatch (dispatch_id, run_id, dispatch_type, partition_id, executor, payload)
            VALUES (?, ?, ?, ?, ?, ?)
            """;
    private static final String ACK = """
            UPDATE load_dispatch SET status = 'ACKED', acked_at = now(), lease_until = NULL
             WHERE dispatch_id = ? AND status IN ('PENDING', 'SENT')
            """;
    private static final String ACK_OPEN_OF_TYPE = """
            UPDATE load_dispatch SET status = 'ACKED', acked_at = now(), lease_until = NULL
             WHERE run_id = ? AND dispatch_type = ? AND partition_id IS NOT DISTINCT FROM ? AND status IN ('PENDING', 'SENT')
            """;

    private Outbox() {
    }

    /**
     * Inserts a dispatch, unless the run's executor has no use for it ({@link Executor#takesDispatch}): a NiFi flow
     * (executor http) continues by itself after extraction and validation, and receives only VALIDATE_RUN and
     * REISSUE_PARTITION; a Spark run's partitions are its driver's tasks, so it gets no partition step, and its other
     * steps are leased by workers.
     */
    public static Optional<UUID> insert(Tx tx, RunId runId, Executor executor, DispatchType type, String partitionId,
                                        Map<String, ?> payload) throws SQLException {
        if (!executor.takesDispatch(type)) {
            return Optional.empty();
        }
        UUID dispatchId = UUID.randomUUID();
        tx.update(INSERT, dispatchId, runId, type, partitionId, executor.delivery().wireName(),
                LedgerJson.jsonb(payload));
        EventLog.append(tx, runId, partitionId, "DISPATCH_CREATED", null, DispatchStatus.PENDING, "ledger",
                Map.of("dispatchId", dispatchId.toString(), "dispatchType", type.name()));
        return Optional.of(dispatchId);
    }

    /** The step's own compare-and-set is the real acknowledgement of its dispatch. */
    public static boolean ack(Tx tx, UUID dispatchId) throws SQLException {
        return tx.update(ACK, dispatchId) == 1;
    }

    /** ACKs the open dispatches of one type for a run (and partition), for steps that arrive without a dispatch id. */
    public static int ackOpen(Tx tx, RunId runId, DispatchType type, String partitionId) throws SQLException {
        return tx.update(ACK_OPEN_OF_TYPE, runId, type, partitionId);
    }
}

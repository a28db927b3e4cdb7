package io.loadgate.ledger.dispatch;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.DispatchApi;
import io.loadgate.api.DispatchStatus;
import io.loadgate.api.DispatchType;
import io.loadgate.api.ErrorCode;
import io.loadgate.api.RunId;
import io.loadgate.api.RunStatus;
import io.loadgate.ledger.LedgerException;
import io.loadgate.ledger.LedgerJson;
import io.loadgate.ledger.db.Database;
import io.loadgate.ledger.db.SqlLists;
import io.loadgate.ledger.db.Tx;
import io.loadgate.ledger.event.EventLog;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * Delivery state of the outbox, one compare-and-set per change. Times are the database's ({@code now()}) only, so
 * leases, backoff and ACK timeouts agree across every process that delivers.
 *
 * <p>A push lease leaves the row PENDING with {@code lease_until} set: the dispatcher holds it while it sends after
 * the lease has committed, and an expired lease (a dispatcher that died between lease and send) is simply leased
 * again. Each lease counts an attempt; the counted attempt fences the holder's later {@link #markSent},
 * {@link #markRetry} and {@link #markDead}. A pull lease marks the row SENT at once: for a worker, the lease is the
 * receipt and the step's own compare-and-set is the ACK.
 */
public final class Dispatches {
    private static final String TERMINAL_STATUSES = SqlLists.quoted(RunStatus.TERMINAL);

    // The one way a retired dispatch dies, whichever delivery selected it as `due` (the statements below).
    private static final String RETIRE_DUE_AS_DEAD = """
            UPDATE load_dispatch d
               SET status = 'DEAD', lease_until = NULL,
                   last_error = CASE WHEN r.status IN (%s) THEN 'RUN_ENDED: run is ' || r.status
                                     ELSE 'ATTEMPTS_EXHAUSTED: ' || d.attempt_count || ' attempts' END
              FROM due, load_run r
             WHERE d.dispatch_id = due.dispatch_id AND r.run_id = d.run_id
            RETURNING d.dispatch_id, d.run_id, d.partition_id, d.last_error
            """.formatted(TERMINAL_STATUSES);

    // Dispatches that must not go out any more: their run has ended, or their attempts are used up. They are
    // retired before leasing, so that a lease never hands out a step nobody may take.
    private static final String RETIRE_PUSH = """
            WITH due AS (
                SELECT d.dispatch_id FROM load_dispatch d
                 WHERE d.status = 'PENDING' AND d.executor = 'http' AND d.next_attempt_at <= now()
                   AND (d.lease_until IS NULL OR d.lease_until <= now())
                   AND (d.attempt_count >= ?
                        OR EXISTS (SELECT 1 FROM load_run r WHERE r.run_id = d.run_id AND r.status IN (%s)))
                 LIMIT ? FOR UPDATE SKIP LOCKED)
            """.formatted(TERMINAL_STATUSES) + RETIRE_DUE_AS_DEAD;
    private static final String LEASE_PUSH = """
            WITH due AS (
                SELECT d.dispatch_id FROM load_dispatch d
                 WHERE d.status = 'PENDING' AND d.executor = 'http' AND d.next_attempt_at <= now()
                   AND (d.lease_until IS NULL OR d.lease_until <= now())
                 ORDER BY d.next_attempt_at
                 LIMIT ? FOR UPDATE SKIP LOCKED)
            UPDATE load_dispatch d
               SET lease_until = now() + make_interval(secs => ?), leased_by = ?, attempt_count = d.attempt_count + 1
              FROM due, load_run r
             WHERE d.dispatch_id = due.dispatch_id AND r.run_id = d.run_id AND r.status NOT IN (%s)
            RETURNING d.dispatch_id, d.run_id, d.dispatch_type, d.partition_id, d.payload::text AS payload,
                      d.attempt_count, r.job_key, r.business_key
            """.formatted(TERMINAL_STATUSES);
    private static final String MARK_SENT = """
            UPDATE load_dispatch SET status = 'SENT', sent_at = now(), lease_until = NULL, last_error = NULL
             WHERE dispatch_id = ? AND status = 'PENDING' AND leased_by = ? AND attempt_count = ?
            """;
    private static final String MARK_RETRY = """
            UPDATE load_dispatch
               SET status = CASE WHEN attempt_count >= ? THEN 'DEAD' ELSE 'PENDING' END,
                   next_attempt_at = now() + make_interval(secs => LEAST(? * power(2, LEAST(attempt_count - 1, 60)), ?)),
                   lease_until = NULL, last_error = ?
             WHERE dispatch_id = ? AND status = 'PENDING' AND leased_by = ? AND attempt_count = ?
            RETURNING status, run_id, partition_id
            """;
    private static final String MARK_DEAD = """
            UPDATE load_dispatch SET status = 'DEAD', lease_until = NULL, last_error = ?
             WHERE dispatch_id = ? AND status = 'PENDING' AND leased_by = ? AND attempt_count = ?
            """;
    private static final String LOCK_ONE = """
            SELECT status FROM load_dispatch WHERE run_id = ? AND dispatch_id = ? FOR UPDATE
            """;
    private static final String RESEND = """
            UPDATE load_dispatch
               SET status = 'PENDING', attempt_count = 0, next_attempt_at = now(), lease_until = NULL,
                   leased_by = NULL, last_error = NULL
             WHERE run_id = ? AND dispatch_id = ? AND status = ?
            RETURNING partition_id
            """;
    private static final String RETIRE_PULL = """
            WITH due AS (
                SELECT d.dispatch_id FROM load_dispatch d
                 WHERE d.executor = 'worker' AND d.dispatch_type = ANY (string_to_array(?, ','))
                   AND ((d.status = 'PENDING' AND d.next_attempt_at <= now())
                        OR (d.status = 'SENT' AND d.sent_at <= now() - make_interval(secs => ?)))
                   AND (d.attempt_count >= ?
                        OR EXISTS (SELECT 1 FROM load_run r WHERE r.run_id = d.run_id AND r.status IN (%s)))
                 LIMIT ? FOR UPDATE SKIP LOCKED)
            """.formatted(TERMINAL_STATUSES) + RETIRE_DUE_AS_DEAD;
    private static final String LEASE_PULL = """
            WITH due AS (
                SELECT d.dispatch_id FROM load_dispatch d
                 WHERE d.executor = 'worker' AND d.dispatch_type = ANY (string_to_array(?, ','))
                   AND ((d.status = 'PENDING' AND d.next_attempt_at <= now())
                        OR (d.status = 'SENT' AND d.sent_at <= now() - make_interval(secs => ?)))
                 ORDER BY d.created_at
                 LIMIT ? FOR UPDATE SKIP LOCKED)
            UPDATE load_dispatch d
               SET status = 'SENT', sent_at = now(), lease_until = NULL, leased_by = ?,
                   attempt_count = d.attempt_count + 1
              FROM due, load_run r
             WHERE d.dispatch_id = due.dispatch_id AND r.run_id = d.run_id AND r.status NOT IN (%s)
            RETURNING d.dispatch_id, d.run_id, d.dispatch_type, d.partition_id, d.payload::text AS payload,
                      d.attempt_count, r.job_key, r.business_key
            """.formatted(TERMINAL_STATUSES);
    // The dispatches a lease request took for its node that are still unacknowledged: what its lost answer held. The
    // request is known from the SENT event the lease wrote; only the node's few SENT dispatches are looked at.
    private static final String LEASED_BY_REQUEST = """
            SELECT d.dispatch_id, d.run_id, d.dispatch_type, d.partition_id, d.payload::text AS payload,
                   d.attempt_count, r.job_key, r.business_key
              FROM load_dispatch d JOIN load_run r ON r.run_id = d.run_id
             WHERE d.executor = 'worker' AND d.status = 'SENT' AND d.leased_by = ?
               AND d.dispatch_type = ANY (string_to_array(?, ','))
               AND r.status NOT IN (%s)
               AND EXISTS (SELECT 1 FROM load_event e
                            WHERE e.run_id = d.run_id AND e.event_type = 'DISPATCH_STATUS' AND e.to_status = 'SENT'
                              AND e.details ->> 'dispatchId' = d.dispatch_id::text
                              AND e.details ->> 'requestId' = ?)
             ORDER BY d.created_at
             LIMIT ?
               FOR UPDATE OF d SKIP LOCKED
            """.formatted(TERMINAL_STATUSES);
    // The run's dispatch of a type, PENDING, leased to the node that asked to run it, in the transaction that
    // scheduled it (a chunk report that completes the extraction): no poll sees it between.
    private static final String HAND_OFF = """
            UPDATE load_dispatch d
               SET status = 'SENT', sent_at = now(), lease_until = NULL, leased_by = ?,
                   attempt_count = d.attempt_count + 1
              FROM load_run r
             WHERE d.run_id = ? AND d.dispatch_type = ? AND d.executor = 'worker' AND d.status = 'PENDING'
               AND r.run_id = d.run_id
            RETURNING d.dispatch_id, d.run_id, d.dispatch_type, d.partition_id, d.payload::text AS payload,
                      d.attempt_count, r.job_key, r.business_key
            """;
    // What an earlier attempt of the same request was handed, still unacknowledged: its answer was lost.
    private static final String HANDED_OFF = """
            SELECT d.dispatch_id, d.run_id, d.dispatch_type, d.partition_id, d.payload::text AS payload,
                   d.attempt_count, r.job_key, r.business_key
              FROM load_dispatch d JOIN load_run r ON r.run_id = d.run_id
             WHERE d.run_id = ? AND d.dispatch_type = ? AND d.executor = 'worker' AND d.status = 'SENT'
               AND d.leased_by = ?
               AND EXISTS (SELECT 1 FROM load_event e
                            WHERE e.run_id = d.run_id AND e.event_type = 'DISPATCH_STATUS' AND e.to_status = 'SENT'
                              AND e.details ->> 'dispatchId' = d.dispatch_id::text
                              AND e.details ->> 'requestId' = ?)
               FOR UPDATE OF d
            """;
    // A lease handed back unused by the node that holds it: it is due again at once, and the attempt is not counted.
    private static final String RELEASE = """
            UPDATE load_dispatch
               SET status = 'PENDING', sent_at = NULL, leased_by = NULL, next_attempt_at = now(),
                   attempt_count = GREATEST(attempt_count - 1, 0)
             WHERE dispatch_id = ? AND executor = 'worker' AND status = 'SENT' AND leased_by = ?
            RETURNING run_id, partition_id
            """;
    private static final String REQUEUE_UNACKED = """
            WITH due AS (
                SELECT dispatch_id FROM load_dispatch
                 WHERE status = 'SENT' AND sent_at <= now() - make_interval(secs => ?)
                 ORDER BY sent_at
                 LIMIT ? FOR UPDATE SKIP LOCKED)
            UPDATE load_dispatch d
               SET status = CASE WHEN d.attempt_count >= ? THEN 'DEAD' ELSE 'PENDING' END,
                   next_attempt_at = now(), lease_until = NULL,
                   last_error = 'no ACK within the ack timeout after attempt ' || d.attempt_count
              FROM due
             WHERE d.dispatch_id = due.dispatch_id
            RETURNING d.dispatch_id, d.run_id, d.partition_id, d.status
            """;

    // The same DEAD and last_error as RETIRE_DUE_AS_DEAD gives a dispatch of an ended run, so the monitor treats
    // both alike: a DEAD dispatch of an ended run needs nobody's attention.
    private static final String RETIRE_OPEN_OF_RUN = """
            UPDATE load_dispatch d
               SET status = 'DEAD', lease_until = NULL, last_error = 'RUN_ENDED: run is ' || r.status
              FROM load_run r
             WHERE d.run_id = ? AND r.run_id = d.run_id AND d.status IN ('PENDING', 'SENT')
            RETURNING d.dispatch_id, d.run_id, d.partition_id, d.last_error
            """;

    private final Database database;

    public Dispatches(Database database) {
        this.database = requireNonNull(database, "database is null");
    }

    // ---- push (executor "http"): lease, then send after commit, then one of the three outcomes

    /**
     * Leases up to {@code batch} due push dispatches for {@code leasedBy} and commits; the caller sends them after
     * this returns. Dispatches of ended runs, and those out of attempts, are marked DEAD instead of being leased.
     */
    public List<LeasedDispatch> leaseForPush(String leasedBy, DispatchPolicy policy, int batch) {
        requireNonNull(leasedBy, "leasedBy is null");
        return database.inTransaction(tx -> {
            retire(tx, tx.query(RETIRE_PUSH, Dispatches::retired, policy.maxAttempts(), batch), leasedBy);
            return tx.query(LEASE_PUSH, Dispatches::leased, batch, DispatchPolicy.seconds(policy.lease()), leasedBy);
        });
    }

    /**
     * The receiver took the dispatch (2xx). Only a lease still held moves PENDING to SENT: an ACK that the receiver's
     * step committed before this point has made the row ACKED, and it is never overwritten.
     */
    public boolean markSent(LeasedDispatch lease, String leasedBy) {
        return database.inTransaction(tx -> {
            if (tx.update(MARK_SENT, lease.dispatchId(), leasedBy, lease.attempt()) != 1) {
                return false;
            }
            EventLog.append(tx, lease.runId(), lease.partitionId(), "DISPATCH_STATUS", DispatchStatus.PENDING,
                    DispatchStatus.SENT, leasedBy, details(lease.dispatchId(), "attempt", lease.attempt()));
            return true;
        });
    }

    /**
     * A delivery failed in a way worth retrying (5xx, 408, 425, 429, no connection): PENDING again after the backoff,
     * or DEAD when this was the last attempt. Empty when the lease is no longer held.
     */
    public Optional<DispatchStatus> markRetry(LeasedDispatch lease, String leasedBy, DispatchPolicy policy,
                                              String error) {
        return database.inTransaction(tx -> {
            var moved = tx.queryOne(MARK_RETRY, rs -> DispatchStatus.valueOf(rs.getString("status")),
                    policy.maxAttempts(), DispatchPolicy.seconds(policy.backoffMin()),
                    DispatchPolicy.seconds(policy.backoffMax()), truncate(error), lease.dispatchId(), leasedBy,
                    lease.attempt());
            if (moved.isPresent()) {
                EventLog.append(tx, lease.runId(), lease.partitionId(),
                        moved.get() == DispatchStatus.DEAD ? "DISPATCH_STATUS" : "DISPATCH_RETRY",
                        DispatchStatus.PENDING, moved.get(), leasedBy,
                        details(lease.dispatchId(), "attempt", lease.attempt(), "error", truncate(error)));
            }
            return moved;
        });
    }

    /** The receiver refused the dispatch for good (a 4xx other than 408, 425, 429). */
    public boolean markDead(LeasedDispatch lease, String leasedBy, String error) {
        return database.inTransaction(tx -> {
            if (tx.update(MARK_DEAD, truncate(error),
                    lease.dispatchId(), leasedBy, lease.attempt()) != 1) {
                return false;
            }
            EventLog.append(tx, lease.runId(), lease.partitionId(), "DISPATCH_STATUS", DispatchStatus.PENDING,
                    DispatchStatus.DEAD, leasedBy,
                    details(lease.dispatchId(), "attempt", lease.attempt(), "error", truncate(error)));
            return true;
        });
    }

    // ---- pull (executor "worker")

    /**
     * Hands up to {@code max} worker dispatches of {@code types} to {@code node}: due PENDING ones, and SENT ones
     * whose ACK is overdue. Each is marked SENT in the same statement, so two nodes never get the same lease.
     *
     * <p>{@code requestId} names the caller's lease across its attempts (its {@code X-Request-Id}). An attempt whose
     * answer was lost after its commit (the database's answer, or the HTTP one) took dispatches its caller never
     * saw; sent again, they would have nobody to run them until ack_timeout. So when dispatches SENT to
     * {@code node} by this request are still unacknowledged, the retry is answered with them, and nothing new.
     */
    public List<LeasedDispatch> leaseForWorker(DispatchApi.Lease request, DispatchPolicy policy, String requestId) {
        String node = request.node();
        int max = request.max();
        requireNonNull(requestId, "requestId is null");
        String typeList = request.types().stream().map(Enum::name).sorted().collect(Collectors.joining(","));
        double ackTimeout = DispatchPolicy.seconds(policy.ackTimeout());
        return database.inTransaction(tx -> {
            List<LeasedDispatch> unseen = tx.query(LEASED_BY_REQUEST, Dispatches::leased, node, typeList, requestId,
                    max);
            if (!unseen.isEmpty()) {
                return unseen;
            }
            retire(tx, tx.query(RETIRE_PULL, Dispatches::retired, typeList, ackTimeout, policy.maxAttempts(), max),
                    node);
            List<LeasedDispatch> leased = tx.query(LEASE_PULL, Dispatches::leased, typeList, ackTimeout, max, node);
            for (LeasedDispatch lease : leased) {
                EventLog.append(tx, lease.runId(), lease.partitionId(), "DISPATCH_STATUS", null, DispatchStatus.SENT,
                        node, details(lease.dispatchId(), "attempt", lease.attempt(), "requestId", requestId));
            }
            return leased;
        });
    }

    /**
     * Leases the run's PENDING worker dispatch of {@code type} to {@code node} within {@code tx}, the transaction
     * that scheduled it, for a caller that will run the step itself (a chunk report's hand-off,
     * docs/ledger-api-v1.md). A resend of the same request ({@code requestId}) gets what its lost answer held.
     * Empty when the caller named no {@code node} (a NiFi flow, a worker that does not take the step) or there is
     * none to hand (already leased, or not a worker's), which leaves the outbox to deliver it.
     */
    public static Optional<DispatchApi.LeasedDispatch> handOff(Tx tx, RunId runId, DispatchType type, String node,
                                                               String requestId) throws SQLException {
        if (node == null) {
            return Optional.empty();
        }
        if (requestId != null) {
            Optional<LeasedDispatch> handed = tx.queryOne(HANDED_OFF, Dispatches::leased, runId, type.name(), node,
                    requestId);
            if (handed.isPresent()) {
                return handed.map(LeasedDispatch::toApi);
            }
        }
        Optional<LeasedDispatch> leased = tx.queryOne(HAND_OFF, Dispatches::leased, node, runId, type.name());
        if (leased.isPresent()) {
            LeasedDispatch lease = leased.get();
            EventLog.append(tx, runId, lease.partitionId(), "DISPATCH_STATUS", null, DispatchStatus.SENT, node,
                    details(lease.dispatchId(), "attempt", lease.attempt(), "requestId", requestId, "handedOff", true));
        }
        return leased.map(LeasedDispatch::toApi);
    }

    /**
     * A worker gives back a lease it will not act on (it is stopping), so the step goes to another worker now rather
     * than after ack_timeout. Only the node holding the lease can, and only while nothing acknowledged it.
     */
    public boolean release(UUID dispatchId, DispatchApi.Release release) {
        String node = release.node();
        return database.inTransaction(tx -> {
            var released = tx.queryOne(RELEASE, rs -> new DispatchOf(Tx.runId(rs, 1), rs.getString(2)),
                    dispatchId, node);
            if (released.isEmpty()) {
                return false;
            }
            EventLog.append(tx, released.get().runId(), released.get().partitionId(), "DISPATCH_RELEASED",
                    DispatchStatus.SENT, DispatchStatus.PENDING, node, details(dispatchId));
            return true;
        });
    }

    // ---- operator and sweeper

    /**
     * An operator sends a DEAD or unacknowledged SENT dispatch again: PENDING, attempts reset.
     *
     * @throws LedgerException.NotFound DISPATCH_NOT_FOUND when the run has no such dispatch
     * @throws LedgerException.Conflict DISPATCH_STATUS_MISMATCH when it is PENDING or ACKED
     */
    public void resend(RunId runId, UUID dispatchId, String actor) {
        database.inTransaction(tx -> {
            DispatchStatus status = tx.queryOne(LOCK_ONE, rs -> DispatchStatus.valueOf(rs.getString(1)), runId,
                    dispatchId).orElseThrow(() -> new LedgerException.NotFound(ErrorCode.DISPATCH_NOT_FOUND,
                    "run " + runId + " has no dispatch " + dispatchId));
            if (status != DispatchStatus.DEAD && status != DispatchStatus.SENT) {
                throw new LedgerException.Conflict(ErrorCode.DISPATCH_STATUS_MISMATCH, "dispatch " + dispatchId + " is "
                        + status + "; only DEAD or SENT dispatches can be resent", Map.of("dispatchStatus", status.name()));
            }
            var partitionId = tx.queryOne(RESEND, rs -> Optional.ofNullable(rs.getString(1)), runId, dispatchId,
                    status).orElseThrow(() -> new IllegalStateException("resend of a locked dispatch changed no row"));
            EventLog.append(tx, runId, partitionId.orElse(null), "DISPATCH_RESENT", status, DispatchStatus.PENDING,
                    actor, details(dispatchId));
            return null;
        });
    }

    /** Counts of the sweeper's ACK-timeout rule. */
    public record Requeued(int pending, int dead) {
    }

    /** SENT without an ACK for {@code ackTimeout}: PENDING again, or DEAD when its attempts are used up. */
    public static Requeued requeueUnacked(Tx tx, DispatchPolicy policy, int limit) throws SQLException {
        var rows = tx.query(REQUEUE_UNACKED, rs -> new Requeue(rs.getObject(1, UUID.class),
                Tx.runId(rs, 2), rs.getString(3), DispatchStatus.valueOf(rs.getString(4))),
                DispatchPolicy.seconds(policy.ackTimeout()), limit, policy.maxAttempts());
        int dead = 0;
        for (Requeue row : rows) {
            dead += row.to() == DispatchStatus.DEAD ? 1 : 0;
            EventLog.append(tx, row.runId(), row.partitionId(), "DISPATCH_STATUS", DispatchStatus.SENT, row.to(),
                    "sweeper", details(row.dispatchId(), "reason", "ACK_TIMEOUT"));
        }
        return new Requeued(rows.size() - dead, dead);
    }

    /**
     * Retires the open (PENDING or SENT) dispatches of a run that has just ended, in the transaction that ended it, so
     * no process takes them up. The caller holds the run row and has already moved it to its terminal status. A
     * pushed dispatch whose send is under way finds its lease gone ({@link #markSent} changes nothing); a worker's
     * step, if it still arrives, meets the ended run.
     *
     * @return how many dispatches were retired
     */
    public static int retireOpenOfRun(Tx tx, RunId runId, String actor) throws SQLException {
        List<Retired> retired = tx.query(RETIRE_OPEN_OF_RUN, Dispatches::retired, runId);
        retire(tx, retired, actor);
        return retired.size();
    }

    private static void retire(Tx tx, List<Retired> retired, String actor) throws SQLException {
        for (Retired row : retired) {
            EventLog.append(tx, row.runId(), row.partitionId(), "DISPATCH_STATUS", null, DispatchStatus.DEAD, actor,
                    details(row.dispatchId(), "reason", row.lastError()));
        }
    }

    /** Which run and partition a dispatch belongs to. */
    private record DispatchOf(RunId runId, String partitionId) {
    }

    /** A SENT dispatch the ACK-timeout rule moved, and where to. */
    private record Requeue(UUID dispatchId, RunId runId, String partitionId, DispatchStatus to) {
    }

    /** A dispatch retired as DEAD, with the error it was retired with. */
    private record Retired(UUID dispatchId, RunId runId, String partitionId, String lastError) {
    }

    private static Retired retired(ResultSet rs) throws SQLException {
        return new Retired(rs.getObject("dispatch_id", UUID.class), Tx.runId(rs, "run_id"),
                rs.getString("partition_id"), rs.getString("last_error"));
    }

    private static LeasedDispatch leased(ResultSet rs) throws SQLException {
        return new LeasedDispatch(rs.getObject("dispatch_id", UUID.class), Tx.runId(rs, "run_id"),
                DispatchType.valueOf(rs.getString("dispatch_type")), rs.getString("partition_id"),
                Tx.jobKey(rs, "job_key"), Tx.businessKey(rs, "business_key"), LedgerJson.read(rs.getString("payload")),
                rs.getInt("attempt_count"));
    }

    private static Map<String, Object> details(UUID dispatchId, Object... pairs) {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("dispatchId", dispatchId.toString());
        for (int i = 0; i + 1 < pairs.length; i += 2) {
            details.put((String) pairs[i], pairs[i + 1]);
        }
        return details;
    }

    private static String truncate(String error) {
        return error == null || error.length() <= 2000 ? error : error.substring(0, 2000);
    }
}

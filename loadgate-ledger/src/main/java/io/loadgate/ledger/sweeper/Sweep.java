package io.loadgate.ledger.sweeper;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.DispatchType;
import io.loadgate.api.PartitionStatus;
import io.loadgate.api.RunId;
import io.loadgate.api.RunStatus;
import io.loadgate.ledger.LedgerSettings;
import io.loadgate.ledger.LedgerSettings.RecoveryMode;
import io.loadgate.ledger.db.Database;
import io.loadgate.ledger.db.Tx;
import io.loadgate.ledger.dispatch.Dispatches;
import io.loadgate.ledger.dispatch.Outbox;
import io.loadgate.ledger.event.EventLog;
import io.loadgate.ledger.partition.Partitions;
import io.loadgate.ledger.partition.Reissue;
import io.loadgate.ledger.run.RunRow;
import io.loadgate.ledger.run.RunTransitions;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One sweeper tick: finds what is stuck and moves it on, by the rules of the contract, in order.
 *
 * <p>The tick is one transaction that first takes a transaction-level advisory lock, so that of several sweepers
 * (one per server and control-loop process) one acts and the others skip the tick. Each rule runs in its own
 * savepoint, and each row inside a rule in a nested one, so a failure costs that row or rule and never the tick.
 * Rows are taken with SKIP LOCKED: a run or partition that a request holds right now is looked at next tick
 * rather than waited for. Every age is measured against the database clock.
 */
public final class Sweep {
    private static final Logger LOG = LoggerFactory.getLogger(Sweep.class);
    /** The advisory lock key of the sweeper tick ("Loadgate" in ASCII). */
    public static final long TICK_LOCK = 0x4c6f616467617465L;
    private static final String ACTOR = "sweeper";

    private static final String TRY_TICK_LOCK = "SELECT pg_try_advisory_xact_lock(?)";
    // Only the run rows are locked here (OF r), in the fixed order run before partition.
    private static final String STALE_PARTITIONS = """
            SELECT p.run_id, p.partition_id
              FROM load_partition p JOIN load_run r ON r.run_id = p.run_id
             WHERE p.status = 'RUNNING' AND r.status = 'EXTRACTING'
               AND COALESCE(p.heartbeat_at, p.started_at) <= now() - make_interval(secs => ?)
             ORDER BY COALESCE(p.heartbeat_at, p.started_at)
             LIMIT ? FOR NO KEY UPDATE OF r SKIP LOCKED
            """;
    private static final String LOCK_STALE_PARTITION = """
            SELECT attempt_count FROM load_partition
             WHERE run_id = ? AND partition_id = ? AND status = 'RUNNING'
               AND COALESCE(heartbeat_at, started_at) <= now() - make_interval(secs => ?)
               FOR UPDATE SKIP LOCKED
            """;
    // A Spark run's heartbeat is beaten by its driver, and by its partitions' owners: none for `stale` means the
    // driver is gone, and with it every task that could claim a partition (no worker is given one).
    private static final String STALE_DRIVERS = """
            SELECT run_id FROM load_run
             WHERE status = 'EXTRACTING' AND executor = 'spark'
               AND COALESCE(heartbeat_at, status_changed_at) <= now() - make_interval(secs => ?)
             ORDER BY COALESCE(heartbeat_at, status_changed_at)
             LIMIT ? FOR NO KEY UPDATE SKIP LOCKED
            """;
    private static final String LOCK_STALE_DRIVER = """
            SELECT run_id FROM load_run
             WHERE run_id = ? AND status = 'EXTRACTING' AND executor = 'spark'
               AND COALESCE(heartbeat_at, status_changed_at) <= now() - make_interval(secs => ?)
            """;
    private static final String TIMED_OUT_RUNS = """
            SELECT run_id, status FROM load_run
             WHERE status IN ('CREATED', 'EXTRACTING') AND started_at <= now() - make_interval(secs => ?)
             ORDER BY started_at
             LIMIT ? FOR NO KEY UPDATE SKIP LOCKED
            """;
    private static final String MANIFEST_OVERDUE = """
            SELECT run_id FROM load_run
             WHERE status = 'CREATED' AND started_at <= now() - make_interval(secs => ?)
             ORDER BY started_at
             LIMIT ? FOR NO KEY UPDATE SKIP LOCKED
            """;
    // Source metrics can be awaited only before the validation starts (SourceMetricsLater).
    private static final String SOURCE_METRICS_OVERDUE = """
            SELECT run_id, status FROM load_run
             WHERE status IN ('EXTRACTING', 'EXTRACTED_VALIDATED')
               AND source_metrics_due_since <= now() - make_interval(secs => ?)
             ORDER BY source_metrics_due_since
             LIMIT ? FOR NO KEY UPDATE SKIP LOCKED
            """;
    private static final String STALE_ALERTS = """
            WITH due AS (
                SELECT run_id FROM load_run
                 WHERE status IN ('STAGE_VALIDATING', 'PUBLISHED')
                   AND status_changed_at <= now() - make_interval(secs => ?)
                   AND (stale_alert_at IS NULL OR stale_alert_at <= now() - make_interval(secs => ?))
                 ORDER BY status_changed_at
                 LIMIT ? FOR NO KEY UPDATE SKIP LOCKED)
            UPDATE load_run r SET stale_alert_at = now()
              FROM due
             WHERE r.run_id = due.run_id
            RETURNING r.run_id, r.status, r.status_changed_at
            """;
    // A staging validation whose caller has not beaten (or, never having beaten, not started) for validation_stale.
    private static final String STALE_VALIDATIONS = """
            SELECT run_id FROM load_run
             WHERE status = 'STAGE_VALIDATING'
               AND COALESCE(validation_heartbeat_at, status_changed_at) <= now() - make_interval(secs => ?)
             ORDER BY COALESCE(validation_heartbeat_at, status_changed_at)
             LIMIT ? FOR NO KEY UPDATE SKIP LOCKED
            """;
    private static final String LOCK_STALE_VALIDATION = """
            SELECT validation_attempts, validation_dispatch_id, validation_node FROM load_run
             WHERE run_id = ? AND status = 'STAGE_VALIDATING'
               AND COALESCE(validation_heartbeat_at, status_changed_at) <= now() - make_interval(secs => ?)
            """;
    private static final String CLEAR_VALIDATION_OWNER = """
            UPDATE load_run SET validation_dispatch_id = NULL, validation_node = NULL, validation_heartbeat_at = NULL
             WHERE run_id = ?
            """;
    // The run's one VALIDATE_RUN dispatch (a partial unique index allows no second) is due again, as after a resend.
    private static final String REGIVE_VALIDATE_RUN = """
            UPDATE load_dispatch
               SET status = 'PENDING', attempt_count = 0, next_attempt_at = now(), lease_until = NULL,
                   leased_by = NULL, last_error = ?
             WHERE run_id = ? AND dispatch_type = 'VALIDATE_RUN'
            RETURNING dispatch_id
            """;
    private static final String STALE_PUBLISHING = """
            SELECT run_id FROM load_run
             WHERE status = 'PUBLISHING'
               AND COALESCE(publish_started_at, status_changed_at) <= now() - make_interval(secs => ?)
             ORDER BY COALESCE(publish_started_at, status_changed_at)
             LIMIT ? FOR NO KEY UPDATE SKIP LOCKED
            """;

    private final Database database;
    private final LedgerSettings settings;

    public Sweep(Database database, LedgerSettings settings) {
        this.database = requireNonNull(database, "database is null");
        this.settings = requireNonNull(settings, "settings is null");
    }

    /** Runs one tick, or returns {@link SweepReport#ran()} false when another sweeper holds the tick. */
    public SweepReport tick(SweepThresholds thresholds) {
        requireNonNull(thresholds, "thresholds is null");
        return database.inTransaction(tx -> {
            boolean mine = tx.queryOne(TRY_TICK_LOCK, rs -> rs.getBoolean(1), TICK_LOCK).orElse(false);
            if (!mine) {
                return SweepReport.skipped();
            }
            Tick tick = new Tick(tx, thresholds);
            tick.rule("stalePartitions", tick::stalePartitions);
            tick.rule("staleDrivers", tick::staleDrivers);
            tick.rule("runTimeout", tick::runTimeouts);
            tick.rule("manifestTimeout", tick::manifestTimeouts);
            tick.rule("sourceMetricsTimeout", tick::sourceMetricsTimeouts);
            tick.rule("ackTimeout", tick::ackTimeouts);
            tick.rule("validationRegive", tick::staleValidations);
            tick.rule("validationStale", tick::staleAlerts);
            tick.rule("publishStale", tick::stalePublishing);
            return tick.report();
        });
    }

    /** The counters and savepoints of one tick. */
    private final class Tick {
        private final Tx tx;
        private final SweepThresholds thresholds;
        private final List<String> failedRules = new ArrayList<>();
        private int stalePartitionsTimedOut;
        private int reissued;
        private int runsTimedOut;
        private int requeued;
        private int dead;
        private int alerts;
        private int publishUnknown;
        private int validationsRegiven;
        private int manifestsOverdue;
        private int sourceMetricsOverdue;

        Tick(Tx tx, SweepThresholds thresholds) {
            this.tx = tx;
            this.thresholds = thresholds;
        }

        SweepReport report() {
            return new SweepReport(true, stalePartitionsTimedOut, reissued, runsTimedOut, requeued, dead, alerts,
                    publishUnknown, validationsRegiven, manifestsOverdue, sourceMetricsOverdue, failedRules);
        }

        void rule(String name, SqlAction body) {
            try {
                tx.inSavepoint(t -> {
                    body.run();
                    return null;
                });
            } catch (SQLException | RuntimeException e) {
                failedRules.add(name);
                LOG.warn("sweeper rule {} failed and was rolled back: {}", name, e.toString());
            }
        }

        /** Runs one row's change in a nested savepoint; a failure (a deadlock, say) skips the row until next tick. */
        private boolean row(String what, SqlCheck body) {
            try {
                return tx.inSavepoint(t -> body.run());
            } catch (SQLException | RuntimeException e) {
                LOG.warn("sweeper skipped {} this tick: {}", what, e.toString());
                return false;
            }
        }

        // Rule 1: RUNNING partition without a heartbeat for `stale`.
        void stalePartitions() throws SQLException {
            double stale = SweepThresholds.seconds(thresholds.stale());
            var candidates = tx.query(STALE_PARTITIONS, rs -> new PartitionKey(Tx.runId(rs, 1),
                    rs.getString(2)), stale, thresholds.batch());
            for (PartitionKey candidate : candidates) {
                RunId runId = candidate.runId();
                String partitionId = candidate.partitionId();
                row("stale partition " + runId + "/" + partitionId, () -> stalePartition(runId, partitionId, stale));
            }
        }

        private boolean stalePartition(RunId runId, String partitionId, double stale) throws SQLException {
            RunRow run = RunTransitions.lock(tx, runId);
            if (run.status() != RunStatus.EXTRACTING) {
                return false;
            }
            var attempts = tx.queryOne(LOCK_STALE_PARTITION, rs -> rs.getInt(1), runId, partitionId, stale);
            if (attempts.isEmpty()) {
                return false;
            }
            String message = "partition " + partitionId + " sent no heartbeat for " + thresholds.stale();
            RecoveryMode mode = run.recoveryMode(settings);
            if (mode == RecoveryMode.REISSUE && attempts.get() < settings.maxAttempts()) {
                if (Reissue.reissue(tx, run, partitionId, PartitionStatus.RUNNING, "PARTITION_STALE", ACTOR)) {
                    reissued++;
                    return true;
                }
                return false;
            }
            String code = mode == RecoveryMode.FAIL ? "PARTITION_STALE" : "REISSUE_ATTEMPTS_EXHAUSTED";
            if (code.equals("REISSUE_ATTEMPTS_EXHAUSTED")) {
                message += " after " + attempts.get() + " of " + settings.maxAttempts() + " attempts";
            }
            if (timeOut(run, RunStatus.EXTRACTING, "EXTRACT", code, message)) {
                stalePartitionsTimedOut++;
                return true;
            }
            return false;
        }

        // Rule 1b (an extension): a Spark run (executor spark) nothing has beaten for `stale`. Its partitions are
        // its driver's tasks, and its driver is gone: a reissue would wait for a task that never comes, and the
        // PostgreSQL snapshot the driver held ended with it, so the run ends now rather than at run_timeout.
        void staleDrivers() throws SQLException {
            double stale = SweepThresholds.seconds(thresholds.stale());
            for (RunId runId : tx.query(STALE_DRIVERS, rs -> Tx.runId(rs, 1), stale, thresholds.batch())) {
                row("stale driver " + runId, () -> {
                    RunRow run = RunTransitions.lock(tx, runId);
                    if (tx.queryOne(LOCK_STALE_DRIVER, rs -> rs.getString(1), runId, stale).isEmpty()) {
                        return false;
                    }
                    boolean moved = timeOut(run, RunStatus.EXTRACTING, "EXTRACT", "DRIVER_STALE", "the Spark"
                            + " driver of the run, and every task of it, sent no heartbeat for " + thresholds.stale()
                            + ": no task is left to extract its partitions (no worker is given them), and a"
                            + " snapshot the driver held ended with it. Load the business key again.");
                    runsTimedOut += moved ? 1 : 0;
                    return moved;
                });
            }
        }

        // Rule 2: CREATED or EXTRACTING past run_timeout.
        void runTimeouts() throws SQLException {
            var runs = tx.query(TIMED_OUT_RUNS, rs -> new RunState(Tx.runId(rs, 1),
                    RunStatus.valueOf(rs.getString(2)), null), SweepThresholds.seconds(thresholds.runTimeout()),
                    thresholds.batch());
            for (RunState candidate : runs) {
                RunId runId = candidate.runId();
                RunStatus status = candidate.status();
                row("run timeout " + runId, () -> {
                    RunRow run = RunTransitions.lock(tx, runId);
                    boolean moved = timeOut(run, status, status == RunStatus.CREATED ? "MANIFEST" : "EXTRACT",
                            "RUN_TIMEOUT", "run still " + status + " after the run timeout " + thresholds.runTimeout());
                    runsTimedOut += moved ? 1 : 0;
                    return moved;
                });
            }
        }

        // Rule 2b (an extension): CREATED with no manifest for manifest_timeout. Its submitter is gone (it died, or
        // gave up after its create's answer was lost), and no manifest will come: the key is freed long before
        // run_timeout would free it.
        void manifestTimeouts() throws SQLException {
            var runs = tx.query(MANIFEST_OVERDUE, rs -> Tx.runId(rs, 1),
                    SweepThresholds.seconds(thresholds.manifestTimeout()), thresholds.batch());
            for (RunId runId : runs) {
                row("manifest timeout " + runId, () -> {
                    boolean moved = RunTransitions.transition(tx, runId, RunStatus.CREATED, RunStatus.FAILED_MANIFEST,
                            new RunTransitions.Failure("MANIFEST", "MANIFEST_TIMEOUT", "no manifest within "
                                    + thresholds.manifestTimeout() + " of the run's creation: its submitter is gone;"
                                    + " start a new run for the key"), ACTOR);
                    manifestsOverdue += moved ? 1 : 0;
                    return moved;
                });
            }
        }

        // Rule 2c (an extension): source metrics that a manifest said would follow and that have not come for
        // manifest_timeout since. Their submitter died (it measures them at the snapshot it holds, so nobody else
        // can), and no validation can be judged without them: the run times out and frees its key, and its
        // unfinished partitions and open dispatches end with it, since their work can no longer be validated.
        // The same threshold as the manifest's: both wait for one source query of a submitter that may be gone.
        void sourceMetricsTimeouts() throws SQLException {
            var runs = tx.query(SOURCE_METRICS_OVERDUE, rs -> new RunState(Tx.runId(rs, 1),
                    RunStatus.valueOf(rs.getString(2)), null), SweepThresholds.seconds(thresholds.manifestTimeout()),
                    thresholds.batch());
            for (RunState candidate : runs) {
                RunId runId = candidate.runId();
                row("source metrics timeout " + runId, () -> {
                    RunRow run = RunTransitions.lock(tx, runId);
                    if (!run.sourceMetricsPending() || run.status() != candidate.status()) {
                        return false;
                    }
                    boolean moved = timeOut(run, run.status(), "SOURCE_METRICS", "SOURCE_METRICS_TIMEOUT",
                            "no source metrics within " + thresholds.manifestTimeout() + " of the manifest, which"
                                    + " said they would follow: their submitter is gone; start a new run for the key");
                    if (moved) {
                        Dispatches.retireOpenOfRun(tx, runId, ACTOR);
                        sourceMetricsOverdue++;
                    }
                    return moved;
                });
            }
        }

        private boolean timeOut(RunRow run, RunStatus from, String stage, String code, String message)
                throws SQLException {
            if (!RunTransitions.transition(tx, run.runId(), from, RunStatus.TIMED_OUT,
                    new RunTransitions.Failure(stage, code, message), ACTOR)) {
                return false;
            }
            Partitions.endUnfinished(tx, run.runId(), PartitionStatus.TIMED_OUT, stage, code, message, ACTOR);
            return true;
        }

        // Rule 3: SENT dispatch without an ACK for ack_timeout.
        void ackTimeouts() throws SQLException {
            Dispatches.Requeued result = Dispatches.requeueUnacked(tx, thresholds.dispatch(), thresholds.batch());
            requeued += result.pending();
            dead += result.dead();
        }

        // Rule 4a: a staging validation whose caller stopped beating for validation_stale is given again; it is
        // read-only, so a second one is safe even if the first caller still lives. Bounded by max_attempts starts, so
        // a validation that kills every worker that runs it ends the run instead of looping.
        void staleValidations() throws SQLException {
            double window = SweepThresholds.seconds(thresholds.validationStale());
            for (RunId runId : tx.query(STALE_VALIDATIONS, rs -> Tx.runId(rs, 1), window,
                    thresholds.batch())) {
                row("stale validation " + runId, () -> staleValidation(runId, window));
            }
        }

        private boolean staleValidation(RunId runId, double window) throws SQLException {
            RunRow run = RunTransitions.lock(tx, runId);
            var owner = tx.queryOne(LOCK_STALE_VALIDATION, rs -> new ValidationOwner(rs.getInt(1),
                    rs.getObject(2, UUID.class), rs.getString(3)), runId, window);
            if (owner.isEmpty()) {
                return false;
            }
            int attempts = owner.get().attempts();
            String message = "staging validation by " + owner.get().node() + " sent no heartbeat for "
                    + thresholds.validationStale();
            if (attempts >= settings.maxAttempts()) {
                boolean moved = timeOut(run, RunStatus.STAGE_VALIDATING, "STAGE_VALIDATION",
                        "VALIDATION_ATTEMPTS_EXHAUSTED", message + " after " + attempts + " of "
                                + settings.maxAttempts() + " attempts");
                runsTimedOut += moved ? 1 : 0;
                return moved;
            }
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("reason", "VALIDATION_STALE");
            details.put("attempt", attempts);
            details.put("dispatchId", String.valueOf(owner.get().dispatchId()));
            details.put("node", owner.get().node());
            if (!RunTransitions.transition(tx, runId, RunStatus.STAGE_VALIDATING, RunStatus.EXTRACTED_VALIDATED, null,
                    ACTOR, details)) {
                return false;
            }
            tx.update(CLEAR_VALIDATION_OWNER, runId);
            var dispatch = tx.queryOne(REGIVE_VALIDATE_RUN, rs -> rs.getObject(1, UUID.class), "VALIDATION_STALE: "
                    + message, runId);
            if (dispatch.isEmpty()) {
                dispatch = Outbox.insert(tx, runId, run.executor(), DispatchType.VALIDATE_RUN, null, Map.of());
            }
            details.put("regivenDispatchId", dispatch.map(UUID::toString).orElse(null));
            EventLog.append(tx, runId, null, "VALIDATION_REGIVEN", null, null, ACTOR, details);
            validationsRegiven++;
            return true;
        }

        // Rule 4: STAGE_VALIDATING or PUBLISHED for longer than validation_stale: one alert per window.
        void staleAlerts() throws SQLException {
            double window = SweepThresholds.seconds(thresholds.validationStale());
            var rows = tx.query(STALE_ALERTS, rs -> new RunState(Tx.runId(rs, 1),
                    RunStatus.valueOf(rs.getString(2)), Tx.instant(rs, "status_changed_at")), window, window,
                    thresholds.batch());
            for (RunState row : rows) {
                Map<String, Object> details = new LinkedHashMap<>();
                details.put("status", row.status().name());
                details.put("since", String.valueOf(row.since()));
                details.put("validationStale", thresholds.validationStale().toString());
                EventLog.append(tx, row.runId(), null, "RUN_STALE_ALERT", null, null, ACTOR, details);
                alerts++;
            }
        }

        // Rule 5: PUBLISHING past publish_stale. The outcome is unknown, so it is never published again.
        void stalePublishing() throws SQLException {
            var runs = tx.query(STALE_PUBLISHING, rs -> Tx.runId(rs, 1),
                    SweepThresholds.seconds(thresholds.publishStale()), thresholds.batch());
            for (RunId runId : runs) {
                row("publish stale " + runId, () -> {
                    boolean moved = RunTransitions.transition(tx, runId, RunStatus.PUBLISHING,
                            RunStatus.PUBLISH_UNKNOWN, new RunTransitions.Failure("PUBLISH", "PUBLISH_STALE",
                                    "no publish result within " + thresholds.publishStale()
                                            + "; a publish probe or an operator must resolve the run"), ACTOR);
                    if (moved) {
                        dispatchProbe(tx, runId);
                    }
                    publishUnknown += moved ? 1 : 0;
                    return moved;
                });
            }
        }
    }

    /**
     * Rule 5's probe: a worker looks for the run's publish token in the target and reports what it saw, so a publisher
     * that died mid-publish does not leave the run to an operator. A NiFi run (executor http) gets none: NiFi knows no
     * such step, and its runs stay with the operator's resolve.
     */
    private static void dispatchProbe(Tx tx, RunId runId) throws SQLException {
        RunRow run = RunTransitions.lock(tx, runId);
        Outbox.insert(tx, runId, run.executor(), DispatchType.PROBE_PUBLISH, null,
                Map.of("publishToken", String.valueOf(run.publishToken())));
    }

    @FunctionalInterface
    private interface SqlAction {
        void run() throws SQLException;
    }

    @FunctionalInterface
    private interface SqlCheck {
        boolean run() throws SQLException;
    }

    /** A partition a rule selected. */
    /** Who held a stale staging validation: its attempts so far, its dispatch and its node. */
    private record ValidationOwner(int attempts, UUID dispatchId, String node) {
    }

    private record PartitionKey(RunId runId, String partitionId) {
    }

    /** A run a rule selected, with its status and (for the stale alert) since when. */
    private record RunState(RunId runId, RunStatus status, java.time.Instant since) {
    }
}

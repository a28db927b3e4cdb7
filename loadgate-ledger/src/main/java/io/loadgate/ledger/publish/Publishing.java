package io.loadgate.ledger.publish;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.DispatchApi;
import io.loadgate.api.DispatchType;
import io.loadgate.api.ErrorCode;
import io.loadgate.api.OperatorApi;
import io.loadgate.api.RunId;
import io.loadgate.api.RunStatus;
import io.loadgate.api.StepApi;
import io.loadgate.ledger.LedgerException;
import io.loadgate.ledger.db.Database;
import io.loadgate.ledger.db.Tx;
import io.loadgate.ledger.dispatch.Dispatches;
import io.loadgate.ledger.dispatch.Outbox;
import io.loadgate.ledger.event.EventLog;
import io.loadgate.ledger.run.RunRow;
import io.loadgate.ledger.run.RunTransitions;
import io.loadgate.ledger.validation.Validations;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Publishing under a publish token. A publish is never retried by the ledger: when its outcome cannot be known the
 * run waits in PUBLISH_UNKNOWN for evidence — an operator's word, or the publish probe's look at the target.
 */
public final class Publishing {
    /** What the claim records in the statement that moves the run to PUBLISHING. */
    private static final String CLAIM_COLUMNS = "publish_token = ?, publish_started_at = now(), publish_generation = ?";
    private static final String SET_TARGET_REF = "UPDATE load_run SET target_ref = ? WHERE run_id = ?";
    /** The key's next publish generation, taken in the claim's transaction (the first claim of a key takes 1). */
    private static final String NEXT_GENERATION = """
            INSERT INTO load_publish_generation (job_key, business_key, generation) VALUES (?, ?, 1)
            ON CONFLICT (job_key, business_key) DO UPDATE SET generation = load_publish_generation.generation + 1
            RETURNING generation
            """;
    private static final String FENCE = """
            SELECT publish_generation,
                   greatest(0, floor(extract(epoch FROM publish_started_at + ?::interval - now()) * 1000))::bigint
              FROM load_run WHERE run_id = ?
            """;

    private static final String ATTEMPT_CERTAINLY_OVER = """
            SELECT publish_started_at < now() - ?::interval FROM load_run WHERE run_id = ?
            """;

    private final Database database;
    private final Duration publishStale;

    public Publishing(Database database, Duration publishStale) {
        this.database = requireNonNull(database, "database is null");
        this.publishStale = requireNonNull(publishStale, "publishStale is null");
    }

    /**
     * How long after its claim a publish may commit: nine tenths of publish_stale. The tenth left over covers the
     * commit's own round trip and the drift of the publisher's clock, so that by the time publish_stale lets a probe
     * call an absent token conclusive, no commit of the attempt can still land.
     */
    public Duration deadline() {
        return publishStale.multipliedBy(9).dividedBy(10);
    }

    /**
     * STAGING_VALIDATED to PUBLISHING by compare-and-set, taking the key's next publish generation; the winner's token
     * presented again wins again, with the same generation and deadline. A claim answers (claimed only) the key's
     * generation it took, which the target refuses the commit unless it is above every generation it holds for the
     * key, and how long from now the publisher may still commit: a commit must not land after {@link #deadline()}
     * past the claim, so that publish_stale settles a silent attempt for good.
     */
    public StepApi.PublishClaim claim(RunId runId, StepApi.ClaimPublish request, String actor) {
        UUID publishToken = request.publishToken();
        return database.inTransaction(tx -> {
            RunRow run = RunTransitions.lock(tx, runId);
            // The run row is locked, so a STAGING_VALIDATED run is certain to move: the generation is taken first
            // so that the status, the token and the generation are written by one statement.
            if (run.status() == RunStatus.STAGING_VALIDATED) {
                long generation = tx.queryOne(NEXT_GENERATION, rs -> rs.getLong(1), run.jobKey(), run.businessKey())
                        .orElseThrow();
                Map<String, Object> details = new LinkedHashMap<>();
                details.put("publishToken", publishToken.toString());
                details.put("publishGeneration", generation);
                if (!RunTransitions.transitionWith(tx, runId, RunStatus.STAGING_VALIDATED, RunStatus.PUBLISHING,
                        new RunTransitions.Columns(CLAIM_COLUMNS, publishToken, generation), actor, details)) {
                    throw new IllegalStateException("run " + runId + " left STAGING_VALIDATED under its lock");
                }
                Outbox.ackOpen(tx, runId, DispatchType.PUBLISH_RUN, null);
                return fence(tx, runId, RunStatus.PUBLISHING);
            }
            boolean same = publishToken.equals(run.publishToken()) && run.status() == RunStatus.PUBLISHING;
            return same ? fence(tx, runId, run.status()) : new StepApi.PublishClaim(false, run.status(), null, null, null);
        });
    }

    /** A claim's answer: its fence, and the files to publish (those {@code GET .../files} lists). */
    private StepApi.PublishClaim fence(Tx tx, RunId runId, RunStatus status) throws SQLException {
        List<StepApi.StagedFile> files = Validations.files(tx, runId);
        return tx.queryOne(FENCE, rs -> new StepApi.PublishClaim(true, status, (Long) rs.getObject(1, Long.class),
                        rs.getLong(2), files),
                deadline().toMillis() + " milliseconds", runId).orElseThrow();
    }

    /** {@code nextDispatch}: the VALIDATE_TARGET dispatch handed to the reporter's node, if it asked. */
    public record Result(RunStatus runStatus, boolean changed, Optional<DispatchApi.LeasedDispatch> nextDispatch) {
        Result(RunStatus runStatus, boolean changed) {
            this(runStatus, changed, Optional.empty());
        }
    }

    /**
     * Records the publish's outcome. A PUBLISHED run whose reporter names its node ({@code handOffTo}) is handed its
     * VALIDATE_TARGET dispatch in the same transaction, and a resend of the same request ({@code requestId}) gets
     * what its lost answer held (docs/ledger-api-v1.md, the hand-off).
     */
    public Result result(RunId runId, StepApi.PublishResult report, String actor, String requestId) {
        UUID publishToken = report.publishToken();
        StepApi.PublishOutcome outcome = report.outcome();
        RunStatus outcomeStatus = RunStatus.valueOf(outcome.name());
        return database.inTransaction(tx -> {
            RunRow run = RunTransitions.lock(tx, runId);
            if (!publishToken.equals(run.publishToken())) {
                throw new LedgerException.Conflict(ErrorCode.PUBLISH_TOKEN_MISMATCH, "publish token " + publishToken
                        + " does not hold run " + runId, Map.of("runStatus", run.status().name()));
            }
            if (run.status() == outcomeStatus) {
                return new Result(run.status(), false, handOff(tx, runId, report, requestId));
            }
            if (run.status() != RunStatus.PUBLISHING) {
                throw new LedgerException.Conflict(ErrorCode.RUN_STATUS_MISMATCH, "run " + runId + " is " + run.status()
                        + ", not PUBLISHING", Map.of("runStatus", run.status().name()));
            }
            RunTransitions.Failure failure = outcome == StepApi.PublishOutcome.PUBLISHED ? null
                    : new RunTransitions.Failure("PUBLISH",
                            report.errorCode() == null ? outcome.name() : report.errorCode(), report.message());
            RunTransitions.transition(tx, runId, RunStatus.PUBLISHING, outcomeStatus, failure, actor);
            if (report.targetRef() != null) {
                tx.update(SET_TARGET_REF, report.targetRef(), runId);
            }
            if (outcome == StepApi.PublishOutcome.PUBLISHED) {
                Outbox.insert(tx, runId, run.executor(), DispatchType.VALIDATE_TARGET, null, Map.of());
            }
            return new Result(outcomeStatus, true, handOff(tx, runId, report, requestId));
        });
    }

    private static Optional<DispatchApi.LeasedDispatch> handOff(Tx tx, RunId runId, StepApi.PublishResult report,
                                                                String requestId) throws SQLException {
        return report.outcome() != StepApi.PublishOutcome.PUBLISHED ? Optional.empty()
                : Dispatches.handOff(tx, runId, DispatchType.VALIDATE_TARGET, report.handOffTo(), requestId);
    }

    /**
     * Leaves PUBLISH_UNKNOWN on evidence: an operator who looked at the target, or the publish probe. The reason and
     * who gave it are kept as an event.
     */
    public Result resolve(RunId runId, OperatorApi.Resolution resolution, String reason, Map<String, Object> evidence,
                          String actor) {
        RunStatus resolved = RunStatus.valueOf(resolution.name());
        return database.inTransaction(tx -> {
            RunRow run = RunTransitions.lock(tx, runId);
            if (run.status() == resolved && resolvedBefore(tx, runId)) {
                return new Result(run.status(), false);
            }
            if (run.status() != RunStatus.PUBLISH_UNKNOWN) {
                throw new LedgerException.Conflict(ErrorCode.RUN_STATUS_MISMATCH, "run " + runId + " is " + run.status()
                        + ", not PUBLISH_UNKNOWN", Map.of("runStatus", run.status().name()));
            }
            RunTransitions.Failure failure = resolution == OperatorApi.Resolution.FAILED_PUBLISH
                    ? new RunTransitions.Failure("PUBLISH", "PUBLISH_RESOLVED_FAILED", reason) : null;
            RunTransitions.transition(tx, runId, RunStatus.PUBLISH_UNKNOWN, resolved, failure, actor);
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("resolution", resolution.name());
            details.put("reason", reason);
            details.put("evidence", evidence == null ? Map.of() : evidence);
            EventLog.append(tx, runId, null, "PUBLISH_UNKNOWN_RESOLVED", RunStatus.PUBLISH_UNKNOWN,
                    resolved, actor, details);
            // Whoever settled it, the sweeper's probe step has nothing left to do.
            Outbox.ackOpen(tx, runId, DispatchType.PROBE_PUBLISH, null);
            if (evidence != null && evidence.get("targetRef") != null) {
                tx.update(SET_TARGET_REF, evidence.get("targetRef").toString(), runId);
            }
            if (resolution == OperatorApi.Resolution.PUBLISHED) {
                Outbox.insert(tx, runId, run.executor(), DispatchType.VALIDATE_TARGET, null, Map.of());
            }
            return new Result(resolved, true);
        });
    }

    /**
     * The publish probe. The token found in the target proves the commit landed: PUBLISHED. The token absent proves
     * nothing while the attempt might still land, so FAILED_PUBLISH needs the attempt to be certainly over: the
     * publishing process saw its commit call return, or publish_stale has passed since the claim.
     */
    public Result probe(RunId runId, OperatorApi.PublishProbe report, String actor) {
        RunRow run = database.inTransaction(tx -> RunTransitions.read(tx, runId)
                .orElseThrow(() -> RunTransitions.notFound(runId)));
        if (!report.publishToken().equals(run.publishToken())) {
            throw new LedgerException.Conflict(ErrorCode.PUBLISH_TOKEN_MISMATCH,
                    "publish token " + report.publishToken()
                    + " is not the token run " + runId + " published with", Map.of("runStatus", run.status().name()));
        }
        Map<String, Object> evidence = new LinkedHashMap<>(report.evidence());
        evidence.put("probe", report.found() ? "token found in target" : "token absent from target");
        if (report.found()) {
            evidence.put("targetRef", report.snapshotId());
            return resolve(runId, OperatorApi.Resolution.PUBLISHED, "publish probe found the publish token in snapshot "
                    + report.snapshotId(), evidence, actor);
        }
        boolean staleOver = database.inTransaction(tx -> tx.queryOne(ATTEMPT_CERTAINLY_OVER, rs -> rs.getBoolean(1),
                publishStale.toMillis() + " milliseconds", runId).orElse(false));
        if (!report.attemptReturned() && !staleOver) {
            throw new LedgerException.Conflict(ErrorCode.PROBE_INCONCLUSIVE,
                    "the publish token is not in the target yet,"
                    + " but the publish attempt may still be running; probe again after publish_stale",
                    Map.of("runStatus", run.status().name()));
        }
        evidence.put("attemptOver", report.attemptReturned() ? "the publishing process returned" : "publish_stale passed");
        return resolve(runId, OperatorApi.Resolution.FAILED_PUBLISH, "publish probe: the publish token is absent from the target"
                + " and the attempt is over", evidence, actor);
    }

    private static boolean resolvedBefore(Tx tx, RunId runId) throws SQLException {
        return tx.queryOne("SELECT 1 FROM load_event WHERE run_id = ? AND event_type = 'PUBLISH_UNKNOWN_RESOLVED' LIMIT 1",
                rs -> true, runId).isPresent();
    }
}

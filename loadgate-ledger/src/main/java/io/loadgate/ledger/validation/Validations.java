package io.loadgate.ledger.validation;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.ChunkKind;
import io.loadgate.api.DispatchApi;
import io.loadgate.api.DispatchType;
import io.loadgate.api.ErrorCode;
import io.loadgate.api.RunId;
import io.loadgate.api.RunStatus;
import io.loadgate.api.StepApi;
import io.loadgate.ledger.LedgerException;
import io.loadgate.ledger.LedgerJson;
import io.loadgate.ledger.db.Database;
import io.loadgate.ledger.db.Tx;
import io.loadgate.ledger.dispatch.Dispatches;
import io.loadgate.ledger.dispatch.Outbox;
import io.loadgate.ledger.run.RunRow;
import io.loadgate.ledger.run.RunTransitions;
import io.loadgate.ledger.watermark.Watermarks;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/** Staging and target validation: start, record metrics, and the ledger's own verdict on them. */
public final class Validations {
    private static final String DISPATCH_RUN = "SELECT run_id FROM load_dispatch WHERE dispatch_id = ?";
    /** What a start records in the statement that moves the run to STAGE_VALIDATING. */
    private static final String START_COLUMNS = "validation_dispatch_id = ?, validation_node = ?, "
            + "validation_heartbeat_at = now(), validation_attempts = validation_attempts + 1";
    // The caller that started the validation, presenting the same dispatch and node again: the same start. This is
    // also the validation's heartbeat, so a caller that keeps beating is never given up on.
    private static final String SAME_CALLER = """
            UPDATE load_run SET validation_heartbeat_at = now()
             WHERE run_id = ? AND status = 'STAGE_VALIDATING' AND validation_dispatch_id = ?
               AND validation_node IS NOT DISTINCT FROM ?
            """;
    private static final String RUN_FACTS = """
            SELECT source_count, extracted_count, source_metrics::text, staging_count FROM load_run WHERE run_id = ?
            """;
    private static final String FILES = """
            SELECT partition_id, chunk_index, hdfs_path, record_count, byte_count, checksum, kind
              FROM load_file WHERE run_id = ? AND status = 'COMMITTED' ORDER BY partition_id, chunk_index
            """;
    private static final String INSERT_METRIC = """
            INSERT INTO load_validation (run_id, stage, metric_name, query_version, expected_value, actual_value,
                                         tolerance, result, details)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (run_id, stage, metric_name, query_version) DO NOTHING
            """;
    private static final String METRICS = """
            SELECT stage, metric_name, query_version, expected_value, actual_value, tolerance, result, details::text,
                   created_at
              FROM load_validation WHERE run_id = ? AND (?::text IS NULL OR stage = ?) ORDER BY validation_id
            """;
    private static final String SET_STAGING_COUNT = "UPDATE load_run SET staging_count = ? WHERE run_id = ?";
    private static final String SET_TARGET_COUNT = "UPDATE load_run SET target_count = ? WHERE run_id = ?";

    private final Database database;
    private final Duration heartbeatInterval;

    public Validations(Database database, Duration heartbeatInterval) {
        this.database = requireNonNull(database, "database is null");
        this.heartbeatInterval = requireNonNull(heartbeatInterval, "heartbeatInterval is null");
    }

    /**
     * EXTRACTED_VALIDATED to STAGE_VALIDATING: of concurrent starters only the first gets started=true, and so does
     * that first caller (the same dispatch and node) when it presents its start again, as a partition claim with the
     * same token is: a retry after a lost answer, or the request delivered twice. The dispatch is acknowledged either
     * way: it was delivered, and someone is validating.
     */
    public StepApi.ValidationStarted start(RunId runId, StepApi.StartValidation request) {
        UUID dispatchId = request.dispatchId();
        String node = request.node();
        return database.inTransaction(tx -> {
            RunRow run = RunTransitions.lock(tx, runId);
            if (dispatchId != null) {
                Optional<RunId> owner = tx.queryOne(DISPATCH_RUN, rs -> Tx.runId(rs, 1), dispatchId);
                if (owner.isEmpty()) {
                    throw new LedgerException.NotFound(ErrorCode.DISPATCH_NOT_FOUND,
                            "dispatch " + dispatchId + " does not exist");
                }
                if (!owner.get().equals(runId)) {
                    throw new LedgerException.Conflict(ErrorCode.DISPATCH_MISMATCH, "dispatch " + dispatchId
                            + " belongs to run " + owner.get() + ", not " + runId);
                }
                Outbox.ack(tx, dispatchId);
            }
            // One statement moves the status and records the validator, as the publish claim does with its token.
            // A run still awaiting its source metrics starts nothing: there would be nothing to judge against
            // (SourceMetricsLater); its validation is scheduled when they come.
            boolean started = !run.sourceMetricsPending() && RunTransitions.transitionWith(tx, runId, RunStatus.EXTRACTED_VALIDATED,
                    RunStatus.STAGE_VALIDATING, new RunTransitions.Columns(START_COLUMNS, dispatchId, node), node,
                    Map.of("dispatchId", String.valueOf(dispatchId)));
            RunStatus status = run.status();
            if (started) {
                status = RunStatus.STAGE_VALIDATING;
            } else if (dispatchId != null) {
                started = tx.update(SAME_CALLER, runId, dispatchId, node) == 1;
            }
            RunFacts facts = tx.queryOne(RUN_FACTS, rs -> new RunFacts(Tx.nullableLong(rs, "source_count"),
                    rs.getLong("extracted_count"), rs.getString(3)), runId).orElseThrow();
            return new StepApi.ValidationStarted(started, status, run.jobKey(), run.businessKey(),
                    run.snapshotScn() == null ? null : new BigInteger(run.snapshotScn()), run.snapshotRef(),
                    run.hdfsRunPath(), run.stageTable(), facts.sourceCount(), facts.extractedCount(),
                    facts.sourceMetrics() == null ? Map.of() : stringMap(facts.sourceMetrics()), files(tx, runId),
                    heartbeatInterval.toMillis());
        });
    }

    /** The run's numbers validation/start answers with, beside the run row. */
    private record RunFacts(Long sourceCount, long extractedCount, String sourceMetrics) {
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> stringMap(String json) {
        return LedgerJson.MAPPER.convertValue(LedgerJson.read(json), LinkedHashMap.class);
    }

    /**
     * The validating caller is alive. {@code validating=false} means the validation is no longer this caller's (the
     * sweeper gave it again, or the run moved on): it should stop.
     */
    public StepApi.ValidationBeat heartbeat(RunId runId, StepApi.StartValidation request) {
        return database.inTransaction(tx -> {
            RunRow run = RunTransitions.lock(tx, runId);
            return new StepApi.ValidationBeat(tx.update(SAME_CALLER, runId, request.dispatchId(), request.node()) == 1,
                    run.status());
        });
    }

    /** The committed chunk files of a run: the only files validation and publishing may read. */
    public static List<StepApi.StagedFile> files(Tx tx, RunId runId) throws SQLException {
        return tx.query(FILES, rs -> new StepApi.StagedFile(Tx.partitionId(rs, "partition_id"),
                rs.getInt("chunk_index"),
                rs.getString("hdfs_path"), rs.getLong("record_count"), rs.getLong("byte_count"),
                rs.getString("checksum"), ChunkKind.valueOf(rs.getString("kind"))), runId);
    }

    /** The committed files of a run, for publishing and for operators; 404 for an unknown run. */
    public List<StepApi.StagedFile> files(RunId runId) {
        return database.inTransaction(tx -> {
            RunTransitions.read(tx, runId).orElseThrow(() -> RunTransitions.notFound(runId));
            return files(tx, runId);
        });
    }

    public StepApi.ValidationsRecorded record(RunId runId, StepApi.Validations validations) {
        StepApi.Stage stage = validations.stage();
        List<StepApi.Metric> metrics = validations.metrics();
        RunStatus required = stage == StepApi.Stage.STAGING ? RunStatus.STAGE_VALIDATING : RunStatus.PUBLISHED;
        return database.inTransaction(tx -> {
            RunRow run = RunTransitions.lock(tx, runId);
            if (run.status() != required) {
                throw mismatch(run, required);
            }
            insert(tx, runId, validations);
            return new StepApi.ValidationsRecorded(metrics.size(), failures(metrics).size(), run.status());
        });
    }

    /** Stores metrics as {@code POST .../validations} does; a metric already stored stays as it was. */
    private static void insert(Tx tx, RunId runId, StepApi.Validations validations) throws SQLException {
        List<Object[]> rows = new ArrayList<>();
        for (StepApi.Metric m : validations.metrics()) {
            rows.add(new Object[] {runId, validations.stage(), m.metricName(), validations.queryVersion(),
                    m.expectedValue(), m.actualValue(), m.tolerance(), m.result(), LedgerJson.jsonb(m.details())});
        }
        tx.batch(INSERT_METRIC, rows);
    }

    /** {@code nextDispatch}: the dispatch handed to the caller's node with a passing verdict, if it asked. */
    public record Verdict(boolean passed, RunStatus runStatus, List<String> reasons,
                          Optional<DispatchApi.LeasedDispatch> nextDispatch) {
        Verdict(boolean passed, RunStatus runStatus, List<String> reasons) {
            this(passed, runStatus, reasons, Optional.empty());
        }
    }

    /**
     * STAGE_VALIDATING to STAGING_VALIDATED, or FAILED_STAGE_VALIDATION, on the ledger's own judgement. A passing
     * verdict for a caller that names its node in {@code handOffTo} (nullable) also leases it the run's PUBLISH_RUN
     * dispatch, in the verdict's transaction, and a resend of the same request ({@code requestId}) gets what its lost
     * answer held (docs/ledger-api-v1.md, the hand-off). {@code given} (STAGING metrics, optional) are stored first, in the
     * verdict's transaction, as {@link #record} stores them; once the run has left STAGE_VALIDATING they are not
     * stored (the call is a resend, answered from what the verdict judged).
     */
    public Verdict stageValidated(RunId runId, String actor, String handOffTo, String requestId,
                                  Optional<StepApi.Validations> given) {
        requireStage(given, StepApi.Stage.STAGING);
        return database.inTransaction(tx -> {
            RunRow run = RunTransitions.lock(tx, runId);
            if (run.status() == RunStatus.STAGING_VALIDATED) {
                return new Verdict(true, run.status(), List.of(),
                        Dispatches.handOff(tx, runId, DispatchType.PUBLISH_RUN, handOffTo, requestId));
            }
            // A worker resends the call when the answer was lost; it must learn the verdict, not a 409. The stored
            // metrics no longer change once the run has left STAGE_VALIDATING, so judging them again gives it.
            if (run.status() == RunStatus.FAILED_STAGE_VALIDATION) {
                return new Verdict(false, run.status(), failures(stored(tx, runId, StepApi.Stage.STAGING)));
            }
            if (run.status() != RunStatus.STAGE_VALIDATING) {
                throw mismatch(run, RunStatus.STAGE_VALIDATING);
            }
            if (given.isPresent()) {
                insert(tx, runId, given.get());
            }
            List<StepApi.Metric> metrics = stored(tx, runId, StepApi.Stage.STAGING);
            List<String> reasons = failures(metrics);
            if (metrics.isEmpty()) {
                return new Verdict(false, run.status(), List.of("NO_METRICS"));
            }
            if (!reasons.isEmpty()) {
                RunTransitions.transition(tx, runId, RunStatus.STAGE_VALIDATING, RunStatus.FAILED_STAGE_VALIDATION,
                        new RunTransitions.Failure("STAGE_VALIDATION", "STAGE_VALIDATION_FAILED",
                                String.join("; ", reasons)), actor);
                return new Verdict(false, RunStatus.FAILED_STAGE_VALIDATION, reasons);
            }
            Optional<Long> stageCount = count(metrics, "STAGE_COUNT");
            if (stageCount.isPresent()) {
                tx.update(SET_STAGING_COUNT, stageCount.get(), runId);
            }
            RunTransitions.transition(tx, runId, RunStatus.STAGE_VALIDATING, RunStatus.STAGING_VALIDATED, actor);
            Outbox.insert(tx, runId, run.executor(), DispatchType.PUBLISH_RUN, null, Map.of());
            return new Verdict(true, RunStatus.STAGING_VALIDATED, List.of(),
                    Dispatches.handOff(tx, runId, DispatchType.PUBLISH_RUN, handOffTo, requestId));
        });
    }

    /**
     * PUBLISHED to SUCCESS once the target's metrics pass the ledger's judgement; a FAIL fails the run. {@code given}
     * (TARGET metrics, optional) are stored first, in the verdict's transaction, as {@link #stageValidated} does.
     */
    public Verdict success(RunId runId, Long targetCount, String actor, Optional<StepApi.Validations> given) {
        requireStage(given, StepApi.Stage.TARGET);
        return database.inTransaction(tx -> {
            RunRow run = RunTransitions.lock(tx, runId);
            if (run.status() == RunStatus.SUCCESS) {
                return new Verdict(true, run.status(), List.of());
            }
            // A resend after a lost answer gets the verdict again (see stageValidated).
            if (run.status() == RunStatus.FAILED_TARGET_VALIDATION) {
                return new Verdict(false, run.status(), targetFailures(tx, runId,
                        stored(tx, runId, StepApi.Stage.TARGET), targetCount));
            }
            if (run.status() != RunStatus.PUBLISHED) {
                throw mismatch(run, RunStatus.PUBLISHED);
            }
            Outbox.ackOpen(tx, runId, DispatchType.VALIDATE_TARGET, null);
            if (given.isPresent()) {
                insert(tx, runId, given.get());
            }
            List<StepApi.Metric> metrics = stored(tx, runId, StepApi.Stage.TARGET);
            if (metrics.isEmpty()) {
                return new Verdict(false, run.status(), List.of("NO_METRICS"));
            }
            List<String> reasons = targetFailures(tx, runId, metrics, targetCount);
            if (!reasons.isEmpty()) {
                RunTransitions.transition(tx, runId, RunStatus.PUBLISHED, RunStatus.FAILED_TARGET_VALIDATION,
                        new RunTransitions.Failure("TARGET_VALIDATION", "TARGET_VALIDATION_FAILED",
                                String.join("; ", reasons)), actor);
                return new Verdict(false, RunStatus.FAILED_TARGET_VALIDATION, reasons);
            }
            if (targetCount != null) {
                tx.update(SET_TARGET_COUNT, targetCount, runId);
            }
            // In the same transaction as the SUCCESS: a key is never loaded without its directories recorded.
            Watermarks.recordSuccess(tx, run);
            RunTransitions.transition(tx, runId, RunStatus.PUBLISHED, RunStatus.SUCCESS, actor);
            return new Verdict(true, RunStatus.SUCCESS, List.of());
        });
    }

    public List<StepApi.ValidationView> list(RunId runId, StepApi.Stage stage) {
        String s = stage == null ? null : stage.name();
        return database.inTransaction(tx -> {
            RunTransitions.read(tx, runId).orElseThrow(() -> RunTransitions.notFound(runId));
            return tx.query(METRICS, rs -> {
                StepApi.Metric m = metric(rs);
                return new StepApi.ValidationView(StepApi.Stage.valueOf(rs.getString("stage")), m.metricName(),
                        rs.getString("query_version"), m.expectedValue(), m.actualValue(), m.tolerance(),
                        m.result(), Judge.judge(m), m.details(), Tx.instant(rs, "created_at"));
            }, runId, s, s);
        });
    }

    private static List<StepApi.Metric> stored(Tx tx, RunId runId, StepApi.Stage stage) throws SQLException {
        return tx.query(METRICS, Validations::metric, runId, stage.name(), stage.name());
    }

    @SuppressWarnings("unchecked")
    private static StepApi.Metric metric(ResultSet rs) throws SQLException {
        return new StepApi.Metric(rs.getString("metric_name"), rs.getString("expected_value"), rs.getString("actual_value"),
                rs.getString("tolerance"), StepApi.MetricResult.valueOf(rs.getString("result")),
                LedgerJson.MAPPER.convertValue(LedgerJson.read(rs.getString("details")), Map.class));
    }

    private static List<String> failures(List<StepApi.Metric> metrics) {
        List<String> reasons = new ArrayList<>();
        for (StepApi.Metric m : metrics) {
            if (Judge.judge(m) == StepApi.MetricResult.FAIL) {
                reasons.add("FAIL " + m.metricName());
            }
        }
        return reasons;
    }

    private static List<String> targetFailures(Tx tx, RunId runId, List<StepApi.Metric> metrics, Long targetCount)
            throws SQLException {
        List<String> reasons = new ArrayList<>(failures(metrics));
        Long stagingCount = tx.queryOne(RUN_FACTS, rs -> Tx.nullableLong(rs, "staging_count"), runId).orElse(null);
        if (targetCount != null && stagingCount != null && !targetCount.equals(stagingCount)) {
            reasons.add("TARGET_COUNT_MISMATCH target " + targetCount + " staged " + stagingCount);
        }
        return reasons;
    }

    private static void requireStage(Optional<StepApi.Validations> given, StepApi.Stage stage) {
        if (given.isPresent() && given.get().stage() != stage) {
            throw new IllegalArgumentException("this verdict takes " + stage + " metrics, not "
                    + given.get().stage());
        }
    }

    private static Optional<Long> count(List<StepApi.Metric> metrics, String name) {
        return metrics.stream().filter(m -> m.metricName().equals(name)).map(m -> Judge.decimal(m.actualValue()))
                .filter(v -> v != null).map(BigDecimal::longValueExact).findFirst();
    }

    static LedgerException.Conflict mismatch(RunRow run, RunStatus required) {
        return new LedgerException.Conflict(ErrorCode.RUN_STATUS_MISMATCH, "run " + run.runId() + " is " + run.status()
                + ", not " + required, Map.of("runStatus", run.status().name()));
    }
}

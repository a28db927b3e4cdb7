package io.loadgate.ledger.run;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.DispatchType;
import io.loadgate.api.ErrorCode;
import io.loadgate.api.PartitionStatus;
import io.loadgate.api.RunApi;
import io.loadgate.api.RunId;
import io.loadgate.api.RunStatus;
import io.loadgate.ledger.LedgerException;
import io.loadgate.ledger.LedgerJson;
import io.loadgate.ledger.LedgerSettings;
import io.loadgate.ledger.db.Database;
import io.loadgate.ledger.db.SqlLists;
import io.loadgate.ledger.db.Tx;
import io.loadgate.ledger.dispatch.Dispatches;
import io.loadgate.ledger.dispatch.Outbox;
import io.loadgate.ledger.event.EventLog;
import io.loadgate.ledger.partition.Partitions;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/** Run-level decisions: create, register the manifest, fail, cancel. */
public final class Runs {
    // The key's latest run, by the order GET /v1/runs lists a key's runs in (newest first).
    private static final String LATEST_RUN = """
            SELECT run_id FROM load_run WHERE job_key = ? AND business_key = ?
             ORDER BY started_at DESC, run_id LIMIT 1
            """;
    // The create's precondition (the caller's afterRun, when it sends one) is in the WHERE clause of the insert
    // itself: the key's latest run is still the one the caller planned after, or it has none.
    private static final String INSERT = """
            INSERT INTO load_run (run_id, job_key, business_key, status, executor, hdfs_root, hdfs_run_path,
                                  stage_table, allow_empty_source, parameters, created_by, recovery_mode, create_key,
                                  create_after, create_after_run)
            SELECT ?::uuid, ?::text, ?::text, 'CREATED', ?::text, ?::text, ?::text, ?::text, ?::boolean, ?::jsonb,
                   ?::text, ?::text, ?::text, ?::boolean, ?::uuid
             WHERE NOT ?::boolean OR (%s) IS NOT DISTINCT FROM ?::uuid
            ON CONFLICT (job_key, business_key) WHERE status IN (%s) DO NOTHING
            """.formatted(LATEST_RUN.strip(), SqlLists.quoted(RunStatus.ACTIVE));
    // Creates of one key take turns (a transaction-level lock on the key, released at commit), so that the insert's
    // snapshot holds every earlier create of the key: without it a run created just after that snapshot, and ended
    // before the insert reached the index of active runs, would be neither seen by the precondition nor met by the
    // index. Two int keys, "LGcr" in ASCII and the key's hash: a space apart from the sweeper's one bigint key; two
    // keys of one hash merely take turns.
    private static final String LOCK_KEY = "SELECT pg_advisory_xact_lock(x'4c476372'::int, hashtext(?::text || '/' || ?::text))";
    private static final String ACTIVE_RUN = """
            SELECT run_id FROM load_run
             WHERE job_key = ? AND business_key = ?
               AND status IN (%s)
            """.formatted(SqlLists.quoted(RunStatus.ACTIVE));
    // The run an earlier create with the same key made, and whether it was made from the same request: its stage
    // table is the prefix followed by its own id; its afterRun, the create's precondition, is part of the request.
    private static final String KEYED_CREATE = """
            SELECT run_id, status, hdfs_run_path, stage_table,
                   job_key = ? AND business_key = ? AND hdfs_root = ?
                   AND stage_table = ? || replace(run_id::text, '-', '') AND allow_empty_source = ?
                   AND parameters = ?::jsonb AND executor = ? AND recovery_mode IS NOT DISTINCT FROM ?::text
                   AND create_after = ?::boolean AND create_after_run IS NOT DISTINCT FROM ?::uuid AS same
              FROM load_run
             WHERE created_by = ? AND create_key = ?
            """;
    // jsonb equality ignores key order and number representation, which a resend may change.
    private static final String SAME_MANIFEST = """
            SELECT manifest_response FROM load_run
             WHERE run_id = ? AND manifest_response IS NOT NULL AND manifest = ?
            """;
    // The status moves through RunTransitions first; this records the manifest's numbers on the locked run.
    private static final String RECORD_MANIFEST = """
            UPDATE load_run
               SET heartbeat_at = now(),
                   snapshot_scn = ?, snapshot_ref = ?, source_count = ?, source_null_split_count = ?,
                   source_min_split = ?, source_max_split = ?, planned_partition_count = ?, source_metrics = ?,
                   source_metrics_version = ?, manifest = ?, manifest_response = ?, expected_partition_count = ?,
                   extract_completed_at = CASE WHEN ? THEN now() END
             WHERE run_id = ?
            """;
    // Only a Spark run's driver beats the run, and only while its tasks extract: a worker run's heartbeat stays its
    // partition owners', which the monitor reads as the run's progress.
    private static final String DRIVER_HEARTBEAT = """
            UPDATE load_run SET heartbeat_at = now()
             WHERE run_id = ? AND executor = 'spark' AND status = 'EXTRACTING'
            """;
    private static final String STORE_FAILED_MANIFEST = "UPDATE load_run SET manifest = ? WHERE run_id = ?";
    private static final String INSERT_PARTITION = """
            INSERT INTO load_partition (run_id, partition_id, status, lower_bound, upper_bound, upper_inclusive,
                                        is_null_partition, expected_row_count, source_ref, spec, completed_at,
                                        actual_row_count)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, CASE WHEN ? THEN now() END, ?)
            """;

    private final Database database;
    private final LedgerSettings settings;

    public Runs(Database database, LedgerSettings settings) {
        this.database = requireNonNull(database, "database is null");
        this.settings = requireNonNull(settings, "settings is null");
    }

    /** {@code replayed}: an earlier create with the same key made this run, and this is its answer again. */
    public record Created(RunApi.RunCreated run, boolean replayed) {
        public Created {
            requireNonNull(run, "run is null");
        }
    }

    /**
     * @param createKey the caller's Idempotency-Key, or null: the same key from the same {@code actor} returns the
     *     run the first create made
     */
    public Created create(RunApi.CreateRun request, String actor, String createKey) {
        StagePath root = StagePath.parse(request.hdfsRoot(), ErrorCode.INVALID_HDFS_ROOT);
        if (settings.allowedRoots().stream().noneMatch(allowed -> allowed.contains(root))) {
            throw new LedgerException.Invalid(ErrorCode.INVALID_HDFS_ROOT, "hdfsRoot " + root
                    + " is not under an allowed root " + settings.allowedRoots());
        }
        RunId runId = new RunId(UUID.randomUUID());
        String runPath = root.resolve(request.jobKey().value(), "run_id=" + runId).toString();
        String stageTable = request.stageTablePrefix() + runId.hex();
        return database.inTransaction(tx -> {
            Optional<Created> earlier = keyedCreate(tx, request, root, actor, createKey);
            if (earlier.isPresent()) {
                return earlier.get();
            }
            tx.queryOne(LOCK_KEY, rs -> true, request.jobKey(), request.businessKey());
            RunId after = request.afterRun() == null ? null : request.afterRun().runId();
            int inserted = tx.update(INSERT, runId, request.jobKey(), request.businessKey(),
                    request.executor().wireName(), root.toString(), runPath, stageTable, request.allowEmptySource(),
                    LedgerJson.jsonb(request.parameters()), actor, request.recoveryMode(), createKey,
                    request.afterRun() != null, after, request.afterRun() != null, request.jobKey(),
                    request.businessKey(), after);
            if (inserted == 0) {
                // A copy of this very request may have committed the active run while this one waited on the index.
                earlier = keyedCreate(tx, request, root, actor, createKey);
                if (earlier.isPresent()) {
                    return earlier.get();
                }
                Optional<UUID> active = tx.queryOne(ACTIVE_RUN, rs -> rs.getObject(1, UUID.class),
                        request.jobKey(), request.businessKey());
                if (active.isEmpty() && request.afterRun() != null) {
                    Optional<RunId> latest = tx.queryOne(LATEST_RUN, rs -> Tx.runId(rs, 1), request.jobKey(),
                            request.businessKey());
                    if (!latest.equals(Optional.ofNullable(after))) {
                        throw new LedgerException.Conflict(ErrorCode.STALE_PLAN, "job " + request.jobKey()
                                + " business key " + request.businessKey() + ": the create was planned after "
                                + (after == null ? "no run" : "run " + after) + ", and the key's latest run is now "
                                + latest.map(RunId::toString).orElse("none") + "; plan again",
                                latest.<Map<String, Object>>map(id -> Map.of("latestRunId", id.toString()))
                                        .orElse(Map.of()));
                    }
                }
                throw new LedgerException.Conflict(ErrorCode.DUPLICATE_ACTIVE_RUN, "job " + request.jobKey()
                        + " already has an active run for business key " + request.businessKey(),
                        active.<Map<String, Object>>map(id -> Map.of("activeRunId", id.toString())).orElse(Map.of()));
            }
            EventLog.append(tx, runId, null, "RUN_STATUS", null, RunStatus.CREATED, actor,
                    Map.of("jobKey", request.jobKey(), "businessKey", request.businessKey(),
                            "executor", request.executor().wireName()));
            return new Created(new RunApi.RunCreated(runId, RunStatus.CREATED, runPath, stageTable), false);
        });
    }

    /**
     * The run an earlier create with the request's key made, as it is now; refuses the key when that create asked
     * for something else, since answering with its run would hand the caller a run it did not ask for.
     */
    private static Optional<Created> keyedCreate(Tx tx, RunApi.CreateRun request, StagePath root, String actor,
                                                 String createKey) throws SQLException {
        if (createKey == null) {
            return Optional.empty();
        }
        record Keyed(Created run, boolean same) {
        }
        Optional<Keyed> keyed = tx.queryOne(KEYED_CREATE, rs -> new Keyed(new Created(new RunApi.RunCreated(
                        Tx.runId(rs, 1), RunStatus.valueOf(rs.getString(2)), rs.getString(3),
                        rs.getString(4)), true), rs.getBoolean(5)),
                request.jobKey(), request.businessKey(), root.toString(), request.stageTablePrefix(),
                request.allowEmptySource(), LedgerJson.jsonb(request.parameters()), request.executor().wireName(),
                request.recoveryMode(), request.afterRun() != null,
                request.afterRun() == null ? null : request.afterRun().runId(), actor, createKey);
        if (keyed.isPresent() && !keyed.get().same()) {
            RunId earlierRun = keyed.get().run().run().runId();
            throw new LedgerException.Invalid(ErrorCode.IDEMPOTENCY_KEY_REUSED, "Idempotency-Key " + createKey
                    + " was already used for a different create request (run " + earlierRun
                    + "); send a new key for a new request", Map.of("runId", earlierRun.toString()));
        }
        return keyed.map(Keyed::run);
    }

    /**
     * Registers the manifest. Every invariant is checked; a manifest that breaks any of them fails the run
     * (committed) and is then reported as 422 MANIFEST_INVALID with every violation.
     */
    public Map<String, Object> registerManifest(RunId runId, Manifest manifest, String actor) {
        Map<String, Object> canonical = manifest.toWire();
        ManifestOutcome outcome = database.inTransaction(tx -> {
            RunRow run = RunTransitions.lock(tx, runId);
            if (run.status() != RunStatus.CREATED) {
                return resend(tx, run, canonical);
            }
            List<ManifestViolation> violations = ManifestValidator.validate(manifest, run.allowEmptySource());
            if (!violations.isEmpty()) {
                tx.update(STORE_FAILED_MANIFEST, LedgerJson.jsonb(canonical), runId);
                RunTransitions.transition(tx, runId, RunStatus.CREATED, RunStatus.FAILED_MANIFEST,
                        new RunTransitions.Failure("MANIFEST", "MANIFEST_INVALID", describe(violations)), actor);
                return new ManifestOutcome(null, violations);
            }
            return new ManifestOutcome(accept(tx, run, manifest, canonical, actor), List.of());
        });
        if (!outcome.violations().isEmpty()) {
            throw new LedgerException.Invalid(ErrorCode.MANIFEST_INVALID, "the manifest violates "
                    + outcome.violations().size() + " invariant(s); the run is FAILED_MANIFEST",
                    Map.of("violations", outcome.violations().stream().map(ManifestViolation::toWire).toList(),
                            "runStatus", RunStatus.FAILED_MANIFEST.name()));
        }
        return outcome.response();
    }

    /** The violations themselves, for the run's error message: a count alone sends the operator to the events. */
    static String describe(List<ManifestViolation> violations) {
        String all = violations.stream().map(v -> v.code() + (v.partitionId() == null ? "" : " (" + v.partitionId()
                + ")") + ": " + v.message()).collect(java.util.stream.Collectors.joining("; "));
        // A plan of thousands of partitions can break one invariant in each; the response lists them all.
        return all.length() <= 1000 ? all : all.substring(0, 1000) + "... (" + violations.size() + " violations)";
    }

    private record ManifestOutcome(Map<String, Object> response, List<ManifestViolation> violations) {
    }

    private ManifestOutcome resend(Tx tx, RunRow run, Map<String, Object> canonical) throws SQLException {
        Optional<String> stored = tx.queryOne(SAME_MANIFEST, rs -> rs.getString(1), run.runId(),
                LedgerJson.jsonb(canonical));
        if (stored.isPresent()) {
            @SuppressWarnings("unchecked")
            Map<String, Object> response = LedgerJson.MAPPER.convertValue(LedgerJson.read(stored.get()), Map.class);
            return new ManifestOutcome(response, List.of());
        }
        throw new LedgerException.Conflict(ErrorCode.RUN_STATUS_MISMATCH, "run " + run.runId() + " is " + run.status()
                + " and already has a different manifest", Map.of("runStatus", run.status().name()));
    }

    private Map<String, Object> accept(Tx tx, RunRow run, Manifest manifest, Map<String, Object> canonical,
                                       String actor) throws SQLException {
        List<Manifest.Partition> dispatchPartitions = new ArrayList<>();
        int emptyPartitions = 0;
        for (Manifest.Partition p : manifest.partitions()) {
            boolean empty = p.expectedRowCount() == 0;
            tx.update(INSERT_PARTITION, run.runId(), p.partitionId(),
                    empty ? PartitionStatus.SUCCESS : PartitionStatus.PENDING,
                    decimal(p.lowerBound()), decimal(p.upperBound()), p.upperInclusive(), p.isNullPartition(),
                    p.expectedRowCount(), p.sourceRef(), LedgerJson.jsonb(p.toWire()), empty, empty ? 0L : null);
            if (empty) {
                emptyPartitions++;
            } else {
                dispatchPartitions.add(p);
            }
        }
        boolean allEmpty = dispatchPartitions.isEmpty();
        RunStatus next = allEmpty ? RunStatus.EXTRACTED_VALIDATED : RunStatus.EXTRACTING;
        Map<String, Object> response = new LinkedHashMap<>();
        response.put("runId", run.runId().toString());
        response.put("status", next.name());
        response.put("dispatchPartitions", dispatchPartitions.stream().map(Manifest.Partition::toWire).toList());
        response.put("emptyPartitionCount", emptyPartitions);
        // A manifest whose metrics follow leaves even an empty run's validation to their arrival (SourceMetricsLater).
        response.put("validationScheduled", allEmpty && !manifest.sourceMetricsPending());

        if (!RunTransitions.transition(tx, run.runId(), RunStatus.CREATED, next, null, actor,
                Map.of("partitions", manifest.partitions().size(), "emptyPartitions", emptyPartitions,
                        "sourceCount", manifest.sourceCount()))) {
            throw new IllegalStateException("manifest of locked CREATED run " + run.runId() + " changed no row");
        }
        int updated = tx.update(RECORD_MANIFEST, decimal(manifest.snapshotScn()), manifest.snapshotRef(),
                manifest.sourceCount(), manifest.sourceNullSplitCount(), decimal(manifest.sourceMinSplit()),
                decimal(manifest.sourceMaxSplit()), manifest.plannedPartitionCount(),
                LedgerJson.jsonb(manifest.sourceMetrics()), manifest.sourceMetricsVersion(),
                LedgerJson.jsonb(canonical), LedgerJson.jsonb(response), manifest.partitions().size(), allEmpty,
                run.runId());
        if (updated != 1) {
            throw new IllegalStateException("manifest update of a locked run changed " + updated + " rows");
        }
        for (Manifest.Partition p : dispatchPartitions) {
            Outbox.insert(tx, run.runId(), run.executor(), DispatchType.EXTRACT_PARTITION, p.partitionId(),
                    extractPayload(run.hdfsRunPath(), p.toWire(),
                            manifest.snapshotScn() == null ? null : manifest.snapshotScn().toString(),
                            manifest.snapshotRef()));
        }
        if (manifest.sourceMetricsPending()) {
            tx.update(SourceMetricsLater.AWAIT, run.runId());
        } else if (allEmpty) {
            Outbox.insert(tx, run.runId(), run.executor(), DispatchType.VALIDATE_RUN, null, Map.of());
        }
        return response;
    }

    /**
     * What a worker needs to extract one partition without asking again: the partition and the snapshot. The same
     * for the first dispatch and for a reissue, which reads at the same snapshot.
     */
    public static Map<String, Object> extractPayload(String hdfsRunPath, Object partition, String snapshotScn,
                                                     String snapshotRef) {
        Map<String, Object> payload = new LinkedHashMap<>();
        payload.put("partition", partition);
        payload.put("snapshotScn", snapshotScn);
        payload.put("snapshotRef", snapshotRef);
        payload.put("hdfsRunPath", hdfsRunPath);
        return payload;
    }

    private static java.math.BigDecimal decimal(java.math.BigInteger value) {
        return value == null ? null : new java.math.BigDecimal(value);
    }

    /**
     * A Spark run's driver is alive (extension): its partitions are its own tasks', which no worker would take up, so
     * the sweeper ends a Spark run that nothing of (neither its driver nor a partition's owner) has beaten for
     * {@code stale}. {@code beating=false}, changing nothing, for any other run or once extraction is over.
     */
    public RunApi.RunBeat heartbeat(RunId runId) {
        return database.inTransaction(tx -> {
            boolean beating = tx.update(DRIVER_HEARTBEAT, runId) == 1;
            RunRow run = RunTransitions.read(tx, runId).orElseThrow(() -> RunTransitions.notFound(runId));
            return new RunApi.RunBeat(runId, run.status(), beating, settings.heartbeatInterval().toMillis());
        });
    }

    private static final Map<RunStatus, Set<RunStatus>> ALLOWED_FAILS = Map.of(
            RunStatus.CREATED, Set.of(RunStatus.FAILED_MANIFEST),
            // FAILED_SNAPSHOT_EXPIRED (an extension): the submitter holding the source's snapshot saw it end.
            RunStatus.EXTRACTING, Set.of(RunStatus.FAILED_EXTRACT, RunStatus.FAILED_SNAPSHOT_EXPIRED),
            RunStatus.STAGE_VALIDATING, Set.of(RunStatus.FAILED_STAGE_VALIDATION),
            RunStatus.STAGING_VALIDATED, Set.of(RunStatus.FAILED_PUBLISH),
            RunStatus.PUBLISHED, Set.of(RunStatus.FAILED_TARGET_VALIDATION));

    /**
     * Extension: a run whose extraction ended while its source metrics were still awaited may fail from
     * EXTRACTED_VALIDATED as from EXTRACTING (checked on the locked run); its submitter's measuring failed, and no
     * validation can be judged.
     */
    private static boolean awaitingMetricsFail(RunApi.FailRun request) {
        return request.expectedStatus() == RunStatus.EXTRACTED_VALIDATED
                && request.failStatus() == RunStatus.FAILED_EXTRACT;
    }

    public RunApi.RunChange fail(RunId runId, RunApi.FailRun request, String actor) {
        if (!ALLOWED_FAILS.getOrDefault(request.expectedStatus(), Set.of()).contains(request.failStatus())
                && !awaitingMetricsFail(request)) {
            throw notAllowed(request);
        }
        return database.inTransaction(tx -> {
            RunRow run = RunTransitions.lock(tx, runId);
            if (awaitingMetricsFail(request) && !run.sourceMetricsPending() && run.status() != request.failStatus()) {
                throw notAllowed(request);
            }
            boolean changed;
            if (run.status() == request.failStatus()) {
                changed = false;
            } else if (run.status() != request.expectedStatus()) {
                throw new LedgerException.Conflict(ErrorCode.RUN_STATUS_MISMATCH, "run " + runId + " is " + run.status()
                        + ", not " + request.expectedStatus(), Map.of("runStatus", run.status().name()));
            } else {
                changed = RunTransitions.transition(tx, runId, request.expectedStatus(), request.failStatus(),
                        new RunTransitions.Failure(request.errorStage(), request.errorCode(), request.message()),
                        actor);
                if (changed && (request.failStatus() == RunStatus.FAILED_SNAPSHOT_EXPIRED
                        || run.sourceMetricsPending())) {
                    // No partition can be read any more (or none is worth reading: the run cannot be validated);
                    // their workers stop at their next heartbeat instead of reading on for a run that has ended.
                    Partitions.endUnfinished(tx, runId, PartitionStatus.FAILED, "EXTRACT", request.errorCode(),
                            request.message(), actor);
                }
            }
            return new RunApi.RunChange(runId, request.failStatus(), changed);
        });
    }

    private static LedgerException.Invalid notAllowed(RunApi.FailRun request) {
        return new LedgerException.Invalid(ErrorCode.FAIL_TRANSITION_NOT_ALLOWED, request.expectedStatus() + " -> "
                + request.failStatus() + " is not an allowed failure transition");
    }

    /** {@code PUT /v1/runs/{runId}/source-metrics} (extension): see {@link SourceMetricsLater}. */
    public RunApi.SourceMetricsAccepted recordSourceMetrics(RunId runId, RunApi.SourceMetrics metrics, String actor) {
        requireNonNull(metrics, "metrics is null");
        return database.inTransaction(tx -> SourceMetricsLater.record(tx, RunTransitions.lock(tx, runId), metrics,
                actor));
    }

    public static final String CANCELLED_CODE = "RUN_CANCELLED";

    /**
     * An operator stops an active run before it publishes: the run becomes CANCELLED and, in the same transaction,
     * its unfinished partitions FAILED ({@value #CANCELLED_CODE}) and its open dispatches DEAD, so no worker takes a
     * step of it up again. A run already CANCELLED answers {@code changed=false}: the operator's command may repeat
     * the call after a lost answer.
     *
     * @throws LedgerException.Conflict {@code RUN_STATUS_MISMATCH} when the run is publishing, published or its
     *     publish outcome is unknown (the target may hold its rows), or when it has ended otherwise
     */
    public RunApi.RunChange cancel(RunId runId, String reason, String actor) {
        requireNonNull(reason, "reason is null");
        return database.inTransaction(tx -> {
            RunRow run = RunTransitions.lock(tx, runId);
            if (run.status() == RunStatus.CANCELLED) {
                return new RunApi.RunChange(runId, RunStatus.CANCELLED, false);
            }
            String stage = cancelledStage(run);
            String message = "cancelled by an operator: " + reason;
            // The row is locked, so the compare-and-set cannot lose; its WHERE clause still states the precondition.
            if (!RunTransitions.transition(tx, runId, run.status(), RunStatus.CANCELLED,
                    new RunTransitions.Failure(stage, CANCELLED_CODE, message), actor, Map.of("reason", reason))) {
                throw new IllegalStateException("cancel of locked run " + runId + " changed no row");
            }
            Partitions.endUnfinished(tx, runId, PartitionStatus.FAILED, stage, CANCELLED_CODE, message, actor);
            Dispatches.retireOpenOfRun(tx, runId, actor);
            return new RunApi.RunChange(runId, RunStatus.CANCELLED, true);
        });
    }

    /** The stage a cancel stops, for the run's error; refuses a run that may no longer be cancelled. */
    private static String cancelledStage(RunRow run) {
        return switch (run.status()) {
            case CREATED -> "MANIFEST";
            case EXTRACTING -> "EXTRACT";
            case EXTRACTED_VALIDATED, STAGE_VALIDATING -> "STAGE_VALIDATION";
            case STAGING_VALIDATED -> "PUBLISH";
            // Once a publish is claimed its commit may land in the target at any moment, and a landed commit is
            // not undone by the ledger: CANCELLED would then claim rows are absent that are present.
            case PUBLISHING, PUBLISHED, PUBLISH_UNKNOWN -> throw new LedgerException.Conflict(
                    ErrorCode.RUN_STATUS_MISMATCH,
                    "run " + run.runId() + " is " + run.status() + " and cannot be cancelled: a publish may have "
                            + "landed in the target; wait for it to finish, or resolve a PUBLISH_UNKNOWN run",
                    Map.of("runStatus", run.status().name()));
            case SUCCESS, FAILED_MANIFEST, FAILED_EXTRACT, FAILED_SNAPSHOT_EXPIRED, FAILED_STAGE_VALIDATION,
                    FAILED_PUBLISH, FAILED_TARGET_VALIDATION, TIMED_OUT, CANCELLED ->
                    throw new LedgerException.Conflict(ErrorCode.RUN_STATUS_MISMATCH,
                            "run " + run.runId() + " has already "
                            + "ended as " + run.status() + "; there is nothing to cancel",
                            Map.of("runStatus", run.status().name()));
        };
    }
}

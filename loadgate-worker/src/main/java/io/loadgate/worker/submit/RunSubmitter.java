package io.loadgate.worker.submit;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.BusinessKey;
import io.loadgate.api.ErrorCode;
import io.loadgate.api.Executor;
import io.loadgate.api.JobKey;
import io.loadgate.api.PartitionId;
import io.loadgate.api.RunApi.AfterRun;
import io.loadgate.api.RunApi.CreateRun;
import io.loadgate.api.RunApi.CreatedRun;
import io.loadgate.api.RunApi.FailRun;
import io.loadgate.api.RunApi.Manifest;
import io.loadgate.api.RunApi.ManifestAccepted;
import io.loadgate.api.RunApi.ManifestPartition;
import io.loadgate.api.RunApi.OnLostResponse;
import io.loadgate.api.RunApi.SourceMetrics;
import io.loadgate.api.RunId;
import io.loadgate.api.RunStatus;
import io.loadgate.worker.execution.RunContext;
import io.loadgate.worker.execution.SourceCache;
import io.loadgate.worker.job.BusinessKeyFormat;
import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.job.JobSpecException;
import io.loadgate.worker.ledger.LedgerCallException;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.ledger.Messages;
import io.loadgate.worker.publish.TargetTable;
import io.loadgate.worker.source.Partition;
import io.loadgate.worker.source.SnapshotHolder;
import io.loadgate.worker.source.Source;
import io.loadgate.worker.source.SourceColumn;
import io.loadgate.worker.job.SourceMetricsTiming;
import io.loadgate.worker.source.SourcePlan;
import io.loadgate.worker.staging.SourceSchemas;
import io.loadgate.worker.transform.TransformChain;
import io.loadgate.worker.validation.MetricSet;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts a run: opens the source's snapshot, plans the partitions inside it, creates the run and registers the
 * manifest. The snapshot stays open in the returned {@link Submission} until the caller closes it, which must not
 * happen before extraction has ended: PostgreSQL forgets an exported snapshot with the transaction that made it.
 *
 * <p>The job's {@code source.metrics} says when the source measures the job's source metrics
 * ({@link SourceMetricsTiming}). Measured during extraction, they are measured after the manifest, at the same
 * snapshot, on a thread of its own while the partitions extract; the manifest says they are pending, and the ledger
 * schedules the staging validation only once they are in (docs/validation.md). When measuring them fails, that
 * thread fails the run at once ({@value #METRICS_FAILED}); when this process dies before sending them, the ledger's
 * sweeper fails it after {@code recovery.manifest_timeout}.
 */
public final class RunSubmitter {
    private static final Logger LOG = LoggerFactory.getLogger(RunSubmitter.class);
    static final String METRICS_VERSION = "loadgate-1";
    static final String STAGE_TABLE_PREFIX = "stg_";
    /** The error code of a run whose source metrics, measured after its manifest, could not be measured. */
    public static final String METRICS_FAILED = "SOURCE_METRICS_FAILED";

    private final LedgerClient ledger;
    private final SourceCache sources;
    private final Map<String, String> environment;
    private final Optional<TargetChecks> targets;

    /** A submitter that checks the job's target before each run (see {@link TargetChecks}). */
    public RunSubmitter(LedgerClient ledger, SourceCache sources, Map<String, String> environment,
                        TargetChecks targets) {
        this(ledger, sources, environment, Optional.of(requireNonNull(targets, "targets is null")));
    }

    /** A submitter that leaves the target to the publish (a harness whose target is a fault-injecting fake). */
    public RunSubmitter(LedgerClient ledger, SourceCache sources, Map<String, String> environment) {
        this(ledger, sources, environment, Optional.empty());
    }

    private RunSubmitter(LedgerClient ledger, SourceCache sources, Map<String, String> environment,
                         Optional<TargetChecks> targets) {
        this.ledger = requireNonNull(ledger, "ledger is null");
        this.sources = requireNonNull(sources, "sources is null");
        this.environment = Map.copyOf(environment);
        this.targets = targets;
    }

    /**
     * A submitted run and the snapshot its partitions read; {@code businessKey} is the key as the ledger recorded it
     * (its canonical form, see {@link BusinessKeyFormat}); {@code addedColumns} are the columns the target check
     * added to the table for it ({@code target.schema: add_columns}); {@code sourceMetrics} ends when the source's
     * metrics are in the ledger, or the run was failed for them (done at once when the manifest carried them).
     */
    public record Submission(RunId runId, String businessKey, SnapshotHolder snapshot, SourcePlan plan,
                             ManifestAccepted manifest, List<String> addedColumns, Future<?> sourceMetrics)
            implements AutoCloseable {
        public Submission {
            addedColumns = List.copyOf(addedColumns);
            requireNonNull(sourceMetrics, "sourceMetrics is null");
        }

        /** Ends the snapshot, once the source's metrics, which read at it, are measured. */
        @Override
        public void close() {
            try {
                sourceMetrics.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException e) {
                // Reported by the measuring thread itself (it failed the run, or left it to the sweeper).
            } finally {
                snapshot.close();
            }
        }
    }

    /**
     * @param jobYaml the job file's text; the run carries it so that workers on any host read the same job
     * @param businessKey the key in any form {@link BusinessKeyFormat} accepts for the job's business-key column; the
     *     run records its canonical form
     * @throws JobSpecException when the key is not a value of the business-key column's type (no run exists then)
     * @throws LedgerCallException 409 DUPLICATE_ACTIVE_RUN when the job already has an active run for the key
     * @throws TargetCheckException when the target cannot take the run; no run was created
     */
    public Submission submit(JobSpec job, String jobYaml, String businessKey) {
        return submit(job, jobYaml, businessKey, Executor.WORKER, plan -> null, null);
    }

    /**
     * {@link #submit(JobSpec, String, String)} for another executor than Loadgate's workers: {@link Executor#SPARK},
     * whose partitions the caller runs itself (the ledger dispatches none of them).
     */
    public Submission submit(JobSpec job, String jobYaml, String businessKey, Executor executor) {
        return submit(job, jobYaml, businessKey, requireNonNull(executor, "executor is null"), plan -> null, null);
    }

    /**
     * {@link #submit(JobSpec, String, String)}, at most once per snapshot after {@code previousRun} (the key's latest
     * run the caller saw, or null for none): the create's Idempotency-Key is derived from the job, the key, the plan's
     * snapshotRef and {@code previousRun}, so that a second caller that planned the same snapshot after the same run
     * gets the first caller's run back (as it is now, even ended) instead of a second run of the same data. It is a
     * compare-and-set on the key's history: a caller that saw a later run, or another snapshot, makes its own run.
     * The ledger checks it too (the create's {@code afterRun}): once another run of the key was created since
     * {@code previousRun}, a create of another snapshot is refused, so that an older plan never runs after a newer.
     *
     * @throws LedgerCallException 409 STALE_PLAN when the key's latest run is not {@code previousRun} any more: plan
     *     again
     */
    public Submission submitOncePerSnapshot(JobSpec job, String jobYaml, String businessKey, RunId previousRun) {
        return submit(job, jobYaml, businessKey, Executor.WORKER,
                plan -> onceKey(job.jobKey(), businessKey, plan.snapshotRef(), previousRun), new AfterRun(previousRun));
    }

    static String onceKey(String jobKey, String businessKey, String snapshotRef, RunId previousRun) {
        try {
            java.security.MessageDigest digest = java.security.MessageDigest.getInstance("SHA-256");
            digest.update((jobKey + "\u0000" + businessKey + "\u0000" + snapshotRef + "\u0000" + previousRun)
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return "once-" + java.util.HexFormat.of().formatHex(digest.digest());
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /** @param after the create's precondition on the key's history, or null for none */
    private Submission submit(JobSpec job, String jobYaml, String businessKey, Executor executor,
                              java.util.function.Function<SourcePlan, String> createKey, AfterRun after) {
        Source source = sources.newSource(job);
        businessKey = source.canonicalKey(businessKey);
        SnapshotHolder snapshot = source.openSnapshot(businessKey, job.source().metrics());
        try {
            SourcePlan plan = snapshot.plan();
            // The snapshot's filter casts the key as the source does; what the ledger records and the publisher
            // parses must be the one canonical form, checked before the run exists.
            String key = canonicalKey(job, plan.columns(), businessKey);
            checkTransforms(job, plan, environment);
            // After the plan, so exactly the columns the chunks will hold are checked; before the run, so a target
            // that cannot take them stops the load before any work.
            List<String> added = targets.map(t -> t.check(job, SourceSchemas.toIceberg(plan.columns())))
                    .orElse(List.of());
            CreateRun request = CreateRun.forWorkers(JobKey.of(job.jobKey()), BusinessKey.of(key), job.staging().root().toString(),
                            STAGE_TABLE_PREFIX)
                    .withExecutor(executor)
                    .withParameters(Map.of(RunContext.JOB_SPEC_PARAMETER, jobYaml))
                    .withRecoveryMode(job.recovery().mode() == null ? null : job.recovery().mode().name());
            if (job.source().allowEmpty()) {
                request = request.allowingEmptySource();
            }
            if (after != null) {
                request = request.afterRun(after.runId());
            }
            CreatedRun created = ledger.createRun(request, OnLostResponse.ADOPT_ACTIVE_RUN, createKey.apply(plan));
            sources.register(created.runId(), source);
            ManifestAccepted accepted = ledger.registerManifest(created.runId(), manifest(plan));
            Future<?> metrics = plan.sourceMetrics().isPresent() ? CompletableFuture.completedFuture(null)
                    : measureLater(created.runId(), snapshot);
            return new Submission(created.runId(), key, snapshot, plan, accepted, added, metrics);
        } catch (RuntimeException e) {
            snapshot.close();
            throw e;
        }
    }

    /**
     * The canonical form of {@code businessKey} for the job's business-key column among the source's {@code columns},
     * and, for an Iceberg target, one its publisher can parse (an Iceberg partition cannot hold a timestamp key); for a
     * Hive target, one its partitioning takes.
     *
     * @throws JobSpecException when it is neither
     */
    public static String canonicalKey(JobSpec job, List<SourceColumn> columns, String businessKey) {
        Schema schema = SourceSchemas.toIceberg(columns);
        String column = job.target().businessKeyColumn();
        String key = BusinessKeyFormat.canonical(schema, column, businessKey);
        if (job.target().isHive()) {
            job.target().hive().partitioning().values(key);
        } else if (!job.target().isWarehouse()) {
            try {
                new TargetTable(TableIdentifier.parse(job.target().table()), schema, column).businessKeyFilter(key);
            } catch (IllegalArgumentException e) {
                throw new JobSpecException("business key '" + businessKey + "' cannot partition Iceberg table "
                        + job.target().table() + " by " + column + " (" + schema.findType(column) + ")", e);
            }
        }
        return key;
    }

    /** A transform that cannot apply to the source's columns is refused before a run exists, not per partition. */
    private static void checkTransforms(JobSpec job, SourcePlan plan, Map<String, String> environment) {
        try {
            TransformChain.bind(job, SourceSchemas.toIceberg(plan.columns()), environment);
        } catch (IllegalArgumentException e) {
            throw new JobSpecException(e.getMessage(), e);
        }
    }

    /**
     * Measures the source's metrics at the run's snapshot on a thread of its own, while the partitions extract, and
     * sends them; a failure to measure fails the run at once, since no validation could be judged without them.
     */
    private Future<?> measureLater(RunId runId, SnapshotHolder snapshot) {
        FutureTask<Void> task = new FutureTask<>(() -> {
            MetricSet metrics;
            try {
                metrics = snapshot.sourceMetrics();
            } catch (RuntimeException e) {
                failForMetrics(runId, snapshot, e);
                throw e;
            }
            try {
                ledger.recordSourceMetrics(runId, new SourceMetrics(metrics.values(), METRICS_VERSION));
            } catch (LedgerCallException e) {
                // RUN_STATUS_MISMATCH: the run ended meanwhile (a partition failed it, an operator cancelled it);
                // a ledger that stayed unreachable through the client's retries times the run out itself.
                LOG.warn("run {}: the source metrics were not recorded: {}", runId, e.getMessage());
                throw e;
            }
            return null;
        });
        Thread thread = new Thread(task, "loadgate-source-metrics-" + runId);
        thread.setDaemon(true);
        thread.start();
        return task;
    }

    /**
     * Fails the run from whichever state before validation it is in: extraction may have ended meanwhile. A snapshot
     * that died under the measuring is said as such while the run extracts, as the follower says it
     * (FAILED_SNAPSHOT_EXPIRED): the loss is the cause, and the run's partitions cannot be read either.
     */
    private void failForMetrics(RunId runId, SnapshotHolder snapshot, RuntimeException failure) {
        String message = Messages.fit("the source metrics could not be measured at the run's snapshot: "
                + failure.getMessage());
        LOG.warn("run {}: {}", runId, message);
        if (!snapshot.isAlive()) {
            try {
                ledger.failRun(runId, new FailRun(RunStatus.EXTRACTING, RunStatus.FAILED_SNAPSHOT_EXPIRED, "EXTRACT",
                        RunFollower.SNAPSHOT_LOST, message));
                return;
            } catch (LedgerCallException e) {
                if (!e.is(ErrorCode.RUN_STATUS_MISMATCH)) {
                    LOG.warn("run {}: failing it was refused: {}", runId, e.getMessage());
                    return;
                }
            }
        }
        for (RunStatus from : List.of(RunStatus.EXTRACTING, RunStatus.EXTRACTED_VALIDATED)) {
            try {
                ledger.failRun(runId, new FailRun(from, RunStatus.FAILED_EXTRACT, "SOURCE_METRICS", METRICS_FAILED,
                        message));
                return;
            } catch (LedgerCallException e) {
                if (!e.is(ErrorCode.RUN_STATUS_MISMATCH)) {
                    LOG.warn("run {}: failing it was refused: {}", runId, e.getMessage());
                    return;
                }
            }
        }
        LOG.warn("run {}: it had already left extraction when its source metrics failed", runId);
    }

    static Manifest manifest(SourcePlan plan) {
        List<ManifestPartition> partitions = plan.partitions().stream().map(RunSubmitter::partition).toList();
        return new Manifest(null, plan.snapshotRef(), plan.split().rowCount(), plan.split().nullCount(),
                plan.split().min(), plan.split().max(), partitions.size(),
                plan.sourceMetrics().map(MetricSet::values).orElse(Map.of()), METRICS_VERSION, partitions,
                plan.sourceMetrics().isEmpty());
    }

    private static ManifestPartition partition(Partition p) {
        return new ManifestPartition(PartitionId.of(p.partitionId()), bound(p.lowerBound()), bound(p.upperBound()),
                p.upperInclusive(), p.isNullPartition(), p.expectedRowCount(), p.sourceRef());
    }

    private static BigInteger bound(String text) {
        return text == null ? null : new BigInteger(text);
    }
}

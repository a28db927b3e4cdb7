package io.loadgate.worker.submit;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.RunApi.CreateRun;
import io.loadgate.api.RunApi.CreatedRun;
import io.loadgate.api.RunApi.Manifest;
import io.loadgate.api.RunApi.ManifestAccepted;
import io.loadgate.api.RunApi.ManifestPartition;
import io.loadgate.api.RunApi.OnLostResponse;
import io.loadgate.worker.execution.RunContext;
import io.loadgate.worker.execution.SourceCache;
import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.job.JobSpecException;
import io.loadgate.worker.ledger.LedgerCallException;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.source.Partition;
import io.loadgate.worker.source.SnapshotHolder;
import io.loadgate.worker.source.Source;
import io.loadgate.worker.source.SourcePlan;
import io.loadgate.worker.source.Sources;
import io.loadgate.worker.staging.SourceSchemas;
import io.loadgate.worker.transform.TransformChain;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Starts a run: opens the source's snapshot, plans the partitions inside it, creates the run and registers the
 * manifest. The snapshot stays open in the returned {@link Submission} until the caller closes it, which must not
 * happen before extraction has ended: PostgreSQL forgets an exported snapshot with the transaction that made it.
 */
public final class RunSubmitter {
    static final String METRICS_VERSION = "loadgate-1";
    static final String STAGE_TABLE_PREFIX = "stg_";

    private final LedgerClient ledger;
    private final SourceCache sources;
    private final Map<String, String> environment;

    public RunSubmitter(LedgerClient ledger, SourceCache sources, Map<String, String> environment) {
        this.ledger = requireNonNull(ledger, "ledger is null");
        this.sources = requireNonNull(sources, "sources is null");
        this.environment = Map.copyOf(environment);
    }

    /** A submitted run and the snapshot its partitions read. */
    public record Submission(UUID runId, SnapshotHolder snapshot, SourcePlan plan, ManifestAccepted manifest)
            implements AutoCloseable {
        @Override
        public void close() {
            snapshot.close();
        }
    }

    /**
     * @param jobYaml the job file's text; the run carries it so that workers on any host read the same job
     * @throws LedgerCallException 409 DUPLICATE_ACTIVE_RUN when the job already has an active run for the key
     */
    public Submission submit(JobSpec job, String jobYaml, String businessKey) {
        Source source = Sources.forJob(job, environment);
        SnapshotHolder snapshot = source.openSnapshot(businessKey);
        try {
            SourcePlan plan = snapshot.plan();
            checkTransforms(job, plan, environment);
            CreateRun request = CreateRun.forWorkers(job.jobKey(), businessKey, job.staging().root().toString(),
                            STAGE_TABLE_PREFIX)
                    .withParameters(Map.of(RunContext.JOB_SPEC_PARAMETER, jobYaml))
                    .withRecoveryMode(job.recovery().mode() == null ? null : job.recovery().mode().name());
            CreatedRun created = ledger.createRun(request, OnLostResponse.ADOPT_ACTIVE_RUN);
            sources.register(created.runId(), source);
            ManifestAccepted accepted = ledger.registerManifest(created.runId(), manifest(plan));
            return new Submission(created.runId(), snapshot, plan, accepted);
        } catch (RuntimeException e) {
            snapshot.close();
            throw e;
        }
    }

    /** A transform that cannot apply to the source's columns is refused before a run exists, not per partition. */
    private static void checkTransforms(JobSpec job, SourcePlan plan, Map<String, String> environment) {
        try {
            TransformChain.bind(job, SourceSchemas.toIceberg(plan.columns()), environment);
        } catch (IllegalArgumentException e) {
            throw new JobSpecException(e.getMessage(), e);
        }
    }

    static Manifest manifest(SourcePlan plan) {
        List<ManifestPartition> partitions = plan.partitions().stream().map(RunSubmitter::partition).toList();
        return new Manifest(null, plan.snapshotRef(), plan.split().rowCount(), plan.split().nullCount(),
                plan.split().min(), plan.split().max(), partitions.size(), plan.sourceMetrics().values(),
                METRICS_VERSION, partitions);
    }

    private static ManifestPartition partition(Partition p) {
        return new ManifestPartition(p.partitionId(), bound(p.lowerBound()), bound(p.upperBound()), p.upperInclusive(),
                p.isNullPartition(), p.expectedRowCount(), null);
    }

    private static BigInteger bound(String text) {
        return text == null ? null : new BigInteger(text);
    }
}

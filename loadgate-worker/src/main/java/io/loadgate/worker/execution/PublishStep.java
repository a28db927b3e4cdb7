package io.loadgate.worker.execution;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.ChunkKind;
import io.loadgate.api.DispatchApi.LeasedDispatch;
import io.loadgate.api.OperatorApi.PublishProbe;
import io.loadgate.api.RunStatus;
import io.loadgate.api.StepApi;
import io.loadgate.api.StepApi.PublishClaim;
import io.loadgate.api.StepApi.PublishOutcome;
import io.loadgate.api.StepApi.PublishResult;
import io.loadgate.worker.ledger.LedgerCallException;
import io.loadgate.worker.ledger.Messages;
import io.loadgate.worker.metrics.StepOutcome;
import io.loadgate.worker.publish.ProbeResult;
import io.loadgate.worker.publish.PublishFence;
import io.loadgate.worker.publish.PublishOutcome.ErrorCode;
import io.loadgate.worker.publish.StagedFile;
import io.loadgate.worker.staging.RejectsWriter;
import io.loadgate.worker.staging.SourceSchemas;
import io.loadgate.worker.target.Publication;
import io.loadgate.worker.target.Target;
import io.loadgate.worker.validation.StagedFilesReader;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.iceberg.Schema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PUBLISH_RUN: claim the publish with a fresh token, commit exactly the ledger's data files in the job's
 * {@link Target} (one Iceberg commit, or one warehouse transaction), report the outcome. Never a second commit: when
 * the outcome is unknown, the target's probe looks for this publish token, and the ledger decides from that evidence.
 */
final class PublishStep {
    private static final Logger LOG = LoggerFactory.getLogger(PublishStep.class);

    private static final Duration FIRST_REPORT_PAUSE = Duration.ofMillis(200);
    private static final Duration LAST_REPORT_PAUSE = Duration.ofSeconds(30);

    private final WorkerContext context;
    private final Optional<Consumer<LeasedDispatch>> handOff;

    /**
     * With {@code handOff}, a PUBLISHED report asks the ledger for the run's target validation and gives what it
     * handed this node to {@code handOff}: the worker runs it on this thread once this step has ended.
     */
    PublishStep(WorkerContext context, Optional<Consumer<LeasedDispatch>> handOff) {
        this.context = requireNonNull(context, "context is null");
        this.handOff = requireNonNull(handOff, "handOff is null");
    }

    StepOutcome run(LeasedDispatch dispatch) {
        RunContext run = context.shared().runs().get(dispatch.runId());
        UUID token = UUID.randomUUID();
        // Taken before the claim is sent: the ledger counts the deadline from a moment after this one.
        Instant claimedBefore = Instant.now();
        PublishClaim claim = context.ledger().publishClaim(run.runId(), token);
        if (!claim.claimed()) {
            return StepOutcome.SKIPPED;
        }
        Target target;
        Publication publication;
        try {
            PublishFence fence = fence(claim, claimedBefore);
            target = context.targets().forJob(run.job());
            List<StepApi.StagedFile> recorded = claim.files();
            List<StagedFile> files = dataFiles(recorded);
            publication = new Publication(run.runId().toString(), run.businessKey(), token, fence, files,
                    () -> stagedColumns(context, run, recorded));
        } catch (RuntimeException e) {
            // Nothing was committed: the commit is the last thing a publish does.
            report(run, token, PublishOutcome.FAILED_PUBLISH, "PUBLISH_PREPARE_FAILED", e.getMessage(), null);
            return StepOutcome.FAILED;
        } catch (Error e) {
            report(run, token, PublishOutcome.FAILED_PUBLISH, StepErrors.code(e), StepErrors.message(e), null);
            throw e;
        }
        io.loadgate.worker.publish.PublishOutcome outcome;
        // An Error is thrown on once the ledger has the outcome and the probe's evidence: the worker decides what it
        // means for the process.
        Error thrown = null;
        try {
            outcome = target.publish(publication);
        } catch (RuntimeException | Error e) {
            // A target returns every outcome it can classify; one that throws may have had its commit in flight, so
            // the outcome is unknown, reported as such at once and probed, rather than left PUBLISHING for hours.
            outcome = io.loadgate.worker.publish.PublishOutcome.unknown(ErrorCode.COMMIT_INTERRUPTED,
                    "publish of run " + run.runId() + " threw: " + e);
            if (e instanceof Error error) {
                thrown = error;
            }
        }
        PublishOutcome reported = PublishOutcome.valueOf(outcome.status().name());
        RunStatus status = report(run, token, reported, outcome.errorCode() == null ? null : outcome.errorCode().name(),
                outcome.message(), outcome.targetRef());
        if (status == RunStatus.PUBLISH_UNKNOWN) {
            ProbeResult probe = target.probe(run.runId().toString(), token);
            boolean found = probe.status() == ProbeResult.Status.PUBLISHED;
            var resolved = context.ledger().probePublishUnknown(run.runId(), new PublishProbe(token, found,
                    found ? String.valueOf(probe.snapshotId()) : null, true,
                    Map.of("probe", String.valueOf(probe.evidence()))));
            LOG.warn("run {} publish outcome was unknown; the probe {} the token: run is {}", run.runId(),
                    found ? "found" : "did not find", resolved.runStatus());
        }
        if (thrown != null) {
            throw thrown;
        }
        return reported == PublishOutcome.PUBLISHED ? StepOutcome.OK : StepOutcome.FAILED;
    }

    /**
     * A claim without a fence or files comes from a ledger older than this worker: publishing unfenced is not an
     * option, and the files are what the claim took.
     */
    private static PublishFence fence(PublishClaim claim, Instant claimedBefore) {
        if (claim.publishGeneration() == null || claim.publishWithinMs() == null || claim.files() == null) {
            throw new IllegalStateException("the ledger's publish claim carries no publishGeneration,"
                    + " publishWithinMs and files; a worker publishes only fenced (upgrade the ledger)");
        }
        return new PublishFence(claim.publishGeneration(), claimedBefore.plusMillis(claim.publishWithinMs()));
    }

    /** The run's data chunks (not its rejects) as the target references them. */
    static List<StagedFile> dataFiles(List<StepApi.StagedFile> recorded) {
        return recorded.stream().filter(f -> f.kind() == ChunkKind.DATA)
                .map(f -> new StagedFile(f.hdfsPath(), f.recordCount(), f.byteCount(), f.checksum())).toList();
    }

    /**
     * The staged files' columns: those of a data chunk, or, when every row was rejected, of a rejects chunk without
     * its reason (a table created from them, and read back as such, holds what the run would have published). A run
     * of an empty key staged no file: its columns are the source's, as its chunks would have held them.
     */
    static Schema stagedColumns(WorkerContext context, RunContext run, List<StepApi.StagedFile> recorded) {
        var first = recorded.stream().filter(f -> f.kind() == ChunkKind.DATA).findFirst()
                .or(() -> recorded.stream().findFirst());
        if (first.isEmpty()) {
            return SourceSchemas.toIceberg(context.shared().sources().forRun(run.runId(), run.job()).columns());
        }
        Schema schema = new StagedFilesReader(context.hadoop()).schemaOf(URI.create(first.get().hdfsPath()));
        return first.get().kind() == ChunkKind.REJECTS ? RejectsWriter.dataSchemaOf(schema) : schema;
    }

    /**
     * Reports the outcome until the ledger takes it (the call is idempotent: the same outcome again changes nothing)
     * and returns the run's status then. A committed run whose outcome is dropped would wait publish_stale for an operator
     * although this process knows what happened, so an unreachable or failing ledger is asked again, with growing
     * pauses, until it answers. PUBLISH_UNKNOWN comes back when the outcome was unknown, or when the ledger had turned
     * the run PUBLISH_UNKNOWN before the report arrived: the caller then probes, with the attempt known to be over.
     */
    private RunStatus report(RunContext run, UUID token, PublishOutcome outcome, String errorCode, String message,
                             String targetRef) {
        String text = Messages.fit(message);
        PublishResult request = new PublishResult(token, outcome, errorCode, text, targetRef,
                handOff.isPresent() ? context.node() : null);
        Duration pause = FIRST_REPORT_PAUSE;
        while (true) {
            try {
                var result = context.ledger().publishResult(run.runId(), request);
                // Counted once the ledger has it: an outcome it never heard of comes again with the redelivered
                // dispatch.
                context.shared().metrics().published(run.job().jobKey(), outcome);
                LOG.info("run {} publish: {}{}", run.runId(), result.runStatus(),
                        text == null ? "" : " (" + text + ")");
                if (result.nextDispatch() != null) {
                    // Leased to this node with the outcome: the target's check follows without a lease's round trip.
                    handOff.orElseThrow().accept(result.nextDispatch());
                }
                return result.runStatus();
            } catch (LedgerCallException e) {
                Object now = e.details().get("runStatus");
                if (e.isConflict() && RunStatus.PUBLISH_UNKNOWN.name().equals(now)) {
                    LOG.warn("run {}: the ledger made the run PUBLISH_UNKNOWN before the {} outcome arrived; probing",
                            run.runId(), outcome);
                    return RunStatus.PUBLISH_UNKNOWN;
                }
                if (e.isConflict()) {
                    LOG.error("run {}: the ledger refused the {} outcome ({}): the run was settled meanwhile as {}",
                            run.runId(), outcome, text, now);
                    throw e;
                }
                if (!e.isUnavailable() && !e.isOutcomeUnknown() && !e.isServerError()) {
                    throw e;
                }
                LOG.warn("run {}: the ledger did not take the {} outcome ({}); reporting it again in {}", run.runId(),
                        outcome, e.getMessage(), pause);
                try {
                    Thread.sleep(pause.toMillis());
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    e.addSuppressed(interrupted);
                    throw e;
                }
                Duration doubled = pause.multipliedBy(2);
                pause = doubled.compareTo(LAST_REPORT_PAUSE) > 0 ? LAST_REPORT_PAUSE : doubled;
            }
        }
    }
}

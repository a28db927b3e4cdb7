package io.loadgate.worker.metrics;

import static java.util.Objects.requireNonNull;
import io.loadgate.worker.ledger.DispatchApi.Lease;
import io.loadgate.worker.ledger.DispatchApi.LeasedDispatch;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.ledger.OperatorApi.Cancel;
import io.loadgate.worker.ledger.OperatorApi.Cleanup;
import io.loadgate.worker.ledger.OperatorApi.CleanupCandidate;
import io.loadgate.worker.ledger.OperatorApi.CleanupResult;
import io.loadgate.worker.ledger.OperatorApi.MonitorSummary;
import io.loadgate.worker.ledger.OperatorApi.PublishProbe;
import io.loadgate.worker.ledger.OperatorApi.Resent;
import io.loadgate.worker.ledger.OperatorApi.Resolve;
import io.loadgate.worker.ledger.OperatorApi.Rollback;
import io.loadgate.worker.ledger.PartitionApi.ChunkReport;
import io.loadgate.worker.ledger.PartitionApi.ChunkResult;
import io.loadgate.worker.ledger.PartitionApi.Claim;
import io.loadgate.worker.ledger.PartitionApi.ClaimResult;
import io.loadgate.worker.ledger.PartitionApi.FailResult;
import io.loadgate.worker.ledger.PartitionApi.HeartbeatResult;
import io.loadgate.worker.ledger.PartitionApi.PartitionFailure;
import io.loadgate.worker.ledger.PartitionApi.PartitionHeartbeat;
import io.loadgate.worker.ledger.RunApi.CreateRun;
import io.loadgate.worker.ledger.RunApi.CreatedRun;
import io.loadgate.worker.ledger.RunApi.Event;
import io.loadgate.worker.ledger.RunApi.FailRun;
import io.loadgate.worker.ledger.RunApi.Manifest;
import io.loadgate.worker.ledger.RunApi.ManifestAccepted;
import io.loadgate.worker.ledger.RunApi.OnLostResponse;
import io.loadgate.worker.ledger.RunApi.RunChange;
import io.loadgate.worker.ledger.RunApi.RunFilter;
import io.loadgate.worker.ledger.RunApi.RunView;
import io.loadgate.worker.ledger.StepApi;
import io.loadgate.worker.ledger.StepApi.PublishClaim;
import io.loadgate.worker.ledger.StepApi.PublishResult;
import io.loadgate.worker.ledger.StepApi.StageVerdict;
import io.loadgate.worker.ledger.StepApi.StagedFile;
import io.loadgate.worker.ledger.StepApi.StartValidation;
import io.loadgate.worker.ledger.StepApi.SuccessResult;
import io.loadgate.worker.ledger.StepApi.ValidationStarted;
import io.loadgate.worker.ledger.StepApi.ValidationsRecorded;
import io.loadgate.worker.ledger.StepApi.Validations;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * A {@link LedgerClient} that times every call it passes on, by method and whether it threw, into
 * {@code loadgate_worker_ledger_calls_seconds}. A failed call is timed too: its time was spent all the same. The
 * lease long poll is timed like the rest; its time is mostly waiting for work.
 */
public final class MeteredLedgerClient implements LedgerClient {
    private final LedgerClient delegate;
    private final WorkerMetrics metrics;

    public MeteredLedgerClient(LedgerClient delegate, WorkerMetrics metrics) {
        this.delegate = requireNonNull(delegate, "delegate is null");
        this.metrics = requireNonNull(metrics, "metrics is null");
    }

    private <T> T timed(String method, Supplier<T> call) {
        long start = System.nanoTime();
        boolean failed = true;
        try {
            T result = call.get();
            failed = false;
            return result;
        } finally {
            metrics.ledgerCall(method, failed).record(Duration.ofNanos(System.nanoTime() - start));
        }
    }

    @Override
    public CreatedRun createRun(CreateRun request, OnLostResponse onLostResponse) {
        return timed("createRun", () -> delegate.createRun(request, onLostResponse));
    }

    @Override
    public ManifestAccepted registerManifest(UUID runId, Manifest manifest) {
        return timed("registerManifest", () -> delegate.registerManifest(runId, manifest));
    }

    @Override
    public RunChange failRun(UUID runId, FailRun request) {
        return timed("failRun", () -> delegate.failRun(runId, request));
    }

    @Override
    public RunView getRun(UUID runId) {
        return timed("getRun", () -> delegate.getRun(runId));
    }

    @Override
    public List<RunView> listRuns(RunFilter filter) {
        return timed("listRuns", () -> delegate.listRuns(filter));
    }

    @Override
    public List<Event> events(UUID runId, long afterEventId, int limit) {
        return timed("events", () -> delegate.events(runId, afterEventId, limit));
    }

    @Override
    public ClaimResult claim(UUID runId, String partitionId, Claim claim) {
        return timed("claim", () -> delegate.claim(runId, partitionId, claim));
    }

    @Override
    public ChunkResult reportChunk(UUID runId, String partitionId, ChunkReport report) {
        return timed("reportChunk", () -> delegate.reportChunk(runId, partitionId, report));
    }

    @Override
    public FailResult failPartition(UUID runId, String partitionId, PartitionFailure failure) {
        return timed("failPartition", () -> delegate.failPartition(runId, partitionId, failure));
    }

    @Override
    public HeartbeatResult heartbeat(UUID runId, String partitionId, PartitionHeartbeat beat) {
        return timed("heartbeat", () -> delegate.heartbeat(runId, partitionId, beat));
    }

    @Override
    public ValidationStarted startValidation(UUID runId, StartValidation request) {
        return timed("startValidation", () -> delegate.startValidation(runId, request));
    }

    @Override
    public ValidationsRecorded recordValidations(UUID runId, Validations validations) {
        return timed("recordValidations", () -> delegate.recordValidations(runId, validations));
    }

    @Override
    public StageVerdict stageValidated(UUID runId) {
        return timed("stageValidated", () -> delegate.stageValidated(runId));
    }

    @Override
    public PublishClaim publishClaim(UUID runId, UUID publishToken) {
        return timed("publishClaim", () -> delegate.publishClaim(runId, publishToken));
    }

    @Override
    public RunChange publishResult(UUID runId, PublishResult result) {
        return timed("publishResult", () -> delegate.publishResult(runId, result));
    }

    @Override
    public SuccessResult success(UUID runId, long targetCount) {
        return timed("success", () -> delegate.success(runId, targetCount));
    }

    @Override
    public RunChange cancelRun(UUID runId, Cancel cancel) {
        return timed("cancelRun", () -> delegate.cancelRun(runId, cancel));
    }

    @Override
    public RunChange resolvePublishUnknown(UUID runId, Resolve resolve) {
        return timed("resolvePublishUnknown", () -> delegate.resolvePublishUnknown(runId, resolve));
    }

    @Override
    public RunChange recordRollback(UUID runId, Rollback rollback) {
        return timed("recordRollback", () -> delegate.recordRollback(runId, rollback));
    }

    @Override
    public List<StepApi.ValidationView> validations(UUID runId) {
        return timed("validations", () -> delegate.validations(runId));
    }

    @Override
    public List<StagedFile> files(UUID runId) {
        return timed("files", () -> delegate.files(runId));
    }

    @Override
    public RunChange probePublishUnknown(UUID runId, PublishProbe probe) {
        return timed("probePublishUnknown", () -> delegate.probePublishUnknown(runId, probe));
    }

    @Override
    public Resent resendDispatch(UUID runId, UUID dispatchId) {
        return timed("resendDispatch", () -> delegate.resendDispatch(runId, dispatchId));
    }

    @Override
    public io.loadgate.worker.ledger.DispatchApi.Released releaseDispatch(UUID dispatchId, String node) {
        return timed("releaseDispatch", () -> delegate.releaseDispatch(dispatchId, node));
    }

    @Override
    public List<LeasedDispatch> leaseDispatches(Lease lease) {
        return timed("leaseDispatches", () -> delegate.leaseDispatches(lease));
    }

    @Override
    public List<CleanupCandidate> cleanupCandidates() {
        return timed("cleanupCandidates", delegate::cleanupCandidates);
    }

    @Override
    public CleanupResult cleanup(UUID runId, Cleanup cleanup) {
        return timed("cleanup", () -> delegate.cleanup(runId, cleanup));
    }

    @Override
    public CleanupResult cleanupSkipped(UUID runId, String reason) {
        return timed("cleanupSkipped", () -> delegate.cleanupSkipped(runId, reason));
    }

    @Override
    public MonitorSummary monitorSummary() {
        return timed("monitorSummary", delegate::monitorSummary);
    }
}

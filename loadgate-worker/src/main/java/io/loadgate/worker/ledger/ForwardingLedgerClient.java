package io.loadgate.worker.ledger;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.BusinessKey;
import io.loadgate.api.DispatchApi;
import io.loadgate.api.DispatchApi.Lease;
import io.loadgate.api.DispatchApi.LeasedDispatch;
import io.loadgate.api.JobKey;
import io.loadgate.api.KeyHolders;
import io.loadgate.api.MonitorHistory;
import io.loadgate.api.OperatorApi.Cancel;
import io.loadgate.api.OperatorApi.Cleanup;
import io.loadgate.api.OperatorApi.CleanupCandidate;
import io.loadgate.api.OperatorApi.CleanupResult;
import io.loadgate.api.OperatorApi.MonitorSummary;
import io.loadgate.api.OperatorApi.PublishProbe;
import io.loadgate.api.OperatorApi.Resent;
import io.loadgate.api.OperatorApi.Resolve;
import io.loadgate.api.OperatorApi.Rollback;
import io.loadgate.api.PartitionApi.ChunkReport;
import io.loadgate.api.PartitionApi.ChunkResult;
import io.loadgate.api.PartitionApi.Claim;
import io.loadgate.api.PartitionApi.ClaimResult;
import io.loadgate.api.PartitionApi.FailResult;
import io.loadgate.api.PartitionApi.HeartbeatResult;
import io.loadgate.api.PartitionApi.PartitionFailure;
import io.loadgate.api.PartitionApi.PartitionHeartbeat;
import io.loadgate.api.PartitionId;
import io.loadgate.api.RunApi.CreateRun;
import io.loadgate.api.RunApi.CreatedRun;
import io.loadgate.api.RunApi.Event;
import io.loadgate.api.RunApi.FailRun;
import io.loadgate.api.RunApi.Manifest;
import io.loadgate.api.RunApi.ManifestAccepted;
import io.loadgate.api.RunApi.OnLostResponse;
import io.loadgate.api.RunApi.RunBeat;
import io.loadgate.api.RunApi.RunChange;
import io.loadgate.api.RunApi.RunFilter;
import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunApi;
import io.loadgate.api.RunId;
import io.loadgate.api.StepApi;
import io.loadgate.api.StepApi.PublishClaim;
import io.loadgate.api.StepApi.PublishRecorded;
import io.loadgate.api.StepApi.PublishResult;
import io.loadgate.api.StepApi.StageValidated;
import io.loadgate.api.StepApi.StageVerdict;
import io.loadgate.api.StepApi.StagedFile;
import io.loadgate.api.StepApi.StartValidation;
import io.loadgate.api.StepApi.Success;
import io.loadgate.api.StepApi.SuccessResult;
import io.loadgate.api.StepApi.ValidationStarted;
import io.loadgate.api.StepApi.Validations;
import io.loadgate.api.StepApi.ValidationsRecorded;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * A {@link LedgerClient} that passes every call on to another through one method, {@link #around}: a decorator
 * (timing, metrics) implements that alone and sees every call by name, however the interface grows.
 */
public abstract class ForwardingLedgerClient implements LedgerClient {
    protected final LedgerClient delegate;

    protected ForwardingLedgerClient(LedgerClient delegate) {
        this.delegate = requireNonNull(delegate, "delegate is null");
    }

    /** Runs {@code call} (the delegate's {@code method}) and returns what it returns, or throws what it throws. */
    protected abstract <T> T around(String method, Supplier<T> call);

    @Override
    public CreatedRun createRun(CreateRun request, OnLostResponse onLostResponse, String idempotencyKey) {
        return around("createRun", () -> delegate.createRun(request, onLostResponse, idempotencyKey));
    }

    @Override
    public ManifestAccepted registerManifest(RunId runId, Manifest manifest) {
        return around("registerManifest", () -> delegate.registerManifest(runId, manifest));
    }

    @Override
    public RunBeat heartbeatRun(RunId runId) {
        return around("heartbeatRun", () -> delegate.heartbeatRun(runId));
    }

    @Override
    public RunApi.SourceMetricsAccepted recordSourceMetrics(RunId runId, RunApi.SourceMetrics metrics) {
        return around("recordSourceMetrics", () -> delegate.recordSourceMetrics(runId, metrics));
    }

    @Override
    public RunChange failRun(RunId runId, FailRun request) {
        return around("failRun", () -> delegate.failRun(runId, request));
    }

    @Override
    public RunView getRun(RunId runId) {
        return around("getRun", () -> delegate.getRun(runId));
    }

    @Override
    public List<RunView> listRuns(RunFilter filter) {
        return around("listRuns", () -> delegate.listRuns(filter));
    }

    @Override
    public List<io.loadgate.api.LoadedKey> loadedDirectories(String jobKey) {
        return around("loadedDirectories", () -> delegate.loadedDirectories(jobKey));
    }

    @Override
    public List<Event> events(RunId runId, long afterEventId, int limit) {
        return around("events", () -> delegate.events(runId, afterEventId, limit));
    }

    @Override
    public ClaimResult claim(RunId runId, PartitionId partitionId, Claim claim) {
        return around("claim", () -> delegate.claim(runId, partitionId, claim));
    }

    @Override
    public ChunkResult reportChunk(RunId runId, PartitionId partitionId, ChunkReport report) {
        return around("reportChunk", () -> delegate.reportChunk(runId, partitionId, report));
    }

    @Override
    public FailResult failPartition(RunId runId, PartitionId partitionId, PartitionFailure failure) {
        return around("failPartition", () -> delegate.failPartition(runId, partitionId, failure));
    }

    @Override
    public HeartbeatResult heartbeat(RunId runId, PartitionId partitionId, PartitionHeartbeat beat) {
        return around("heartbeat", () -> delegate.heartbeat(runId, partitionId, beat));
    }

    @Override
    public ValidationStarted startValidation(RunId runId, StartValidation request) {
        return around("startValidation", () -> delegate.startValidation(runId, request));
    }

    @Override
    public StepApi.ValidationBeat heartbeatValidation(RunId runId, StartValidation request) {
        return around("heartbeatValidation", () -> delegate.heartbeatValidation(runId, request));
    }

    @Override
    public ValidationsRecorded recordValidations(RunId runId, Validations validations) {
        return around("recordValidations", () -> delegate.recordValidations(runId, validations));
    }

    @Override
    public StageVerdict stageValidated(RunId runId, StageValidated request) {
        return around("stageValidated", () -> delegate.stageValidated(runId, request));
    }

    @Override
    public PublishClaim publishClaim(RunId runId, UUID publishToken) {
        return around("publishClaim", () -> delegate.publishClaim(runId, publishToken));
    }

    @Override
    public PublishRecorded publishResult(RunId runId, PublishResult result) {
        return around("publishResult", () -> delegate.publishResult(runId, result));
    }

    @Override
    public SuccessResult success(RunId runId, Success request) {
        return around("success", () -> delegate.success(runId, request));
    }

    @Override
    public RunChange cancelRun(RunId runId, Cancel cancel) {
        return around("cancelRun", () -> delegate.cancelRun(runId, cancel));
    }

    @Override
    public RunChange resolvePublishUnknown(RunId runId, Resolve resolve) {
        return around("resolvePublishUnknown", () -> delegate.resolvePublishUnknown(runId, resolve));
    }

    @Override
    public RunChange recordRollback(RunId runId, Rollback rollback) {
        return around("recordRollback", () -> delegate.recordRollback(runId, rollback));
    }

    @Override
    public List<StepApi.ValidationView> validations(RunId runId) {
        return around("validations", () -> delegate.validations(runId));
    }

    @Override
    public List<StagedFile> files(RunId runId) {
        return around("files", () -> delegate.files(runId));
    }

    @Override
    public RunChange probePublishUnknown(RunId runId, PublishProbe probe) {
        return around("probePublishUnknown", () -> delegate.probePublishUnknown(runId, probe));
    }

    @Override
    public Resent resendDispatch(RunId runId, UUID dispatchId) {
        return around("resendDispatch", () -> delegate.resendDispatch(runId, dispatchId));
    }

    @Override
    public io.loadgate.api.DispatchApi.Released releaseDispatch(UUID dispatchId, String node) {
        return around("releaseDispatch", () -> delegate.releaseDispatch(dispatchId, node));
    }

    @Override
    public List<LeasedDispatch> leaseDispatches(Lease lease) {
        return around("leaseDispatches", () -> delegate.leaseDispatches(lease));
    }

    @Override
    public List<CleanupCandidate> cleanupCandidates() {
        return around("cleanupCandidates", delegate::cleanupCandidates);
    }

    @Override
    public CleanupResult cleanup(RunId runId, Cleanup cleanup) {
        return around("cleanup", () -> delegate.cleanup(runId, cleanup));
    }

    @Override
    public CleanupResult cleanupSkipped(RunId runId, String reason) {
        return around("cleanupSkipped", () -> delegate.cleanupSkipped(runId, reason));
    }

    @Override
    public MonitorSummary monitorSummary() {
        return around("monitorSummary", delegate::monitorSummary);
    }

    @Override
    public MonitorHistory monitorHistory(JobKey jobKey, Instant from, MonitorHistory.Bucket bucket) {
        return around("monitorHistory", () -> delegate.monitorHistory(jobKey, from, bucket));
    }

    @Override
    public KeyHolders keyHolders(JobKey jobKey, BusinessKey after, int limit) {
        return around("keyHolders", () -> delegate.keyHolders(jobKey, after, limit));
    }
}

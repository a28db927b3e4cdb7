package io.loadgate.worker.ledger;

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

/**
 * The ledger's v1 HTTP API ({@code docs/ledger-api-v1.md}) as a worker or an operator calls it: one method per
 * endpoint. The ledger decides everything; a method returns its decision or throws {@link LedgerCallException}.
 *
 * <h2>Errors</h2>
 * An error answer becomes a {@link LedgerCallException} with the HTTP status and the envelope's {@code code},
 * {@code message}, {@code requestId} and {@code details}: 409 (conflict: read the state again before deciding),
 * 422 (the request is invalid and will stay so), 404 (the run, partition or dispatch does not exist), 401/403.
 * A 4xx is never retried.
 *
 * <h2>Retries</h2>
 * Each call is one of three kinds, judged against the contract:
 * <ul>
 *   <li><b>Repeatable</b>: the contract makes the same request, sent again, return the same decision (reads; a claim
 *       or a chunk report with the same token; a validation start by the same dispatch and node; heartbeats;
 *       manifest, fail, validations, stage-validated, publish claim and result, success, cleanup, lease). A
 *       transport failure, a timeout or a 5xx answer is retried with jittered backoff for the configured
 *       {@link LedgerClientConfig.Retry#window() window}, so that a ledger restart or a database outage shorter
 *       than the window costs nothing.</li>
 *   <li><b>Once</b>: sent again after it was applied, the request would get a different, misleading answer
 *       ({@code success} answers from the run's new state after its decision, so a retry after a lost answer
 *       would not say what the first attempt decided). These are retried only when no
 *       attempt reached the ledger (connection refused, connect timeout); otherwise the caller gets
 *       {@link LedgerCallException#isOutcomeUnknown()} and must read the run before it acts.</li>
 *   <li>{@link #createRun}: repeatable with a caveat; see there.</li>
 * </ul>
 * Implementations are thread-safe.
 */
public interface LedgerClient {
    /** The largest page {@link #events} may ask for. */
    int MAX_EVENTS_PAGE = 10_000;

    /** {@link #createRun(CreateRun, OnLostResponse)} with {@link OnLostResponse#FAIL}. */
    default CreatedRun createRun(CreateRun request) {
        return createRun(request, OnLostResponse.FAIL);
    }

    /**
     * {@code POST /v1/runs} (worker). Creates a run in CREATED. Every attempt carries one {@code Idempotency-Key}
     * (an extension), so a ledger that knows it answers a retry, or a copy of the request, with the run the first
     * attempt made. A ledger that does not would answer such a retry 409 {@code DUPLICATE_ACTIVE_RUN} with
     * {@code details.activeRunId}. With {@link OnLostResponse#ADOPT_ACTIVE_RUN}
     * the client then returns that active run, marked {@link CreatedRun#adopted()}, provided its paths are the ones
     * this request would have produced; otherwise, and always when no earlier attempt may have reached the ledger,
     * the 409 is thrown. Other errors: 422 {@code INVALID_HDFS_ROOT}, 422 {@code REQUEST_INVALID}.
     */
    default CreatedRun createRun(CreateRun request, OnLostResponse onLostResponse) {
        return createRun(request, onLostResponse, null);
    }

    /**
     * {@link #createRun(CreateRun, OnLostResponse)} with the caller's own {@code Idempotency-Key} instead of a fresh
     * one, or a fresh one when null: a create that this key (with the same token and request) made before returns
     * that run as it is now, whatever its status, rather than a second run. 422 {@code IDEMPOTENCY_KEY_REUSED} when
     * the key was used with another request.
     */
    CreatedRun createRun(CreateRun request, OnLostResponse onLostResponse, String idempotencyKey);

    /**
     * {@code POST /v1/runs/{runId}/manifest} (worker). Repeatable: the identical manifest again returns the same
     * answer. 422 {@code MANIFEST_INVALID} ({@code details.violations} lists every violation; the run is then
     * FAILED_MANIFEST); 409 {@code RUN_STATUS_MISMATCH} for a different manifest on a run past CREATED.
     */
    ManifestAccepted registerManifest(RunId runId, Manifest manifest);

    /**
     * {@code PUT /v1/runs/{runId}/source-metrics} (worker, extension): the source's metrics of a run whose manifest
     * said they would follow ({@code sourceMetricsPending}). Repeatable: the same metrics again answer
     * {@code changed=false}. 409 {@code SOURCE_METRICS_CONFLICT} when the run has other metrics; 409
     * {@code RUN_STATUS_MISMATCH} for a run without a manifest or one that ended while they were awaited.
     */
    RunApi.SourceMetricsAccepted recordSourceMetrics(RunId runId, RunApi.SourceMetrics metrics);

    /**
     * {@code POST /v1/runs/{runId}/fail} (worker). Repeatable: a run already in {@code failStatus} answers
     * {@code changed=false}. 422 {@code FAIL_TRANSITION_NOT_ALLOWED}; 409 {@code RUN_STATUS_MISMATCH}.
     */
    RunChange failRun(RunId runId, FailRun request);

    /**
     * {@code POST /v1/runs/{runId}/heartbeat} (worker, extension): a Spark run's driver is alive. Repeatable;
     * {@code beating=false} once the run is past extraction (or is not a Spark run).
     */
    RunBeat heartbeatRun(RunId runId);

    /** {@code GET /v1/runs/{runId}}: the run with its partitions and dispatches. 404 {@code RUN_NOT_FOUND}. */
    RunView getRun(RunId runId);

    /** {@code GET /v1/runs}: newest first, at most {@code filter.limit} (default 100, at most 1000). */
    List<RunView> listRuns(RunFilter filter);

    /** {@code GET /v1/runs/{runId}/events}: up to {@code limit} (1..10,000) events after {@code afterEventId}, oldest first. */
    List<Event> events(RunId runId, long afterEventId, int limit);

    /**
     * {@code GET /v1/jobs/{jobKey}/loaded-directories} (extension): per business key of the job with a SUCCESS run,
     * its latest one and the source directories it loaded (recorded with its SUCCESS). 422 for a malformed job key.
     */
    List<io.loadgate.api.LoadedKey> loadedDirectories(String jobKey);

    /** Every event of a run, oldest first, read page by page with {@link #events}. */
    default List<Event> allEvents(RunId runId) {
        List<Event> all = new java.util.ArrayList<>();
        long after = 0;
        while (true) {
            List<Event> page = events(runId, after, MAX_EVENTS_PAGE);
            all.addAll(page);
            if (page.size() < MAX_EVENTS_PAGE) {
                return all;
            }
            after = page.get(page.size() - 1).eventId();
        }
    }

    /**
     * {@code POST .../partitions/{partitionId}/claim} (worker). Repeatable with the same token. {@code claimed=false}
     * means: do not extract. 404 {@code PARTITION_NOT_FOUND}.
     */
    ClaimResult claim(RunId runId, PartitionId partitionId, Claim claim);

    /**
     * {@code POST .../partitions/{partitionId}/chunks} (worker), after the chunk file is closed. Repeatable: the
     * identical report is counted once. 409 {@code CLAIM_MISMATCH} (the claim is gone: stop writing),
     * 409 {@code CHUNK_CONFLICT}, 422 {@code CHUNK_INDEX_OUT_OF_RANGE}, 422 {@code HDFS_PATH_OUTSIDE_RUN}.
     */
    ChunkResult reportChunk(RunId runId, PartitionId partitionId, ChunkReport report);

    /**
     * {@code POST .../partitions/{partitionId}/fail} (worker). Repeatable: an already FAILED partition answers
     * {@code changed=false}. 409 {@code CLAIM_MISMATCH}, 409 {@code PARTITION_STATUS_MISMATCH}.
     */
    FailResult failPartition(RunId runId, PartitionId partitionId, PartitionFailure failure);

    /**
     * {@code POST .../partitions/{partitionId}/heartbeat} (worker, extension). Repeatable: the ledger keeps the
     * highest count of rows read of the attempt, so a beat repeated late moves nothing back. 409 {@code CLAIM_MISMATCH}.
     */
    HeartbeatResult heartbeat(RunId runId, PartitionId partitionId, PartitionHeartbeat beat);

    /** A heartbeat that only keeps the claim alive, without a count of rows read. */
    default HeartbeatResult heartbeat(RunId runId, PartitionId partitionId, UUID claimToken) {
        return heartbeat(runId, partitionId, new PartitionHeartbeat(claimToken, null));
    }

    /**
     * {@code POST /v1/runs/{runId}/validation/start} (worker). Only the first caller gets {@code started=true}, and
     * that caller again when it repeats the start with the same dispatch and node, so the call is repeatable; the
     * dispatch is ACKed either way. 409 {@code DISPATCH_MISMATCH}.
     */
    ValidationStarted startValidation(RunId runId, StartValidation request);

    /**
     * {@code POST /v1/runs/{runId}/validation/heartbeat} (worker, extension), with the start's dispatch and node:
     * the validation is alive. Repeatable. A validation that stops beating is given again after validation_stale.
     */
    StepApi.ValidationBeat heartbeatValidation(RunId runId, StartValidation request);

    /**
     * {@code POST /v1/runs/{runId}/validations} (worker). Repeatable per (stage, metric, queryVersion).
     * 409 {@code RUN_STATUS_MISMATCH} (STAGING needs STAGE_VALIDATING, TARGET needs PUBLISHED).
     */
    ValidationsRecorded recordValidations(RunId runId, Validations validations);

    /**
     * {@code POST /v1/runs/{runId}/stage-validated} (worker): the ledger re-judges the stored STAGING metrics, with
     * those the request carries stored first (extension). Repeatable: once decided, the same call answers the same
     * verdict. With {@code handOffTo} a passing verdict carries the run's PUBLISH_RUN dispatch, leased to that node
     * ({@code nextDispatch}).
     */
    StageVerdict stageValidated(RunId runId, StageValidated request);

    /** {@link #stageValidated(RunId, StageValidated)} without a hand-off, as a NiFi flow calls it. */
    default StageVerdict stageValidated(RunId runId) {
        return stageValidated(runId, new StageValidated(null));
    }

    /**
     * {@code POST /v1/runs/{runId}/publish/claim} (worker). Repeatable with the same token; {@code claimed=false}
     * means someone else publishes: do not touch the target.
     */
    PublishClaim publishClaim(RunId runId, UUID publishToken);

    /**
     * {@code POST /v1/runs/{runId}/publish/result} (worker). Repeatable: the same outcome again answers
     * {@code changed=false}. Report PUBLISH_UNKNOWN when the commit's fate is unknown; never publish again.
     * 409 {@code PUBLISH_TOKEN_MISMATCH}, 409 {@code RUN_STATUS_MISMATCH}. With {@code handOffTo} a PUBLISHED run's
     * answer carries its VALIDATE_TARGET dispatch, leased to that node ({@code nextDispatch}).
     */
    PublishRecorded publishResult(RunId runId, PublishResult result);

    /**
     * {@code POST /v1/runs/{runId}/success} (worker): needs PUBLISHED and passing TARGET metrics, which the request
     * may carry (extension: stored in the verdict's transaction). Repeatable: once decided, the same call answers the
     * same verdict.
     */
    SuccessResult success(RunId runId, Success request);

    /** {@link #success(RunId, Success)} with the TARGET metrics already recorded, as a NiFi flow calls it. */
    default SuccessResult success(RunId runId, long targetCount) {
        return success(runId, new Success(targetCount));
    }

    /**
     * {@code POST /v1/runs/{runId}/cancel} (operator, extension): the run becomes CANCELLED, its unfinished
     * partitions FAILED and its open dispatches DEAD; a worker extracting one of them stops at its next heartbeat.
     * Repeatable: a run already CANCELLED answers {@code changed=false}. 409 {@code RUN_STATUS_MISMATCH} when the run
     * is PUBLISHING, PUBLISHED or PUBLISH_UNKNOWN (a publish may have landed) or has ended otherwise.
     */
    RunChange cancelRun(RunId runId, Cancel cancel);

    /**
     * {@code POST /v1/runs/{runId}/publish-unknown/resolve} (operator). Sent once: a repeat after it was applied
     * gets 409 {@code RUN_STATUS_MISMATCH}. 409 {@code RUN_STATUS_MISMATCH} when the run is not PUBLISH_UNKNOWN.
     */
    RunChange resolvePublishUnknown(RunId runId, Resolve resolve);

    /**
     * {@code POST /v1/runs/{runId}/rollback} (operator, extension): records that the run's partition was removed from
     * the target; the run keeps its status. Repeatable: the same targetRef again answers {@code changed=false}.
     * 409 {@code RUN_STATUS_MISMATCH} (not SUCCESS), 409 {@code NOT_LATEST_SUCCESS}, 409 {@code ALREADY_ROLLED_BACK}
     * (with another targetRef).
     */
    RunChange recordRollback(RunId runId, Rollback rollback);

    /** {@code GET /v1/runs/{runId}/validations}: every metric recorded for the run, with the ledger's verdict. */
    List<StepApi.ValidationView> validations(RunId runId);

    /**
     * {@code GET /v1/runs/{runId}/files}: the run's committed chunk files — the only files publishing may use.
     */
    List<StagedFile> files(RunId runId);

    /**
     * {@code POST /v1/runs/{runId}/publish-unknown/probe} (worker): reports what the target shows for a
     * PUBLISH_UNKNOWN run; the ledger resolves it when the evidence is conclusive. Sent once.
     */
    RunChange probePublishUnknown(RunId runId, PublishProbe probe);

    /**
     * {@code POST /v1/runs/{runId}/dispatches/{dispatchId}/resend} (operator): DEAD or SENT back to PENDING. Sent
     * once. 409 {@code DISPATCH_STATUS_MISMATCH}, 404 {@code DISPATCH_NOT_FOUND}.
     */
    Resent resendDispatch(RunId runId, UUID dispatchId);

    /**
     * {@code POST /v1/dispatches/lease} (worker, extension): a long poll that waits up to {@code lease.waitSeconds}
     * for work; the HTTP timeout is that wait plus {@link LedgerClientConfig#longPollMargin()}. Repeatable: every
     * attempt carries the call's one {@code X-Request-Id}, and the ledger answers a retry with what an attempt whose
     * answer was lost had leased, while nobody has acknowledged it. An empty list means no work arrived.
     */
    List<LeasedDispatch> leaseDispatches(Lease lease);

    /**
     * {@code POST /v1/dispatches/{dispatchId}/release} (worker): hands back a lease this node will not act on, so it
     * is due again at once instead of after ack_timeout. Safe to repeat.
     */
    DispatchApi.Released releaseDispatch(UUID dispatchId, String node);

    /** {@code GET /v1/cleanup/candidates}: finished runs past retention. PUBLISH_UNKNOWN runs never appear. */
    List<CleanupCandidate> cleanupCandidates();

    /**
     * {@code POST /v1/runs/{runId}/cleanup}: records what was removed. Repeatable ({@code changed=false}).
     * 409 {@code CLEANUP_NOT_DUE} before retention.
     */
    CleanupResult cleanup(RunId runId, Cleanup cleanup);

    /**
     * {@code POST /v1/runs/{runId}/cleanup/skipped} (extension): records why a due run was skipped, as an event, and
     * moves it behind the other candidates. Repeatable; {@code changed=false} for a run already cleaned.
     */
    CleanupResult cleanupSkipped(RunId runId, String reason);

    /** {@code GET /v1/monitor/summary}. */
    MonitorSummary monitorSummary();

    /**
     * {@code GET /v1/monitor/history} (extension): the runs that ended from {@code from} until now, per job and UTC
     * {@code bucket}, with their rows at each stage. {@code jobKey} null: every job; {@code from} null: the last 24
     * hours by hour, the last 14 days by day. 422 {@code REQUEST_INVALID} for a bad job key or a {@code from} out of
     * reach (31 days of hours, 366 of days).
     */
    MonitorHistory monitorHistory(JobKey jobKey, Instant from, MonitorHistory.Bucket bucket);

    /**
     * {@code GET /v1/jobs/{jobKey}/keys} (extension): up to {@code limit} (1..1000) business keys of the job after
     * {@code after} (null: from the first), in key order, each with the run the target holds now and its newest run.
     * 422 {@code REQUEST_INVALID} for a bad job key, {@code after} or limit.
     */
    KeyHolders keyHolders(JobKey jobKey, BusinessKey after, int limit);

    /** Every business key of the job, read page by page with {@link #keyHolders}. */
    default List<KeyHolders.Key> allKeyHolders(JobKey jobKey) {
        List<KeyHolders.Key> all = new java.util.ArrayList<>();
        BusinessKey after = null;
        do {
            KeyHolders page = keyHolders(jobKey, after, KeyHolders.MAX_LIMIT);
            all.addAll(page.keys());
            after = page.next();
        } while (after != null);
        return all;
    }
}

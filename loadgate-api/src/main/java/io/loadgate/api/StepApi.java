package io.loadgate.api;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.math.BigInteger;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Requests and responses of the steps after extraction: validation, publish, success. */
public final class StepApi {
    private StepApi() {
    }

    /** {@code POST .../validation/start}: {@code dispatchId} is the VALIDATE_RUN dispatch being executed. */
    public record StartValidation(UUID dispatchId, String node) {
        public StartValidation {
            requireNonNull(dispatchId, "dispatchId is null");
        }
    }

    /**
     * Only the caller that moved the run to STAGE_VALIDATING gets {@code started=true}; every other caller must not
     * validate. {@code files} is the ledger's list of committed chunks: the only files validation may read.
     */
    public record ValidationStarted(boolean started, RunStatus runStatus, JobKey jobKey, BusinessKey businessKey,
                                    @JsonFormat(shape = JsonFormat.Shape.STRING) BigInteger snapshotScn,
                                    String snapshotRef, String hdfsRunPath, String stageTable, Long sourceCount,
                                    Long extractedCount, Map<String, String> sourceMetrics, List<StagedFile> files,
                                    Long heartbeatIntervalMillis) {
        public ValidationStarted {
            requireNonNull(runStatus, "runStatus is null");
            sourceMetrics = RunApi.ordered(sourceMetrics);
            files = files == null ? List.of() : List.copyOf(files);
        }
    }

    /**
     * {@code POST .../validation/heartbeat} (extension), sent with the start's dispatch and node while validating:
     * {@code validating=false} means the validation is no longer this caller's (the sweeper gave it again after
     * validation_stale, or the run moved on).
     */
    public record ValidationBeat(boolean validating, RunStatus runStatus) {
        public ValidationBeat {
            requireNonNull(runStatus, "runStatus is null");
        }
    }

    /** A chunk file the ledger recorded as committed. */
    public record StagedFile(PartitionId partitionId, int chunkIndex, String hdfsPath, long recordCount, long byteCount,
                             String checksum, ChunkKind kind) {
        public StagedFile {
            requireNonNull(partitionId, "partitionId is null");
            requireNonNull(hdfsPath, "hdfsPath is null");
            kind = kind == null ? ChunkKind.DATA : kind;
        }
    }

    public enum Stage {
        STAGING,
        TARGET
    }

    public enum MetricResult {
        PASS,
        FAIL,
        WARN
    }

    /**
     * One metric; values and tolerance are exact decimal strings. The ledger re-judges PASS itself from the numbers
     * (|expected - actual| > tolerance fails), so a caller's PASS is a claim, not a verdict.
     */
    public record Metric(String metricName, String expectedValue, String actualValue, String tolerance,
                         MetricResult result, Map<String, Object> details) {
        public Metric {
            requireNonNull(metricName, "metricName is null");
            requireNonNull(result, "result is null");
            details = RunApi.ordered(details);
        }
    }

    /** {@code POST .../validations}: 1..500 metrics; the same (stage, metric, queryVersion) again is idempotent. */
    public record Validations(Stage stage, String queryVersion, List<Metric> metrics) {
        public Validations {
            requireNonNull(stage, "stage is null");
            metrics = List.copyOf(requireNonNull(metrics, "metrics is null"));
        }
    }

    public record ValidationsRecorded(int recorded, int failCount, RunStatus runStatus) {
        public ValidationsRecorded {
            requireNonNull(runStatus, "runStatus is null");
        }
    }

    /**
     * {@code POST .../stage-validated}'s body, empty in the contract. {@code handOffTo} (extension): the caller's
     * worker node, which will publish the run itself if the verdict passes: the ledger then leases the run's
     * PUBLISH_RUN dispatch to that node in the verdict's own transaction and answers with it
     * ({@link StageVerdict#nextDispatch}), as a chunk report's hand-off does with the validation.
     * {@code queryVersion} and {@code metrics} (extension, both or neither): STAGING metrics the ledger stores in the
     * verdict's transaction before judging, as {@code POST .../validations} would have stored them.
     */
    public record StageValidated(@JsonInclude(JsonInclude.Include.NON_NULL) String handOffTo,
                                 @JsonInclude(JsonInclude.Include.NON_NULL) String queryVersion,
                                 @JsonInclude(JsonInclude.Include.NON_EMPTY) List<Metric> metrics) {
        public StageValidated {
            metrics = metrics == null ? List.of() : List.copyOf(metrics);
        }

        public StageValidated(String handOffTo) {
            this(handOffTo, null, List.of());
        }
    }

    /**
     * {@code POST .../stage-validated}: the ledger's verdict on the stored STAGING metrics. {@code nextDispatch}
     * (extension, absent unless the call asked for a hand-off): the run's PUBLISH_RUN dispatch, leased to the caller's
     * node, when the run is STAGING_VALIDATED.
     */
    public record StageVerdict(boolean stageValidated, RunStatus runStatus, List<String> reasons,
                               @JsonInclude(JsonInclude.Include.NON_NULL) DispatchApi.LeasedDispatch nextDispatch) {
        public StageVerdict {
            requireNonNull(runStatus, "runStatus is null");
            reasons = reasons == null ? List.of() : List.copyOf(reasons);
        }
    }

    /**
     * {@code POST .../publish/claim}: {@code claimed=false} means another token is publishing; do not publish. When
     * claimed, the extensions fence the publish: {@code publishGeneration} is the key's generation the target must
     * hold none above, {@code publishWithinMs} how long from the response the commit may still land, and
     * {@code files} the run's committed chunks, as {@code GET .../files} lists them: what the publish commits.
     */
    public record PublishClaim(boolean claimed, RunStatus runStatus,
                               @JsonInclude(JsonInclude.Include.NON_NULL) Long publishGeneration,
                               @JsonInclude(JsonInclude.Include.NON_NULL) Long publishWithinMs,
                               @JsonInclude(JsonInclude.Include.NON_NULL) List<StagedFile> files) {
        public PublishClaim {
            requireNonNull(runStatus, "runStatus is null");
        }
    }

    public enum PublishOutcome {
        PUBLISHED,
        FAILED_PUBLISH,
        /** The commit may or may not have happened (Iceberg's CommitStateUnknownException): never retried. */
        PUBLISH_UNKNOWN
    }

    /** {@code GET .../validations}: a stored metric with the caller's result and the ledger's own verdict. */
    public record ValidationView(Stage stage, String metricName, String queryVersion, String expectedValue,
                                 String actualValue, String tolerance, MetricResult result, MetricResult judgedResult,
                                 Map<String, Object> details, Instant createdAt) {
        public ValidationView {
            requireNonNull(stage, "stage is null");
            requireNonNull(metricName, "metricName is null");
            details = RunApi.ordered(details);
        }
    }

    /** {@code POST .../publish/claim}: the token names this publish attempt; the same token again is a safe retry. */
    public record ClaimPublish(UUID publishToken) {
        public ClaimPublish {
            requireNonNull(publishToken, "publishToken is null");
        }
    }

    /**
     * {@code POST .../publish/result}: {@code targetRef} (extension) is, for example, the table snapshot id.
     * {@code handOffTo} (extension): the reporter's worker node, which will validate the target itself if the run is
     * PUBLISHED: the ledger then leases the run's VALIDATE_TARGET dispatch to that node in the report's own
     * transaction and answers with it ({@link PublishRecorded#nextDispatch}).
     */
    public record PublishResult(UUID publishToken, PublishOutcome outcome, String errorCode, String message,
                                String targetRef, @JsonInclude(JsonInclude.Include.NON_NULL) String handOffTo) {
        public PublishResult {
            requireNonNull(publishToken, "publishToken is null");
            requireNonNull(outcome, "outcome is null");
        }

        public PublishResult(UUID publishToken, PublishOutcome outcome, String errorCode, String message,
                             String targetRef) {
            this(publishToken, outcome, errorCode, message, targetRef, null);
        }
    }

    /**
     * {@code POST .../publish/result}'s answer (the contract's has no runId). {@code nextDispatch} (extension, absent
     * unless the report asked for a hand-off): the run's VALIDATE_TARGET dispatch, leased to the reporter's node.
     */
    public record PublishRecorded(RunStatus runStatus, boolean changed,
                                  @JsonInclude(JsonInclude.Include.NON_NULL) DispatchApi.LeasedDispatch nextDispatch) {
        public PublishRecorded {
            requireNonNull(runStatus, "runStatus is null");
        }
    }

    /**
     * {@code POST .../success}: the count read back from the target. {@code queryVersion} and {@code metrics}
     * (extension, both or neither): TARGET metrics the ledger stores in the verdict's transaction before judging.
     */
    public record Success(long targetCount, @JsonInclude(JsonInclude.Include.NON_NULL) String queryVersion,
                          @JsonInclude(JsonInclude.Include.NON_EMPTY) List<Metric> metrics) {
        public Success {
            metrics = metrics == null ? List.of() : List.copyOf(metrics);
        }

        public Success(long targetCount) {
            this(targetCount, null, List.of());
        }
    }

    public record SuccessResult(boolean success, RunStatus runStatus, List<String> reasons) {
        public SuccessResult {
            requireNonNull(runStatus, "runStatus is null");
            reasons = reasons == null ? List.of() : List.copyOf(reasons);
        }
    }
}

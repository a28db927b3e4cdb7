package io.loadgate.api;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.math.BigInteger;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Requests and responses of the run endpoints: {@code /v1/runs}, manifest, fail, and the reads. */
public final class RunApi {
    private RunApi() {
    }

    /**
     * {@code POST /v1/runs}. {@code afterRun} (extension, absent unless given): the create is a compare-and-set on the
     * key's history, made only while the key's latest run is {@code afterRun.runId()} (null: while the key has no
     * run), else refused with 409 {@link ErrorCode#STALE_PLAN}; a caller that planned after one run thus never creates
     * a run of that plan once another run of the key was created since.
     */
    public record CreateRun(JobKey jobKey, BusinessKey businessKey, String hdfsRoot, String stageTablePrefix,
                            boolean allowEmptySource, Map<String, Object> parameters, Executor executor,
                            String recoveryMode, @JsonInclude(JsonInclude.Include.NON_NULL) AfterRun afterRun) {
        public CreateRun {
            requireNonNull(jobKey, "jobKey is null");
            requireNonNull(businessKey, "businessKey is null");
            requireNonNull(hdfsRoot, "hdfsRoot is null");
            requireNonNull(stageTablePrefix, "stageTablePrefix is null");
            parameters = ordered(parameters);
            requireNonNull(executor, "executor is null");
        }

        /** A create with no precondition on the key's history, as the seed API knows it. */
        public CreateRun(JobKey jobKey, BusinessKey businessKey, String hdfsRoot, String stageTablePrefix,
                         boolean allowEmptySource, Map<String, Object> parameters, Executor executor,
                         String recoveryMode) {
            this(jobKey, businessKey, hdfsRoot, stageTablePrefix, allowEmptySource, parameters, executor, recoveryMode,
                    null);
        }

        /** A run for Loadgate workers, with no parameters, that refuses an empty source. */
        public static CreateRun forWorkers(JobKey jobKey, BusinessKey businessKey, String hdfsRoot, String stageTablePrefix) {
            return new CreateRun(jobKey, businessKey, hdfsRoot, stageTablePrefix, false, Map.of(), Executor.WORKER, null);
        }

        public CreateRun withParameters(Map<String, Object> newParameters) {
            return new CreateRun(jobKey, businessKey, hdfsRoot, stageTablePrefix, allowEmptySource, newParameters, executor,
                    recoveryMode, afterRun);
        }

        public CreateRun withExecutor(Executor newExecutor) {
            return new CreateRun(jobKey, businessKey, hdfsRoot, stageTablePrefix, allowEmptySource, parameters, newExecutor,
                    recoveryMode, afterRun);
        }

        /** The run's own recovery mode (FAIL or REISSUE) instead of the server's. */
        public CreateRun withRecoveryMode(String mode) {
            return new CreateRun(jobKey, businessKey, hdfsRoot, stageTablePrefix, allowEmptySource, parameters, executor,
                    mode, afterRun);
        }

        public CreateRun allowingEmptySource() {
            return new CreateRun(jobKey, businessKey, hdfsRoot, stageTablePrefix, true, parameters, executor, recoveryMode,
                    afterRun);
        }

        /** Only while the key's latest run is {@code latestRun}, or, with null, while the key has no run. */
        public CreateRun afterRun(RunId latestRun) {
            return new CreateRun(jobKey, businessKey, hdfsRoot, stageTablePrefix, allowEmptySource, parameters, executor,
                    recoveryMode, new AfterRun(latestRun));
        }
    }

    /**
     * The precondition of a create (extension): the key's latest run, or null for a key that has none; the null is
     * written, whatever a client's mapper does with nulls, since an absent runId is refused.
     */
    public record AfterRun(@JsonInclude(JsonInclude.Include.ALWAYS) RunId runId) {
    }

    /**
     * What a client's {@code createRun(CreateRun, OnLostResponse)} does when a retried create is refused with
     * 409 DUPLICATE_ACTIVE_RUN after an earlier attempt may have reached the ledger: the active run may be the one
     * the lost attempt created, or a run someone else created meanwhile; the ledger cannot tell which.
     */
    public enum OnLostResponse {
        /** Throw the 409; the caller decides (details.activeRunId names the active run). */
        FAIL,
        /** Return the active run, marked {@link CreatedRun#adopted()}, when its paths match the request. */
        ADOPT_ACTIVE_RUN
    }

    /** {@code POST /v1/runs}'s answer. */
    public record RunCreated(RunId runId, RunStatus status, String hdfsRunPath, String stageTable) {
        public RunCreated {
            requireNonNull(runId, "runId is null");
            requireNonNull(status, "status is null");
        }
    }

    /**
     * The new run as a client's create returns it; {@code adopted} (never on the wire) is true when it was taken over
     * after a lost response (see {@link OnLostResponse}).
     */
    public record CreatedRun(RunId runId, RunStatus status, String hdfsRunPath, String stageTable,
                             @JsonIgnore boolean adopted) {
        public CreatedRun {
            requireNonNull(runId, "runId is null");
            requireNonNull(status, "status is null");
        }
    }

    /**
     * A manifest partition: a half-open range of the split column, the NULL partition, or a source file (sourceRef,
     * extension). Bounds are decimal strings; an absent bound or sourceRef is left out, as the ledger echoes it.
     */
    public record ManifestPartition(PartitionId partitionId,
                                    @JsonInclude(JsonInclude.Include.NON_NULL)
                                    @JsonFormat(shape = JsonFormat.Shape.STRING) BigInteger lowerBound,
                                    @JsonInclude(JsonInclude.Include.NON_NULL)
                                    @JsonFormat(shape = JsonFormat.Shape.STRING) BigInteger upperBound,
                                    boolean upperInclusive,
                                    @JsonProperty("isNullPartition") boolean isNullPartition,
                                    long expectedRowCount,
                                    @JsonInclude(JsonInclude.Include.NON_NULL) String sourceRef) {
        public ManifestPartition {
            requireNonNull(partitionId, "partitionId is null");
        }

        public static ManifestPartition range(PartitionId partitionId, BigInteger lowerBound, BigInteger upperBound,
                                              boolean upperInclusive, long expectedRowCount) {
            return new ManifestPartition(partitionId, lowerBound, upperBound, upperInclusive, false, expectedRowCount,
                    null);
        }

        public static ManifestPartition nullPartition(long expectedRowCount) {
            return new ManifestPartition(PartitionId.of("NULL"), null, null, false, true, expectedRowCount, null);
        }
    }

    /**
     * {@code POST /v1/runs/{runId}/manifest}: the plan and the source's numbers at one snapshot.
     * {@code sourceMetricsPending} (extension, left out unless true): the source's metrics are measured at the same
     * snapshot while the partitions extract and come later, with {@link SourceMetrics}; {@code sourceMetrics} is then
     * empty.
     */
    public record Manifest(@JsonFormat(shape = JsonFormat.Shape.STRING) BigInteger snapshotScn, String snapshotRef,
                           long sourceCount, long sourceNullSplitCount,
                           @JsonFormat(shape = JsonFormat.Shape.STRING) BigInteger sourceMinSplit,
                           @JsonFormat(shape = JsonFormat.Shape.STRING) BigInteger sourceMaxSplit,
                           int plannedPartitionCount,
                           Map<String, String> sourceMetrics, String sourceMetricsVersion,
                           List<ManifestPartition> partitions,
                           @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean sourceMetricsPending) {
        public Manifest {
            if (snapshotScn == null && snapshotRef == null) {
                throw new IllegalArgumentException("snapshotScn or snapshotRef is required");
            }
            sourceMetrics = ordered(sourceMetrics);
            partitions = List.copyOf(requireNonNull(partitions, "partitions is null"));
            if (sourceMetricsPending && !sourceMetrics.isEmpty()) {
                throw new IllegalArgumentException("a manifest whose source metrics are pending carries none");
            }
        }

        /** The contract's manifest, carrying its source metrics (what a NiFi flow sends). */
        public Manifest(BigInteger snapshotScn, String snapshotRef, long sourceCount, long sourceNullSplitCount,
                        BigInteger sourceMinSplit, BigInteger sourceMaxSplit, int plannedPartitionCount,
                        Map<String, String> sourceMetrics, String sourceMetricsVersion,
                        List<ManifestPartition> partitions) {
            this(snapshotScn, snapshotRef, sourceCount, sourceNullSplitCount, sourceMinSplit, sourceMaxSplit,
                    plannedPartitionCount, sourceMetrics, sourceMetricsVersion, partitions, false);
        }
    }

    /**
     * {@code PUT /v1/runs/{runId}/source-metrics} (extension): the source's metrics at the run's snapshot, for a run
     * whose manifest said they were pending.
     */
    public record SourceMetrics(Map<String, String> sourceMetrics, String sourceMetricsVersion) {
        public SourceMetrics {
            sourceMetrics = ordered(requireNonNull(sourceMetrics, "sourceMetrics is null"));
        }
    }

    /**
     * {@link SourceMetrics}' answer: {@code changed} is false for the same metrics sent again;
     * {@code validationScheduled} is true when extraction had already ended and the staging validation was
     * scheduled by these metrics.
     */
    public record SourceMetricsAccepted(RunId runId, RunStatus runStatus, boolean changed,
                                        boolean validationScheduled) {
        public SourceMetricsAccepted {
            requireNonNull(runId, "runId is null");
            requireNonNull(runStatus, "runStatus is null");
        }
    }

    /** The manifest's answer: the partitions to extract (those expecting rows) and the run's new state. */
    public record ManifestAccepted(RunId runId, RunStatus status, List<ManifestPartition> dispatchPartitions,
                                   int emptyPartitionCount, boolean validationScheduled) {
        public ManifestAccepted {
            requireNonNull(runId, "runId is null");
            requireNonNull(status, "status is null");
            dispatchPartitions = dispatchPartitions == null ? List.of() : List.copyOf(dispatchPartitions);
        }
    }

    /** {@code POST /v1/runs/{runId}/fail}: only the contract's allowed (expectedStatus, failStatus) pairs. */
    public record FailRun(RunStatus expectedStatus, RunStatus failStatus, String errorStage, String errorCode,
                          String message) {
        public FailRun {
            requireNonNull(expectedStatus, "expectedStatus is null");
            requireNonNull(failStatus, "failStatus is null");
        }
    }

    /**
     * A run-level compare-and-set's answer; {@code changed} is false when the run already was in the target state.
     * {@code publish/result} answers without the runId (null here, and then left out).
     */
    public record RunChange(@JsonInclude(JsonInclude.Include.NON_NULL) RunId runId, RunStatus runStatus,
                            boolean changed) {
        public RunChange {
            requireNonNull(runStatus, "runStatus is null");
        }
    }

    /**
     * {@code POST /v1/runs/{runId}/heartbeat}'s answer (extension): {@code beating} is whether the beat counted (the
     * run is a Spark run and still EXTRACTING); {@code heartbeatIntervalMillis} is how often the ledger expects it.
     */
    public record RunBeat(RunId runId, RunStatus runStatus, boolean beating, Long heartbeatIntervalMillis) {
        public RunBeat {
            requireNonNull(runId, "runId is null");
            requireNonNull(runStatus, "runStatus is null");
        }
    }

    /** {@code GET /v1/runs} filters; null means any. */
    public record RunFilter(JobKey jobKey, BusinessKey businessKey, RunStatus status, Integer limit) {
        public RunFilter {
            if (limit != null && (limit < 1 || limit > 1000)) {
                throw new IllegalArgumentException("limit must be between 1 and 1000, got " + limit);
            }
        }

        public static RunFilter all() {
            return new RunFilter(null, null, null, null);
        }
    }

    /**
     * A run as {@code GET /v1/runs} lists it (and the monitor's activeRuns): the run's own fields, no partitions.
     * {@code rejectedCount}, {@code progressRows} and {@code targetState} (SUCCESS runs only, else absent) are
     * extensions.
     */
    public record RunSummary(RunId runId, JobKey jobKey, BusinessKey businessKey, RunStatus status, String executor,
                             String snapshotScn, String snapshotRef, Long sourceCount, Long expectedPartitionCount,
                             long successPartitionCount, long failedPartitionCount, long extractedCount,
                             long rejectedCount, long progressRows, Long stagingCount, Long targetCount,
                             String targetRef, String hdfsRunPath, String stageTable, Instant startedAt,
                             Instant heartbeatAt, Instant extractCompletedAt, Instant completedAt, String errorStage,
                             String errorCode, String errorMessage,
                             @JsonInclude(JsonInclude.Include.NON_NULL) TargetState targetState) {
        public RunSummary {
            requireNonNull(runId, "runId is null");
            requireNonNull(status, "status is null");
        }
    }

    /**
     * A run as {@code GET /v1/runs/{runId}} shows it: the {@link RunSummary} fields, then parameters and
     * sourceMetrics (extensions), partitionCounts, partitions and dispatches. Runs from {@code GET /v1/runs} carry no partitions, counts
     * or dispatches (empty here). {@code sourceMetricsPending} (extension, single-run view, left out unless true): the
     * manifest said its source metrics follow and they have not come yet, so {@code sourceMetrics} is empty for now,
     * not for good. {@code progressRows} (never null here) is {@code extractedCount} plus the rows
     * read of partitions whose chunks are not reported yet: what a progress bar shows while extracting.
     */
    @JsonPropertyOrder({"runId", "jobKey", "businessKey", "status", "executor", "snapshotScn", "snapshotRef",
        "sourceCount", "expectedPartitionCount", "successPartitionCount", "failedPartitionCount", "extractedCount",
        "rejectedCount", "progressRows", "stagingCount", "targetCount", "targetRef", "hdfsRunPath", "stageTable",
        "startedAt", "heartbeatAt", "extractCompletedAt", "completedAt", "errorStage", "errorCode", "errorMessage",
        "targetState", "parameters", "sourceMetrics", "sourceMetricsPending", "partitionCounts", "partitions",
        "dispatches"})
    public record RunView(RunId runId, JobKey jobKey, BusinessKey businessKey, RunStatus status, String executor,
                          String snapshotScn, String snapshotRef, Long sourceCount, Long expectedPartitionCount,
                          long successPartitionCount, long failedPartitionCount, long extractedCount, long rejectedCount,
                          Long progressRows, Long stagingCount, Long targetCount, String targetRef, String hdfsRunPath,
                          String stageTable, Instant startedAt, Instant heartbeatAt, Instant extractCompletedAt,
                          Instant completedAt, String errorStage, String errorCode, String errorMessage,
                          Map<String, Long> partitionCounts, List<PartitionView> partitions,
                          List<DispatchView> dispatches, Map<String, Object> parameters,
                          Map<String, String> sourceMetrics,
                          @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean sourceMetricsPending,
                          @JsonInclude(JsonInclude.Include.NON_NULL) TargetState targetState) {
        public RunView {
            // A ledger from before progressRows counts only reported chunks; so does its extractedCount.
            progressRows = progressRows == null ? extractedCount : progressRows;
            sourceMetrics = ordered(sourceMetrics);
            parameters = ordered(parameters);
            requireNonNull(runId, "runId is null");
            requireNonNull(status, "status is null");
            partitionCounts = ordered(partitionCounts);
            partitions = partitions == null ? List.of() : List.copyOf(partitions);
            dispatches = dispatches == null ? List.of() : List.copyOf(dispatches);
        }

        /** The single-run view: a run's summary and its details. */
        public static RunView of(RunSummary run, Map<String, Object> parameters, Map<String, String> sourceMetrics,
                                 boolean sourceMetricsPending, Map<String, Long> partitionCounts, List<PartitionView> partitions,
                                 List<DispatchView> dispatches) {
            return new RunView(run.runId(), run.jobKey(), run.businessKey(), run.status(), run.executor(),
                    run.snapshotScn(), run.snapshotRef(), run.sourceCount(), run.expectedPartitionCount(),
                    run.successPartitionCount(), run.failedPartitionCount(), run.extractedCount(), run.rejectedCount(),
                    run.progressRows(), run.stagingCount(), run.targetCount(), run.targetRef(), run.hdfsRunPath(),
                    run.stageTable(), run.startedAt(), run.heartbeatAt(), run.extractCompletedAt(), run.completedAt(),
                    run.errorStage(), run.errorCode(), run.errorMessage(), partitionCounts, partitions, dispatches,
                    parameters, sourceMetrics, sourceMetricsPending, run.targetState());
        }

        /**
         * This view without its parameters, for the viewer role: they carry the job's spec, whose catalog settings may
         * hold a credential that only the processes running the job need.
         */
        public RunView withoutParameters() {
            return new RunView(runId, jobKey, businessKey, status, executor, snapshotScn, snapshotRef, sourceCount,
                    expectedPartitionCount, successPartitionCount, failedPartitionCount, extractedCount, rejectedCount,
                    progressRows, stagingCount, targetCount, targetRef, hdfsRunPath, stageTable, startedAt, heartbeatAt,
                    extractCompletedAt, completedAt, errorStage, errorCode, errorMessage, partitionCounts, partitions,
                    dispatches, Map.of(), sourceMetrics, sourceMetricsPending, targetState);
        }
    }

    /**
     * {@code linesRead}, {@code linesSkipped}, {@code rowsEmitted} (extension, absent unless a mapper gave the
     * partition's rows and it was judged): what the mapper did; {@code expectedRowCount} is then its lines.
     */
    public record PartitionView(PartitionId partitionId, PartitionStatus status, long expectedRowCount, Long actualRowCount,
                                long fileCount, int attemptCount, String workerNode, String errorCode,
                                Long rowsRead, @JsonInclude(JsonInclude.Include.NON_NULL) Long linesRead,
                                @JsonInclude(JsonInclude.Include.NON_NULL) Long linesSkipped,
                                @JsonInclude(JsonInclude.Include.NON_NULL) Long rowsEmitted) {
        public PartitionView {
            requireNonNull(partitionId, "partitionId is null");
            requireNonNull(status, "status is null");
        }
    }

    public record DispatchView(UUID dispatchId, DispatchType dispatchType, PartitionId partitionId,
                               DispatchStatus status, int attemptCount, Instant sentAt, Instant ackedAt) {
        public DispatchView {
            requireNonNull(dispatchId, "dispatchId is null");
            requireNonNull(dispatchType, "dispatchType is null");
            requireNonNull(status, "status is null");
        }
    }

    /** One entry of a run's event log, oldest first by {@code eventId}. */
    public record Event(long eventId, PartitionId partitionId, String eventType, String fromStatus, String toStatus,
                        String actor, Map<String, Object> details, Instant createdAt) {
        public Event {
            requireNonNull(eventType, "eventType is null");
            details = ordered(details);
        }
    }

    /**
     * An unmodifiable copy that keeps the order the map was built in (the server writes maps in that order; Map.copyOf
     * would not keep it) and allows null values (a JSON null is a legal parameter value).
     */
    static <V> Map<String, V> ordered(Map<String, V> map) {
        return map == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(map));
    }
}

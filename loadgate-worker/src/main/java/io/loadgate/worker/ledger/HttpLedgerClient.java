package io.loadgate.worker.ledger;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.loadgate.api.BusinessKey;
import io.loadgate.api.DispatchApi;
import io.loadgate.api.DispatchApi.Lease;
import io.loadgate.api.DispatchApi.LeasedDispatch;
import io.loadgate.api.ErrorCode;
import io.loadgate.api.JobKey;
import io.loadgate.api.KeyHolders;
import io.loadgate.api.MonitorHistory;
import io.loadgate.api.JobKey;
import io.loadgate.api.LoadedKey;
import io.loadgate.api.OperatorApi;
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
import io.loadgate.api.RunApi;
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
import io.loadgate.api.RunId;
import io.loadgate.api.RunStatus;
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
import java.io.IOException;
import java.math.BigInteger;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link LedgerClient} over {@link HttpClient} (HTTP/1.1) and Jackson. Unknown response fields are ignored, so
 * the ledger may add fields without breaking workers. Each logical call sends one {@code X-Request-Id} on every
 * attempt, so the ledger's log ties the attempts together.
 */
public final class HttpLedgerClient implements LedgerClient {
    private static final Logger LOG = LoggerFactory.getLogger(HttpLedgerClient.class);

    /** The client's JSON: ISO-8601 times, decimal strings for big integers, nulls left out, unknown fields ignored. */
    public static final ObjectMapper JSON = JsonMapper.builder()
            .addModule(new JavaTimeModule())
            .addModule(new SimpleModule("decimal-strings").addSerializer(BigInteger.class, ToStringSerializer.instance))
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .serializationInclusion(JsonInclude.Include.NON_NULL)
            .build();

    private static final int MAX_ERROR_BODY = 300;

    /** Whether a call may be sent again after an attempt that may have reached the ledger (see {@link LedgerClient}). */
    private enum Repeat {
        /** The contract gives the same decision to the same request sent again. */
        REPEATABLE,
        /** Sent again only when no earlier attempt can have reached the ledger. */
        ONCE
    }

    /** {@code idempotencyKey}: sent as {@code Idempotency-Key} on every attempt, or null for none. */
    private record Call(String method, String path, Object body, JavaType responseType, Repeat repeat,
                        Duration timeout, String idempotencyKey) {
        Call(String method, String path, Object body, JavaType responseType, Repeat repeat, Duration timeout) {
            this(method, path, body, responseType, repeat, timeout, null);
        }

        String name() {
            return method + " " + path;
        }
    }

    private final LedgerClientConfig config;
    private final HttpClient http;
    private final String base;

    private HttpLedgerClient(LedgerClientConfig config, HttpClient http) {
        this.config = config;
        this.http = http;
        String uri = config.baseUri().toString();
        this.base = uri.endsWith("/") ? uri.substring(0, uri.length() - 1) : uri;
    }

    public static HttpLedgerClient create(LedgerClientConfig config) {
        requireNonNull(config, "config is null");
        HttpClient http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(config.connectTimeout())
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
        return new HttpLedgerClient(config, http);
    }

    public LedgerClientConfig config() {
        return config;
    }

    // ---- runs

    @Override
    public CreatedRun createRun(CreateRun request, OnLostResponse onLostResponse, String idempotencyKey) {
        requireNonNull(request, "request is null");
        requireNonNull(onLostResponse, "onLostResponse is null");
        // One key for every attempt of this create, so that the ledger answers a retry (or a copy of the request
        // that a proxy duplicated) with the run the first attempt made, rather than a second run or a 409.
        Call call = new Call("POST", "/v1/runs", request, type(RunApi.RunCreated.class), Repeat.REPEATABLE,
                config.requestTimeout(), idempotencyKey == null ? UUID.randomUUID().toString() : idempotencyKey);
        Attempts attempts = new Attempts();
        try {
            RunApi.RunCreated created = execute(call, attempts);
            return new CreatedRun(created.runId(), created.status(), created.hdfsRunPath(), created.stageTable(), false);
        } catch (LedgerCallException e) {
            // Only a retry can meet its own lost create; a 409 on an attempt that follows nothing but refused
            // connections is a real duplicate.
            if (!e.isConflict() || !e.is(ErrorCode.DUPLICATE_ACTIVE_RUN) || !attempts.mayHaveReachedBeforeLast
                    || onLostResponse != OnLostResponse.ADOPT_ACTIVE_RUN) {
                throw e;
            }
            Object active = e.details().get("activeRunId");
            if (active == null) {
                throw e;
            }
            RunView run = getRun(RunId.of(active.toString()));
            String expectedPath = stripSlash(request.hdfsRoot()) + "/" + request.jobKey() + "/run_id=" + run.runId();
            String expectedTable = request.stageTablePrefix() + run.runId().hex();
            if (run.status() != RunStatus.CREATED || !expectedPath.equals(run.hdfsRunPath())
                    || !expectedTable.equals(run.stageTable())) {
                throw e;
            }
            LOG.info("create of {}/{} lost its answer; adopting the active run {}", request.jobKey(),
                    request.businessKey(), run.runId());
            return new CreatedRun(run.runId(), run.status(), run.hdfsRunPath(), run.stageTable(), true);
        }
    }

    private static String stripSlash(String path) {
        String p = path;
        while (p.length() > 1 && p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        return p;
    }

    @Override
    public ManifestAccepted registerManifest(RunId runId, Manifest manifest) {
        requireNonNull(manifest, "manifest is null");
        return execute(post(run(runId) + "/manifest", manifest, type(ManifestAccepted.class), Repeat.REPEATABLE));
    }

    @Override
    public RunBeat heartbeatRun(RunId runId) {
        return execute(post(run(runId) + "/heartbeat", Map.of(), type(RunBeat.class), Repeat.REPEATABLE));
    }

    @Override
    public RunApi.SourceMetricsAccepted recordSourceMetrics(RunId runId, RunApi.SourceMetrics metrics) {
        requireNonNull(metrics, "metrics is null");
        return execute(new Call("PUT", run(runId) + "/source-metrics", metrics,
                type(RunApi.SourceMetricsAccepted.class), Repeat.REPEATABLE, config.requestTimeout()));
    }

    @Override
    public RunChange failRun(RunId runId, FailRun request) {
        requireNonNull(request, "request is null");
        return execute(post(run(runId) + "/fail", request, type(RunChange.class), Repeat.REPEATABLE));
    }

    @Override
    public RunView getRun(RunId runId) {
        return execute(get(run(runId), type(RunView.class)));
    }

    @Override
    public List<RunView> listRuns(RunFilter filter) {
        requireNonNull(filter, "filter is null");
        Map<String, Object> query = new LinkedHashMap<>();
        query.put("jobKey", filter.jobKey());
        query.put("businessKey", filter.businessKey());
        query.put("status", filter.status());
        query.put("limit", filter.limit());
        return execute(get("/v1/runs" + query(query), listOf(RunView.class)));
    }

    @Override
    public List<LoadedKey> loadedDirectories(String jobKey) {
        requireNonNull(jobKey, "jobKey is null");
        return execute(get("/v1/jobs/" + JobKey.of(jobKey).value() + "/loaded-directories", listOf(LoadedKey.class)));
    }

    @Override
    public List<Event> events(RunId runId, long afterEventId, int limit) {
        Map<String, Object> query = new LinkedHashMap<>();
        query.put("after", afterEventId);
        query.put("limit", limit);
        return execute(get(run(runId) + "/events" + query(query), listOf(Event.class)));
    }

    // ---- partitions

    @Override
    public ClaimResult claim(RunId runId, PartitionId partitionId, Claim claim) {
        requireNonNull(claim, "claim is null");
        return execute(post(partition(runId, partitionId) + "/claim", claim, type(ClaimResult.class),
                Repeat.REPEATABLE));
    }

    @Override
    public ChunkResult reportChunk(RunId runId, PartitionId partitionId, ChunkReport report) {
        requireNonNull(report, "report is null");
        return execute(post(partition(runId, partitionId) + "/chunks", report, type(ChunkResult.class),
                Repeat.REPEATABLE));
    }

    @Override
    public FailResult failPartition(RunId runId, PartitionId partitionId, PartitionFailure failure) {
        requireNonNull(failure, "failure is null");
        return execute(post(partition(runId, partitionId) + "/fail", failure, type(FailResult.class),
                Repeat.REPEATABLE));
    }

    @Override
    public HeartbeatResult heartbeat(RunId runId, PartitionId partitionId, PartitionHeartbeat beat) {
        requireNonNull(beat, "beat is null");
        return execute(post(partition(runId, partitionId) + "/heartbeat", beat, type(HeartbeatResult.class),
                Repeat.REPEATABLE));
    }

    // ---- validation, publish, success

    @Override
    public ValidationStarted startValidation(RunId runId, StartValidation request) {
        requireNonNull(request, "request is null");
        return execute(post(run(runId) + "/validation/start", request, type(ValidationStarted.class),
                Repeat.REPEATABLE));
    }

    @Override
    public StepApi.ValidationBeat heartbeatValidation(RunId runId, StartValidation request) {
        requireNonNull(request, "request is null");
        return execute(post(run(runId) + "/validation/heartbeat", request, type(StepApi.ValidationBeat.class),
                Repeat.REPEATABLE));
    }

    @Override
    public ValidationsRecorded recordValidations(RunId runId, Validations validations) {
        requireNonNull(validations, "validations is null");
        return execute(post(run(runId) + "/validations", validations, type(ValidationsRecorded.class),
                Repeat.REPEATABLE));
    }

    @Override
    public StageVerdict stageValidated(RunId runId, StageValidated request) {
        requireNonNull(request, "request is null");
        return execute(post(run(runId) + "/stage-validated", request, type(StageVerdict.class), Repeat.REPEATABLE));
    }

    @Override
    public PublishClaim publishClaim(RunId runId, UUID publishToken) {
        requireNonNull(publishToken, "publishToken is null");
        return execute(post(run(runId) + "/publish/claim", new StepApi.ClaimPublish(publishToken),
                type(PublishClaim.class), Repeat.REPEATABLE));
    }

    @Override
    public PublishRecorded publishResult(RunId runId, PublishResult result) {
        requireNonNull(result, "result is null");
        return execute(post(run(runId) + "/publish/result", result, type(PublishRecorded.class), Repeat.REPEATABLE));
    }

    @Override
    public SuccessResult success(RunId runId, Success request) {
        requireNonNull(request, "request is null");
        return execute(post(run(runId) + "/success", request, type(SuccessResult.class), Repeat.REPEATABLE));
    }

    // ---- operator, probe, cleanup, monitor

    @Override
    public RunChange cancelRun(RunId runId, Cancel cancel) {
        requireNonNull(cancel, "cancel is null");
        return execute(post(run(runId) + "/cancel", cancel, type(RunChange.class), Repeat.REPEATABLE));
    }

    @Override
    public RunChange resolvePublishUnknown(RunId runId, Resolve resolve) {
        requireNonNull(resolve, "resolve is null");
        return execute(post(run(runId) + "/publish-unknown/resolve", resolve, type(RunChange.class), Repeat.ONCE));
    }

    @Override
    public RunChange recordRollback(RunId runId, Rollback rollback) {
        requireNonNull(rollback, "rollback is null");
        return execute(post(run(runId) + "/rollback", rollback, type(RunChange.class), Repeat.REPEATABLE));
    }

    @Override
    public List<StepApi.ValidationView> validations(RunId runId) {
        return execute(get(run(runId) + "/validations", listOf(StepApi.ValidationView.class)));
    }

    @Override
    public List<StagedFile> files(RunId runId) {
        return execute(get(run(runId) + "/files", listOf(StagedFile.class)));
    }

    @Override
    public RunChange probePublishUnknown(RunId runId, PublishProbe probe) {
        requireNonNull(probe, "probe is null");
        return execute(post(run(runId) + "/publish-unknown/probe", probe, type(RunChange.class), Repeat.ONCE));
    }

    @Override
    public Resent resendDispatch(RunId runId, UUID dispatchId) {
        requireNonNull(dispatchId, "dispatchId is null");
        return execute(post(run(runId) + "/dispatches/" + dispatchId + "/resend", Map.of(), type(Resent.class),
                Repeat.ONCE));
    }

    @Override
    public DispatchApi.Released releaseDispatch(UUID dispatchId, String node) {
        requireNonNull(dispatchId, "dispatchId is null");
        return execute(post("/v1/dispatches/" + dispatchId + "/release", new DispatchApi.Release(node),
                type(DispatchApi.Released.class), Repeat.REPEATABLE));
    }

    @Override
    public List<LeasedDispatch> leaseDispatches(Lease lease) {
        requireNonNull(lease, "lease is null");
        Duration timeout = Duration.ofSeconds(lease.waitSeconds()).plus(config.longPollMargin());
        return execute(new Call("POST", "/v1/dispatches/lease", lease, listOf(LeasedDispatch.class),
                Repeat.REPEATABLE, timeout));
    }

    @Override
    public List<CleanupCandidate> cleanupCandidates() {
        return execute(get("/v1/cleanup/candidates", listOf(CleanupCandidate.class)));
    }

    @Override
    public CleanupResult cleanup(RunId runId, Cleanup cleanup) {
        requireNonNull(cleanup, "cleanup is null");
        return execute(post(run(runId) + "/cleanup", cleanup, type(CleanupResult.class), Repeat.REPEATABLE));
    }

    @Override
    public CleanupResult cleanupSkipped(RunId runId, String reason) {
        requireNonNull(reason, "reason is null");
        return execute(post(run(runId) + "/cleanup/skipped", new OperatorApi.CleanupSkipped(reason),
                type(CleanupResult.class), Repeat.REPEATABLE));
    }

    @Override
    public MonitorSummary monitorSummary() {
        return execute(get("/v1/monitor/summary", type(MonitorSummary.class)));
    }

    @Override
    public MonitorHistory monitorHistory(JobKey jobKey, Instant from, MonitorHistory.Bucket bucket) {
        requireNonNull(bucket, "bucket is null");
        Map<String, Object> query = new LinkedHashMap<>();
        query.put("job", jobKey);
        query.put("from", from);
        query.put("bucket", bucket.wire());
        return execute(get("/v1/monitor/history" + query(query), type(MonitorHistory.class)));
    }

    @Override
    public KeyHolders keyHolders(JobKey jobKey, BusinessKey after, int limit) {
        requireNonNull(jobKey, "jobKey is null");
        Map<String, Object> query = new LinkedHashMap<>();
        query.put("after", after);
        query.put("limit", limit);
        return execute(get("/v1/jobs/" + URLEncoder.encode(jobKey.value(), StandardCharsets.UTF_8) + "/keys" + query(query),
                type(KeyHolders.class)));
    }

    // ---- the call loop

    private Call post(String path, Object body, JavaType responseType, Repeat repeat) {
        return new Call("POST", path, body, responseType, repeat, config.requestTimeout());
    }

    private Call get(String path, JavaType responseType) {
        return new Call("GET", path, null, responseType, Repeat.REPEATABLE, config.requestTimeout());
    }

    private static String run(RunId runId) {
        return "/v1/runs/" + requireNonNull(runId, "runId is null");
    }

    private static String partition(RunId runId, PartitionId partitionId) {
        return run(runId) + "/partitions/"
                + URLEncoder.encode(requireNonNull(partitionId, "partitionId is null").value(), StandardCharsets.UTF_8);
    }

    private static String query(Map<String, Object> params) {
        StringBuilder query = new StringBuilder();
        params.forEach((name, value) -> {
            if (value != null) {
                query.append(query.length() == 0 ? '?' : '&').append(name).append('=')
                        .append(URLEncoder.encode(value.toString(), StandardCharsets.UTF_8));
            }
        });
        return query.toString();
    }

    private static JavaType type(Class<?> type) {
        return JSON.getTypeFactory().constructType(type);
    }

    private static JavaType listOf(Class<?> type) {
        return JSON.getTypeFactory().constructCollectionType(List.class, type);
    }

    /** What the attempts of one call have seen so far. */
    private static final class Attempts {
        final String requestId = UUID.randomUUID().toString();
        final long startedNanos = System.nanoTime();
        int made;
        /** Some attempt before the current one may have reached the ledger (its outcome is unknown). */
        boolean mayHaveReachedBeforeLast;
        boolean mayHaveReached;

        void start() {
            made++;
            mayHaveReachedBeforeLast = mayHaveReached;
        }

        Duration elapsed() {
            return Duration.ofNanos(System.nanoTime() - startedNanos);
        }
    }

    private <T> T execute(Call call) {
        return execute(call, new Attempts());
    }

    private <T> T execute(Call call, Attempts attempts) {
        byte[] body = call.body() == null ? null : write(call.body());
        Duration window = config.retry().window();
        while (true) {
            attempts.start();
            Optional<LedgerCallException> failure;
            try {
                HttpResponse<byte[]> response = http.send(request(call, body, attempts.requestId),
                        HttpResponse.BodyHandlers.ofByteArray());
                int status = response.statusCode();
                if (status >= 200 && status < 300) {
                    return read(call, response);
                }
                attempts.mayHaveReached = true;
                LedgerCallException error = errorFrom(call, response, attempts);
                // 4xx is the ledger's decision and stays so; a 5xx says the request was not decided (a 503 while
                // the ledger's database is away), or that it failed in a transaction that was rolled back.
                boolean retryable = status >= 500 && call.repeat() == Repeat.REPEATABLE;
                if (!retryable || windowOver(attempts, window)) {
                    throw error;
                }
                failure = Optional.of(error);
            } catch (ConnectException | HttpConnectTimeoutException e) {
                // No connection was made: the ledger saw nothing, so any call may be sent again.
                if (windowOver(attempts, window)) {
                    throw noAnswer(call, attempts, e);
                }
                failure = Optional.empty();
                LOG.debug("{}: attempt {} could not connect: {}", call.name(), attempts.made, e.toString());
            } catch (IOException e) {
                // The request may have been read and applied; only a repeatable call may be sent again.
                attempts.mayHaveReached = true;
                if (call.repeat() != Repeat.REPEATABLE || windowOver(attempts, window)) {
                    throw noAnswer(call, attempts, e);
                }
                failure = Optional.empty();
                LOG.debug("{}: attempt {} got no answer: {}", call.name(), attempts.made, e.toString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LedgerCallException(call.name(), 0, LedgerCallException.INTERRUPTED,
                        "interrupted while waiting for the ledger", attempts.requestId, Map.of(), attempts.made, e);
            }
            failure.ifPresent(error -> LOG.debug("{}: attempt {} answered {} {}", call.name(), attempts.made,
                    error.status(), error.code()));
            if (attempts.made == 1) {
                LOG.info("{}: the ledger did not answer ({}); retrying for up to {} s", call.name(),
                        failure.map(error -> error.status() + " " + error.code()).orElse("no connection or no answer"),
                        window.toSeconds());
            }
            sleep(call, attempts, window);
        }
    }

    private static boolean windowOver(Attempts attempts, Duration window) {
        return attempts.elapsed().compareTo(window) >= 0;
    }

    private HttpRequest request(Call call, byte[] body, String requestId) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + call.path()))
                .timeout(call.timeout())
                .header("Authorization", "Bearer " + config.token().value())
                .header("Accept", "application/json")
                .header("X-Request-Id", requestId);
        if (call.idempotencyKey() != null) {
            request.header("Idempotency-Key", call.idempotencyKey());
        }
        if (body == null) {
            request.GET();
        } else {
            request.header("Content-Type", "application/json")
                    .method(call.method(), HttpRequest.BodyPublishers.ofByteArray(body));
        }
        return request.build();
    }

    private void sleep(Call call, Attempts attempts, Duration window) {
        Duration wait = config.retry().backoff(attempts.made);
        // Equal jitter: at least half the backoff, so that retries still slow down, spread over the other half.
        long half = Math.max(1, wait.toMillis() / 2);
        long millis = half + ThreadLocalRandom.current().nextLong(half + 1);
        // The last attempt is made when the window ends, not a whole backoff after it.
        long left = window.minus(attempts.elapsed()).toMillis();
        try {
            Thread.sleep(Math.max(1, Math.min(millis, left)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LedgerCallException(call.name(), 0, LedgerCallException.INTERRUPTED,
                    "interrupted while waiting to retry", attempts.requestId, Map.of(), attempts.made, e);
        }
    }

    private LedgerCallException noAnswer(Call call, Attempts attempts, Exception cause) {
        String what = cause instanceof HttpConnectTimeoutException ? "connect timed out"
                : cause instanceof ConnectException ? "connection refused"
                : cause instanceof java.net.http.HttpTimeoutException ? "no answer within " + call.timeout().toSeconds() + " s"
                : cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        String tries = attempts.made == 1 ? "1 attempt" : attempts.made + " attempts in "
                + attempts.elapsed().toSeconds() + " s";
        if (attempts.mayHaveReached) {
            return new LedgerCallException(call.name(), 0, LedgerCallException.OUTCOME_UNKNOWN,
                    "no answer from the ledger at " + base + " after " + tries + " (" + what
                            + "); the request may have been applied", attempts.requestId, Map.of(), attempts.made, cause);
        }
        return new LedgerCallException(call.name(), 0, LedgerCallException.UNREACHABLE,
                "cannot reach the ledger at " + base + " after " + tries + " (" + what + ")", attempts.requestId,
                Map.of(), attempts.made, cause);
    }

    private static byte[] write(Object body) {
        try {
            return JSON.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot write " + body.getClass().getSimpleName() + " as JSON", e);
        }
    }

    private <T> T read(Call call, HttpResponse<byte[]> response) {
        try {
            return JSON.readValue(response.body(), call.responseType());
        } catch (IOException | RuntimeException e) {
            // A 2xx the client cannot read means client and ledger disagree on the contract: no retry helps.
            throw new LedgerCallException(call.name(), response.statusCode(), "RESPONSE_UNREADABLE",
                    "cannot read the ledger's answer as " + call.responseType().getGenericSignature() + ": "
                            + e.getMessage(), response.headers().firstValue("X-Request-Id").orElse(null), Map.of(), 1, e);
        }
    }

    private static LedgerCallException errorFrom(Call call, HttpResponse<byte[]> response, Attempts attempts) {
        int status = response.statusCode();
        String requestId = response.headers().firstValue("X-Request-Id").orElse(attempts.requestId);
        JsonNode envelope = null;
        try {
            envelope = response.body().length == 0 ? null : JSON.readTree(response.body());
        } catch (IOException notJson) {
            // a proxy's HTML page, say: reported below with the start of its text
        }
        if (envelope != null && envelope.isObject() && envelope.hasNonNull("code")) {
            Map<String, Object> details = new LinkedHashMap<>();
            JsonNode d = envelope.get("details");
            if (d != null && d.isObject()) {
                d.properties().forEach(entry -> details.put(entry.getKey(), JSON.convertValue(entry.getValue(), Object.class)));
            }
            String message = envelope.hasNonNull("message") ? envelope.get("message").asText() : "(no message)";
            if (envelope.hasNonNull("requestId")) {
                requestId = envelope.get("requestId").asText();
            }
            return new LedgerCallException(call.name(), status, envelope.get("code").asText(), message, requestId,
                    details, attempts.made, null);
        }
        if (envelope != null && envelope.isObject() && envelope.hasNonNull("title")) {
            // Javalin's own error body (RFC 7807 style), sent when a request asks for JSON and no route matched.
            return new LedgerCallException(call.name(), status, "HTTP_" + status, envelope.get("title").asText(),
                    requestId, Map.of(), attempts.made, null);
        }
        // Not the contract's envelope (a proxy's page, a framework's default error): one line of its text.
        String text = new String(response.body(), StandardCharsets.UTF_8).strip().replaceAll("\\s+", " ");
        if (text.length() > MAX_ERROR_BODY) {
            text = text.substring(0, MAX_ERROR_BODY) + "...";
        }
        return new LedgerCallException(call.name(), status, "HTTP_" + status,
                text.isEmpty() ? "HTTP " + status + " without a body" : text, requestId, Map.of(), attempts.made, null);
    }
}

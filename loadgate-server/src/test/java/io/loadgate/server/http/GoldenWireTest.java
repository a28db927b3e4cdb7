package io.loadgate.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.loadgate.api.BusinessKey;
import io.loadgate.api.ChunkKind;
import io.loadgate.api.DispatchApi;
import io.loadgate.api.DispatchType;
import io.loadgate.api.Executor;
import io.loadgate.api.JobKey;
import io.loadgate.api.OperatorApi;
import io.loadgate.api.PartitionApi;
import io.loadgate.api.PartitionId;
import io.loadgate.api.RunApi;
import io.loadgate.api.RunStatus;
import io.loadgate.api.StepApi;
import io.loadgate.server.testing.Runs;
import io.loadgate.server.testing.TestLedger;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The API answers byte for byte as the golden cases of loadgate-api ({@code golden/*.json}, the JSON of
 * docs/ledger-api-v1.md) say: field names, order, casing, nulls, status codes and error codes. One scenario drives
 * runs through every endpoint on a real database; ids and times are replaced by stable placeholders before the
 * comparison, nothing else. loadgate-api's GoldenRoundTripTest holds the same files against the records.
 *
 * <p>With {@code -Dloadgate.golden.record=DIR} the cases are written to DIR instead of compared: review the diff.
 */
class GoldenWireTest {
    private static final Pattern UUID_TEXT = Pattern.compile(
            "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32}");
    private static final Pattern INSTANT = Pattern.compile("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z");
    private static final String TIME = "2026-01-01T00:00:00Z";
    /** An event's actor: the role and the id of a token generated for this run of the test. */
    private static final Pattern ACTOR = Pattern.compile("\\b(worker|operator|viewer):[0-9a-f]{12}\\b");
    private static final ObjectMapper PLAIN = new ObjectMapper();
    private static final ObjectMapper PRETTY = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    @RegisterExtension
    static final TestLedger ledger = new TestLedger();
    private final Map<UUID, UUID> canonical = new HashMap<>();
    private final String recordTo = System.getProperty("loadgate.golden.record");
    private int cases;

    @Test
    void everyEndpointAnswersAsItsGoldenCase() {
        // Run A: the whole happy path, pulled by a worker.
        var create = RunApi.CreateRun.forWorkers(JobKey.of("GOLDEN"), BusinessKey.of("2026-11-29"), TestLedger.STAGE_ROOT, "stg_");
        JsonNode created = step("runs.create", "POST", "/v1/runs", "worker", create, 200);
        String run = created.get("runId").asText();
        step("runs.create.duplicate", "POST", "/v1/runs", "worker", create, 409);
        step("runs.manifest", "POST", "/v1/runs/" + run + "/manifest", "worker", manifest(10), 200);
        JsonNode leased = step("dispatches.lease", "POST", "/v1/dispatches/lease", "worker",
                lease("EXTRACT_PARTITION"), 200);
        assertThat(leased).as("leased").hasSize(1);
        UUID claimToken = fixed(1);
        String partition = "/v1/runs/" + run + "/partitions/0000";
        step("partitions.claim", "POST", partition + "/claim", "worker",
                new PartitionApi.Claim(claimToken, "node-1"), 200);
        step("partitions.heartbeat", "POST", partition + "/heartbeat", "worker",
                new PartitionApi.PartitionHeartbeat(claimToken, 4L), 200);
        step("partitions.chunks", "POST", partition + "/chunks", "worker",
                new PartitionApi.ChunkReport(claimToken, 0, 1, "0000", runPath(created) + "/part-0000-0.parquet", 10,
                        100, "c0", ChunkKind.DATA), 200);
        step("runs.get.extracted", "GET", "/v1/runs/" + run, "viewer", null, 200);
        step("runs.list", "GET", "/v1/runs?jobKey=GOLDEN", "viewer", null, 200);
        String validateRun = step("dispatches.lease.validate", "POST", "/v1/dispatches/lease", "worker",
                lease("VALIDATE_RUN"), 200).get(0).get("dispatchId").asText();
        step("validation.start", "POST", "/v1/runs/" + run + "/validation/start", "worker",
                new StepApi.StartValidation(UUID.fromString(validateRun), "node-1"), 200);
        step("validation.heartbeat", "POST", "/v1/runs/" + run + "/validation/heartbeat", "worker",
                new StepApi.StartValidation(UUID.fromString(validateRun), "node-1"), 200);
        step("runs.files", "GET", "/v1/runs/" + run + "/files", "viewer", null, 200);
        step("validations.record.staging", "POST", "/v1/runs/" + run + "/validations", "worker",
                metrics("STAGING"), 200);
        step("validations.list", "GET", "/v1/runs/" + run + "/validations", "viewer", null, 200);
        step("stage-validated", "POST", "/v1/runs/" + run + "/stage-validated", "worker", "{}", 200);
        step("dispatches.lease.publish", "POST", "/v1/dispatches/lease", "worker", lease("PUBLISH_RUN"), 200);
        UUID publishToken = fixed(2);
        step("publish.claim", "POST", "/v1/runs/" + run + "/publish/claim", "worker",
                new StepApi.ClaimPublish(publishToken), 200);
        step("publish.result", "POST", "/v1/runs/" + run + "/publish/result", "worker",
                new StepApi.PublishResult(publishToken, StepApi.PublishOutcome.PUBLISHED, null, null, "5551212"), 200);
        step("validations.record.target", "POST", "/v1/runs/" + run + "/validations", "worker",
                metrics("TARGET"), 200);
        step("success", "POST", "/v1/runs/" + run + "/success", "worker", new StepApi.Success(10), 200);
        step("rollback", "POST", "/v1/runs/" + run + "/rollback", "operator",
                new OperatorApi.Rollback("wrong source data", "5551300"), 200);

        // Every status change of run A went through RunTransitions: one RUN_STATUS event each, chained.
        List<String> chain = new java.util.ArrayList<>();
        for (JsonNode event : ledger.get("/v1/runs/" + run + "/events").body()) {
            if (event.get("eventType").asText().equals("RUN_STATUS")) {
                String from = event.get("fromStatus").isNull() ? null : event.get("fromStatus").asText();
                assertThat(from).as("event " + event).isEqualTo(chain.isEmpty() ? null : chain.get(chain.size() - 1));
                chain.add(event.get("toStatus").asText());
            }
        }
        assertThat(chain).containsExactly("CREATED", "EXTRACTING", "EXTRACTED_VALIDATED", "STAGE_VALIDATING",
                "STAGING_VALIDATED", "PUBLISHING", "PUBLISHED", "SUCCESS");

        // Run B: a partition fails; its dispatch is released, leased again and resent by an operator first.
        String runB = started("2026-11-30", 5);
        String extractB = step("dispatches.lease.b", "POST", "/v1/dispatches/lease", "worker",
                lease("EXTRACT_PARTITION"), 200).get(0).get("dispatchId").asText();
        step("dispatches.release", "POST", "/v1/dispatches/" + extractB + "/release", "worker",
                new DispatchApi.Release("node-1"), 200);
        step("dispatches.lease.b.again", "POST", "/v1/dispatches/lease", "worker", lease("EXTRACT_PARTITION"), 200);
        step("dispatches.resend", "POST", "/v1/runs/" + runB + "/dispatches/" + extractB + "/resend", "operator",
                null, 200);
        UUID tokenB = fixed(3);
        ledger.post("/v1/runs/" + runB + "/partitions/0000/claim", new PartitionApi.Claim(tokenB, "node-1"));
        step("partitions.fail", "POST", "/v1/runs/" + runB + "/partitions/0000/fail", "worker",
                new PartitionApi.PartitionFailure(tokenB, "EXTRACT", "SOURCE", "ORA-00942",
                        "table or view does not exist", 1), 200);

        // Runs C and D: an operator's cancel and a caller's fail of a CREATED run.
        String runC = step("runs.create.c", "POST", "/v1/runs", "worker", new RunApi.CreateRun(JobKey.of("GOLDEN"), BusinessKey.of("2026-12-01"),
                TestLedger.STAGE_ROOT, "stg_", false, Map.of(), Executor.HTTP, null), 200)
                .get("runId").asText();
        step("runs.cancel", "POST", "/v1/runs/" + runC + "/cancel", "operator",
                new OperatorApi.Cancel("source is being repaired"), 200);
        String runD = ledger.post("/v1/runs", RunApi.CreateRun.forWorkers(JobKey.of("GOLDEN"), BusinessKey.of("2026-12-02"),
                TestLedger.STAGE_ROOT, "stg_")).text("runId");
        step("runs.fail", "POST", "/v1/runs/" + runD + "/fail", "worker",
                new RunApi.FailRun(RunStatus.CREATED, RunStatus.FAILED_MANIFEST, "MANIFEST", "SOURCE_UNREADABLE",
                        "the source table is missing"), 200);

        // Errors: the envelope and its codes.
        step("runs.get.unknown", "GET", "/v1/runs/" + UUID.randomUUID(), "viewer", null, 404);
        step("runs.create.invalid", "POST", "/v1/runs", "worker", ordered("jobKey", "lower", "extra", 1), 422);
        step("runs.get.unauthenticated", "GET", "/v1/runs/" + run, null, null, 401);
        step("monitor.summary", "GET", "/v1/monitor/summary", "viewer", null, 200);

        // The cases below come after the monitor's summary, whose counts they would change. Run C's events: its
        // cancel keeps the reason and the operator.
        step("runs.events", "GET", "/v1/runs/" + runC + "/events", "viewer", null, 200);

        // Runs E and F: a publish in doubt, settled by the publish probe and by an operator's word.
        UUID tokenE = fixed(5);
        String runE = publishUnknown("2026-12-03", tokenE);
        step("publish-unknown.probe", "POST", "/v1/runs/" + runE + "/publish-unknown/probe", "worker",
                new OperatorApi.PublishProbe(tokenE, true, "5551400", false, Map.of("snapshotsRead", 3)), 200);
        String runF = publishUnknown("2026-12-04", fixed(6));
        step("publish-unknown.resolve", "POST", "/v1/runs/" + runF + "/publish-unknown/resolve", "operator",
                new OperatorApi.Resolve(OperatorApi.Resolution.FAILED_PUBLISH, "the snapshot is not in the table"),
                200);

        // Run D, failed, once past its retention: a cleaner skips it once, then cleans it.
        ledger.execute("UPDATE load_run SET completed_at = now() - interval '30 days' WHERE run_id = '" + runD + "'");
        step("cleanup.candidates", "GET", "/v1/cleanup/candidates", "worker", null, 200);
        step("cleanup.skipped", "POST", "/v1/runs/" + runD + "/cleanup/skipped", "worker",
                new OperatorApi.CleanupSkipped("the catalog could not be read"), 200);
        var viewD = ledger.get("/v1/runs/" + runD);
        step("cleanup", "POST", "/v1/runs/" + runD + "/cleanup", "worker",
                new OperatorApi.Cleanup(viewD.text("stageTable"), viewD.text("hdfsRunPath")), 200);

        // The history of the runs above that ended today, put in one known hour with known durations: times
        // are placeholders in a case, but a bucket boundary or a duration would not be.
        ledger.execute("UPDATE load_run SET started_at = date_trunc('hour', now()) - interval '1 hour',"
                + " completed_at = date_trunc('hour', now()) - interval '1 hour' + interval '90 seconds'"
                + " WHERE job_key = 'GOLDEN' AND completed_at > now() - interval '1 day'");
        step("monitor.history", "GET", "/v1/monitor/history?job=GOLDEN&bucket=hour", "viewer", null, 200);
        // A page of the job's keys: run A's, rolled back, holds none; the page ends before the last keys.
        step("jobs.keys", "GET", "/v1/jobs/GOLDEN/keys?limit=3", "viewer", null, 200);
        // Run G: a partition whose rows a mapper gave (the extension's counts): 10 lines, 1 skipped, 12 rows.
        String runG = started("2026-12-05", 10);
        UUID tokenG = fixed(7);
        String partitionG = "/v1/runs/" + runG + "/partitions/0000";
        ledger.post(partitionG + "/claim", new PartitionApi.Claim(tokenG, "node-1"));
        step("partitions.chunks.mapped", "POST", partitionG + "/chunks", "worker",
                new PartitionApi.ChunkReport(tokenG, 0, 1, "0000", ledger.get("/v1/runs/" + runG).text("hdfsRunPath")
                        + "/part-0000-0.parquet", 12, 120, "c7", ChunkKind.DATA, 10L, 1L, 12L), 200);
        // Job FILES: two hours of a file source loaded, the first twice (a late directory): the watermark holds
        // each hour's latest SUCCESS and the directories it loaded.
        Runs.succeeded(ledger, "FILES", "2026-11-30T14", Runs.filesManifest("d_20261130-1400/part-0.json"));
        Runs.succeeded(ledger, "FILES", "2026-11-30T14", Runs.filesManifest("d_20261130-1400/part-0.json",
                "d_20261130-1450/part-0.json.gz"));
        Runs.succeeded(ledger, "FILES", "2026-11-30T15", Runs.filesManifest("d_20261130-1500/part-0.json",
                "d_20261130-1500/part-1.json"));
        step("jobs.loaded-directories", "GET", "/v1/jobs/FILES/loaded-directories", "viewer", null, 200);
        // A create planned while key 2026-12-01 had no run, sent after run C was made: refused, naming run C.
        step("runs.create.stale", "POST", "/v1/runs", "worker", RunApi.CreateRun.forWorkers(JobKey.of("GOLDEN"),
                BusinessKey.of("2026-12-01"), TestLedger.STAGE_ROOT, "stg_").afterRun(null), 409);
        // Run H: a Spark run (executor spark, an extension), whose driver beats it while its tasks extract.
        String runH = step("runs.create.spark", "POST", "/v1/runs", "worker", RunApi.CreateRun.forWorkers(
                JobKey.of("GOLDEN_SPARK"), BusinessKey.of("2026-12-06"), TestLedger.STAGE_ROOT, "stg_")
                .withExecutor(Executor.SPARK), 200).get("runId").asText();
        assertThat(ledger.post("/v1/runs/" + runH + "/manifest", manifest(10)).status()).isEqualTo(200);
        step("runs.heartbeat", "POST", "/v1/runs/" + runH + "/heartbeat", "worker", "{}", 200);
        // Run I (extension): a manifest whose source metrics follow, then the metrics, again, and other ones.
        String runI = ledger.post("/v1/runs", RunApi.CreateRun.forWorkers(JobKey.of("GOLDEN"),
                BusinessKey.of("2026-12-06"), TestLedger.STAGE_ROOT, "stg_")).text("runId");
        RunApi.Manifest plain = manifest(10);
        step("runs.manifest.pending", "POST", "/v1/runs/" + runI + "/manifest", "worker", new RunApi.Manifest(
                plain.snapshotScn(), "1a2b3c4d-00000001-1", plain.sourceCount(), plain.sourceNullSplitCount(),
                plain.sourceMinSplit(), plain.sourceMaxSplit(), plain.plannedPartitionCount(), Map.of(), "loadgate-1",
                plain.partitions(), true), 200);
        Map<String, String> valuesI = new LinkedHashMap<>();
        valuesI.put("COUNT", "10");
        valuesI.put("SUM:amount", "1234.50");
        var metricsI = new RunApi.SourceMetrics(valuesI, "loadgate-1");
        step("runs.source-metrics", "PUT", "/v1/runs/" + runI + "/source-metrics", "worker", metricsI, 200);
        step("runs.source-metrics.again", "PUT", "/v1/runs/" + runI + "/source-metrics", "worker", metricsI, 200);
        step("runs.source-metrics.conflict", "PUT", "/v1/runs/" + runI + "/source-metrics", "worker",
                new RunApi.SourceMetrics(Map.of("COUNT", "11"), "loadgate-1"), 409);
        assertThat(ledger.get("/v1/runs/" + runI).body().has("sourceMetricsPending"))
                .as("once the metrics are in, the view carries no sourceMetricsPending").isFalse();
        // Run J (extension), last so that the ids of the cases before keep their numbers: the view of a run whose
        // source metrics are awaited says so.
        String runJ = ledger.post("/v1/runs", RunApi.CreateRun.forWorkers(JobKey.of("GOLDEN"),
                BusinessKey.of("2026-12-07"), TestLedger.STAGE_ROOT, "stg_")).text("runId");
        assertThat(ledger.post("/v1/runs/" + runJ + "/manifest", new RunApi.Manifest(plain.snapshotScn(),
                "1a2b3c4d-00000001-1", plain.sourceCount(), plain.sourceNullSplitCount(), plain.sourceMinSplit(),
                plain.sourceMaxSplit(), plain.plannedPartitionCount(), Map.of(), "loadgate-1", plain.partitions(),
                true)).status()).isEqualTo(200);
        JsonNode pendingView = step("runs.get.pending", "GET", "/v1/runs/" + runJ, "viewer", null, 200);
        assertThat(pendingView.path("sourceMetricsPending").asBoolean())
                .as("the run view says its source metrics are awaited").isTrue();
        assertThat(cases).isGreaterThan(30);
    }

    /** Tokens are the caller's: fixed, since tests derive node names and paths from them. */
    private static UUID fixed(int n) {
        return UUID.fromString(String.format("7e57e57e-0000-4000-8000-%012d", n));
    }

    private String started(String businessKey, long rows) {
        var create = RunApi.CreateRun.forWorkers(JobKey.of("GOLDEN"), BusinessKey.of(businessKey), TestLedger.STAGE_ROOT, "stg_");
        String runId = ledger.post("/v1/runs", create).text("runId");
        assertThat(ledger.post("/v1/runs/" + runId + "/manifest", manifest(rows)).status()).isEqualTo(200);
        return runId;
    }

    /**
     * A run left in PUBLISH_UNKNOWN by a publisher holding {@code publishToken}, its claim long past: set in the
     * database, as the sweeper's tests do, since no API call leaves a run there with nothing else around it.
     */
    private String publishUnknown(String businessKey, UUID publishToken) {
        String runId = started(businessKey, 5);
        ledger.execute("UPDATE load_run SET status = 'PUBLISH_UNKNOWN', publish_token = '" + publishToken
                + "', publish_started_at = now() - interval '3 hours' WHERE run_id = '" + runId + "'");
        return runId;
    }

    private static String runPath(JsonNode created) {
        return created.get("hdfsRunPath").asText();
    }

    /** One range partition [0, 100] expecting {@code rows} rows. */
    private static RunApi.Manifest manifest(long rows) {
        return new RunApi.Manifest(BigInteger.valueOf(123456), null, rows, 0, BigInteger.ZERO, BigInteger.valueOf(100),
                1, Map.of("COUNT", String.valueOf(rows)), "v1", List.of(RunApi.ManifestPartition.range(
                        PartitionId.of("0000"), BigInteger.ZERO, BigInteger.valueOf(100), true, rows)));
    }

    private static DispatchApi.Lease lease(String type) {
        return new DispatchApi.Lease("node-1", List.of(DispatchType.valueOf(type)), 5, 0);
    }

    private static StepApi.Validations metrics(String stage) {
        return new StepApi.Validations(StepApi.Stage.valueOf(stage), "v1", List.of(new StepApi.Metric("STAGE_COUNT",
                "10", "10", "0", StepApi.MetricResult.PASS, Map.of("query", "count(*)"))));
    }

    private static Map<String, Object> ordered(Object... keysAndValues) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }

    /** Sends one case, compares (or records) it, and returns the actual body for the next steps. */
    private JsonNode step(String name, String method, String path, String role, Object body, int status) {
        cases++;
        String token = role == null ? null : switch (role) {
            case "worker" -> ledger.workerToken;
            case "operator" -> ledger.operatorToken;
            case "viewer" -> ledger.viewerToken;
            default -> throw new IllegalArgumentException(role);
        };
        String requestText = body == null ? null : body instanceof String text ? text : Json.write(body);
        var response = ledger.send(method, path, body, token);
        ObjectNode actual = PLAIN.createObjectNode();
        actual.put("method", method);
        actual.put("path", normalise(path));
        if (role != null) {
            actual.put("role", role);
        }
        if (requestText != null) {
            actual.set("request", read(normalise(requestText)));
        }
        actual.put("status", response.status());
        String responseText = normalise(response.raw().body());
        actual.set("response", read(responseText));
        if (recordTo != null) {
            write(Path.of(recordTo).resolve(name + ".json"), actual);
        } else {
            JsonNode golden = golden(name);
            assertThat(actual.get("status").asInt()).as(name + " status").isEqualTo(status);
            assertThat(actual.deepCopy().without("response").toString()).as(name + " request")
                    .isEqualTo(((ObjectNode) golden.deepCopy()).without("response").toString());
            // Byte for byte: the body as sent, ids and times aside, is the golden response written compactly.
            assertThat(responseText).as(name + " response").isEqualTo(golden.get("response").toString());
        }
        return response.body();
    }

    private String normalise(String text) {
        Matcher ids = UUID_TEXT.matcher(text);
        StringBuilder out = new StringBuilder();
        while (ids.find()) {
            String found = ids.group();
            boolean dashed = found.length() == 36;
            UUID id = UUID.fromString(dashed ? found : found.replaceFirst(
                    "(.{8})(.{4})(.{4})(.{4})(.{12})", "$1-$2-$3-$4-$5"));
            UUID stable = canonical.computeIfAbsent(id, unused -> UUID.fromString(
                    String.format("00000000-0000-4000-8000-%012d", canonical.size() + 1)));
            String replacement = dashed ? stable.toString() : stable.toString().replace("-", "");
            ids.appendReplacement(out, replacement);
        }
        ids.appendTail(out);
        return ACTOR.matcher(INSTANT.matcher(out).replaceAll(TIME)).replaceAll("$1:TOKEN_ID");
    }

    private static JsonNode read(String text) {
        try {
            return PLAIN.readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static JsonNode golden(String name) {
        try (InputStream in = GoldenWireTest.class.getResourceAsStream("/golden/" + name + ".json")) {
            assertThat(in).as("golden case " + name + " (loadgate-api test resources)").isNotNull();
            return PLAIN.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void write(Path file, JsonNode value) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, PRETTY.writeValueAsString(value) + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

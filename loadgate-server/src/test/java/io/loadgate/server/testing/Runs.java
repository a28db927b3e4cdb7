package io.loadgate.server.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Builders for request bodies, so tests say what differs from a valid request. */
public final class Runs {
    private Runs() {
    }

    public static Map<String, Object> create(String jobKey, String businessKey) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("jobKey", jobKey);
        body.put("businessKey", businessKey);
        body.put("hdfsRoot", TestLedger.STAGE_ROOT);
        body.put("stageTablePrefix", "stg_");
        return body;
    }

    /** {@link #create} of key {@code K} with {@code afterRun}, the run the plan comes after: {@code runId} or null. */
    public static Map<String, Object> createAfter(String jobKey, String runId) {
        Map<String, Object> body = create(jobKey, "K");
        // Not Map.of, which takes no null: a plan may come after no run.
        Map<String, Object> after = new HashMap<>();
        after.put("runId", runId);
        body.put("afterRun", after);
        return body;
    }

    /** A valid manifest: {@code counts.length} range partitions of width 100 from 0, the last inclusive. */
    public static Map<String, Object> manifest(long... counts) {
        List<Map<String, Object>> partitions = new ArrayList<>();
        long total = 0;
        for (int i = 0; i < counts.length; i++) {
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("partitionId", String.format("%04d", i));
            p.put("lowerBound", String.valueOf(i * 100));
            p.put("upperBound", String.valueOf((i + 1) * 100));
            p.put("upperInclusive", i == counts.length - 1);
            p.put("isNullPartition", false);
            p.put("expectedRowCount", counts[i]);
            partitions.add(p);
            total += counts[i];
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("snapshotScn", "123456");
        body.put("sourceCount", total);
        body.put("sourceNullSplitCount", 0);
        body.put("sourceMinSplit", "0");
        body.put("sourceMaxSplit", String.valueOf(counts.length * 100));
        body.put("plannedPartitionCount", counts.length);
        body.put("sourceMetrics", Map.of("COUNT", String.valueOf(total)));
        body.put("sourceMetricsVersion", "v1");
        body.put("partitions", partitions);
        return body;
    }

    /** Creates a run and registers a manifest with the given partition counts; returns the run id. */
    public static String started(TestLedger ledger, String jobKey, long... counts) {
        var created = ledger.post("/v1/runs", create(jobKey, "2026-11-29"));
        assertThat(created.status()).as(created.toString()).isEqualTo(200);
        String runId = created.text("runId");
        var manifest = ledger.post("/v1/runs/" + runId + "/manifest", manifest(counts));
        assertThat(manifest.status()).as(manifest.toString()).isEqualTo(200);
        remember(ledger, runId);
        return runId;
    }

    /**
     * A file source's manifest (snapshotRef {@code files:...}) of one 30-row partition whose sourceRef lists
     * {@code paths} ({@code d_20261130-1400/part-0.json}), the 30 lines on the first.
     */
    public static Map<String, Object> filesManifest(String... paths) {
        List<String> items = new ArrayList<>();
        for (int i = 0; i < paths.length; i++) {
            items.add(paths[i] + ",100,1764511200000," + (i == 0 ? 30 : 0));
        }
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("partitionId", "0000");
        p.put("upperInclusive", false);
        p.put("isNullPartition", false);
        p.put("expectedRowCount", 30);
        p.put("sourceRef", String.join(";", items));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("snapshotRef", "files:sha256:" + "0".repeat(64));
        body.put("sourceCount", 30);
        body.put("sourceNullSplitCount", 0);
        body.put("plannedPartitionCount", 1);
        body.put("sourceMetrics", Map.of("COUNT", "30"));
        body.put("sourceMetricsVersion", "v1");
        body.put("partitions", List.of(p));
        return body;
    }

    /** Creates a run of one 30-row partition for the key and registers its manifest: EXTRACTING. */
    public static String extracting(TestLedger ledger, String jobKey, String businessKey) {
        return extracting(ledger, jobKey, businessKey, manifest(30));
    }

    /** {@link #extracting(TestLedger, String, String)} with {@code manifest}, one partition of 30 rows. */
    public static String extracting(TestLedger ledger, String jobKey, String businessKey, Map<String, Object> manifest) {
        var created = ledger.post("/v1/runs", create(jobKey, businessKey));
        assertThat(created.status()).as(created.toString()).isEqualTo(200);
        String runId = created.text("runId");
        var registered = ledger.post("/v1/runs/" + runId + "/manifest", manifest);
        assertThat(registered.status()).as(registered.toString()).isEqualTo(200);
        remember(ledger, runId);
        return runId;
    }

    /** {@link #extracting}, then its rows extracted and staged, validated: STAGING_VALIDATED. */
    public static String stagingValidated(TestLedger ledger, String jobKey, String businessKey) {
        return stagingValidated(ledger, jobKey, businessKey, manifest(30));
    }

    public static String stagingValidated(TestLedger ledger, String jobKey, String businessKey,
                                           Map<String, Object> manifest) {
        String runId = extracting(ledger, jobKey, businessKey, manifest);
        extractAll(ledger, runId, 30);
        String dispatchId = ledger.get("/v1/runs/" + runId).body().at("/dispatches/0/dispatchId").asText();
        ledger.post("/v1/runs/" + runId + "/validation/start", Map.of("dispatchId", dispatchId, "node", "n1"));
        ledger.post("/v1/runs/" + runId + "/validations", passed("STAGING", "STAGE_COUNT"));
        var verdict = ledger.post("/v1/runs/" + runId + "/stage-validated", Map.of());
        assertThat(verdict.text("runStatus")).as(verdict.toString()).isEqualTo("STAGING_VALIDATED");
        return runId;
    }

    /** Claims partition 0000 of a one-partition run and reports its {@code rows} in one chunk: EXTRACTED_VALIDATED. */
    public static TestLedger.Response extractAll(TestLedger ledger, String runId, long rows) {
        UUID token = UUID.randomUUID();
        ledger.post("/v1/runs/" + runId + "/partitions/0000/claim", claim(token));
        var report = ledger.post("/v1/runs/" + runId + "/partitions/0000/chunks",
                chunk(runId, token, "0000", 0, 1, rows));
        assertThat(report.text("runStatus")).as(report.toString()).isEqualTo("EXTRACTED_VALIDATED");
        return report;
    }

    /** The id of the run's first dispatch of {@code type}. */
    public static String dispatchOf(TestLedger ledger, String runId, String type) {
        for (JsonNode d : ledger.get("/v1/runs/" + runId).body().get("dispatches")) {
            if (d.get("dispatchType").asText().equals(type)) {
                return d.get("dispatchId").asText();
            }
        }
        throw new AssertionError("run " + runId + " has no " + type + " dispatch");
    }

    /** Claims the run's publish: PUBLISHING; returns the publish token. */
    public static UUID publishing(TestLedger ledger, String runId) {
        UUID token = UUID.randomUUID();
        var claimed = ledger.post("/v1/runs/" + runId + "/publish/claim", Map.of("publishToken", token.toString()));
        assertThat(claimed.status()).as(claimed.toString()).isEqualTo(200);
        return token;
    }

    /** A run of the key taken all the way to SUCCESS. */
    public static String succeeded(TestLedger ledger, String jobKey, String businessKey) {
        return succeeded(ledger, jobKey, businessKey, manifest(30));
    }

    /** {@link #succeeded(TestLedger, String, String)} with {@code manifest}, one partition of 30 rows. */
    public static String succeeded(TestLedger ledger, String jobKey, String businessKey, Map<String, Object> manifest) {
        String runId = stagingValidated(ledger, jobKey, businessKey, manifest);
        UUID token = publishing(ledger, runId);
        ledger.post("/v1/runs/" + runId + "/publish/result", Map.of("publishToken", token.toString(),
                "outcome", "PUBLISHED", "targetRef", "snapshot-1"));
        ledger.post("/v1/runs/" + runId + "/validations", passed("TARGET", "TARGET_COUNT"));
        var success = ledger.post("/v1/runs/" + runId + "/success", Map.of("targetCount", 30));
        assertThat(success.body().get("success").asBoolean()).as(success.toString()).isTrue();
        return runId;
    }

    /** A run of the key that failed extracting (FAILED_EXTRACT, SOURCE_DOWN). */
    public static String failedExtract(TestLedger ledger, String jobKey, String businessKey) {
        String runId = extracting(ledger, jobKey, businessKey);
        var failed = ledger.post("/v1/runs/" + runId + "/fail", Map.of("expectedStatus", "EXTRACTING",
                "failStatus", "FAILED_EXTRACT", "errorStage", "EXTRACT", "errorCode", "SOURCE_DOWN",
                "message", "connection refused"));
        assertThat(failed.status()).as(failed.toString()).isEqualTo(200);
        return runId;
    }

    /** One passing metric of 30 rows for {@code stage}. */
    public static Map<String, Object> passed(String stage, String name) {
        Map<String, Object> metric = new LinkedHashMap<>();
        metric.put("metricName", name);
        metric.put("expectedValue", "30");
        metric.put("actualValue", "30");
        metric.put("tolerance", null);
        metric.put("result", "PASS");
        metric.put("details", Map.of());
        return Map.of("stage", stage, "queryVersion", "v1", "metrics", List.of(metric));
    }

    private static final Map<String, String> RUN_PATHS = new java.util.concurrent.ConcurrentHashMap<>();

    /** Remembers a run's path so that {@link #chunk} can build paths inside it. */
    public static String remember(TestLedger ledger, String runId) {
        return RUN_PATHS.computeIfAbsent(runId, id -> ledger.get("/v1/runs/" + id).text("hdfsRunPath"));
    }

    public static Map<String, Object> chunk(String runId, UUID token, String partitionId, int index, int count,
                                            long records) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("claimToken", token.toString());
        body.put("chunkIndex", index);
        body.put("chunkCount", count);
        body.put("fragmentIdentifier", partitionId);
        String runPath = RUN_PATHS.get(runId);
        if (runPath == null) {
            throw new IllegalStateException("call Runs.remember or Runs.started for run " + runId + " first");
        }
        body.put("hdfsPath", runPath + "/part-" + partitionId + "-" + index + "-" + token.toString().substring(0, 8)
                + ".parquet");
        body.put("recordCount", records);
        body.put("byteCount", records * 10);
        body.put("checksum", "c" + index);
        return body;
    }

    public static Map<String, Object> claim(UUID token) {
        return Map.of("claimToken", token.toString(), "workerNode", "node-" + token.toString().substring(0, 4));
    }
}

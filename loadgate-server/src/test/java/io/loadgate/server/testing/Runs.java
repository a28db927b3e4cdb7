package io.loadgate.server.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
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

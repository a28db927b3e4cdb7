package io.loadgate.server.http;

import static io.loadgate.server.testing.Runs.chunk;
import static io.loadgate.server.testing.Runs.claim;
import static io.loadgate.server.testing.Runs.create;
import static io.loadgate.server.testing.Runs.manifest;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.loadgate.server.testing.Runs;
import io.loadgate.server.testing.TestLedger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The run and partition endpoints of issue 2, one behaviour per test, through real HTTP on a real database. */
class RunApiTest {
    @RegisterExtension
    static final TestLedger ledger = new TestLedger();
    private static int jobs;

    private static String job() {
        return "JOB_" + (++jobs) + "_" + UUID.randomUUID().toString().substring(0, 6).toUpperCase().replace('-', '_');
    }

    @Test
    void createReturnsRunPathAndStageTable() {
        var response = ledger.post("/v1/runs", create("ORDERS", "2026-11-29"));
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        String runId = response.text("runId");
        assertThat(response.text("status")).isEqualTo("CREATED");
        assertThat(response.text("hdfsRunPath")).isEqualTo("/data/loadgate/stage/ORDERS/run_id=" + runId);
        assertThat(response.text("stageTable")).isEqualTo("stg_" + runId.replace("-", ""));
        assertThat(response.raw().headers().firstValue("X-Request-Id")).isPresent();
        var run = ledger.get("/v1/runs/" + runId);
        assertThat(run.text("status")).isEqualTo("CREATED");
        assertThat(run.text("jobKey")).isEqualTo("ORDERS");
    }

    @Test
    void secondActiveRunForTheSameKeyIsRefusedWithTheActiveRunId() {
        String job = job();
        String first = ledger.post("/v1/runs", create(job, "K1")).text("runId");
        var second = ledger.post("/v1/runs", create(job, "K1"));
        assertThat(second.status()).isEqualTo(409);
        assertThat(second.code()).isEqualTo("DUPLICATE_ACTIVE_RUN");
        assertThat(second.body().at("/details/activeRunId").asText()).isEqualTo(first);
        assertThat(ledger.post("/v1/runs", create(job, "K2")).status()).isEqualTo(200);
    }

    @Test
    void hdfsRootOutsideTheAllowedRootsIsRefused() {
        for (String root : List.of("/etc", "relative/path", "/data/loadgate/stage/../../etc", "/data/loadgate/stagex",
                "hdfs://other/data/loadgate/stage", "/data/loadgate/%2e%2e/x")) {
            Map<String, Object> body = create(job(), "K");
            body.put("hdfsRoot", root);
            var response = ledger.post("/v1/runs", body);
            assertThat(response.status()).as(root).isEqualTo(422);
            assertThat(response.code()).as(root).isEqualTo("INVALID_HDFS_ROOT");
        }
        Map<String, Object> body = create(job(), "K");
        body.put("hdfsRoot", "/data/loadgate/stage/team_a");
        assertThat(ledger.post("/v1/runs", body).status()).isEqualTo(200);
    }

    @Test
    void badRequestBodiesAre422NamingEachField() {
        Map<String, Object> body = new LinkedHashMap<>(create("lower-case", "K"));
        body.put("allowEmptySource", "maybe");
        body.put("surprise", 1);
        body.remove("hdfsRoot");
        var response = ledger.post("/v1/runs", body);
        assertThat(response.status()).isEqualTo(422);
        assertThat(response.code()).isEqualTo("REQUEST_INVALID");
        assertThat(response.text("requestId")).isNotBlank();
        List<String> fields = new ArrayList<>();
        response.body().at("/details/errors").forEach(e -> fields.add(e.get("field").asText()));
        assertThat(fields).containsExactlyInAnyOrder("jobKey", "allowEmptySource", "surprise", "hdfsRoot");

        assertThat(ledger.post("/v1/runs", "{not json").code()).isEqualTo("REQUEST_INVALID");
        assertThat(ledger.post("/v1/runs", "[1,2]").status()).isEqualTo(422);
        assertThat(ledger.post("/v1/runs", "").status()).isEqualTo(422);
    }

    @Test
    void lenientScalarsAreAcceptedAsNiFiSendsThem() {
        String runId = ledger.post("/v1/runs", create(job(), "K")).text("runId");
        Map<String, Object> m = manifest(10, 20);
        m.put("sourceCount", "30");
        m.put("plannedPartitionCount", "2");
        m.put("snapshotScn", 123456);
        @SuppressWarnings("unchecked")
        var p0 = (Map<String, Object>) ((List<?>) m.get("partitions")).get(0);
        p0.put("upperInclusive", "false");
        p0.put("expectedRowCount", "10");
        p0.put("lowerBound", 0);
        var response = ledger.post("/v1/runs/" + runId + "/manifest", m);
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        assertThat(response.text("status")).isEqualTo("EXTRACTING");
    }

    @Test
    void manifestSchedulesTheNonEmptyPartitionsAndIsIdempotent() {
        String runId = ledger.post("/v1/runs", create(job(), "K")).text("runId");
        var first = ledger.post("/v1/runs/" + runId + "/manifest", manifest(5, 0, 7));
        assertThat(first.status()).isEqualTo(200);
        assertThat(first.body().get("dispatchPartitions")).hasSize(2);
        assertThat(first.body().get("emptyPartitionCount").asInt()).isEqualTo(1);
        assertThat(first.body().get("validationScheduled").asBoolean()).isFalse();
        var again = ledger.post("/v1/runs/" + runId + "/manifest", manifest(5, 0, 7));
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.body()).isEqualTo(first.body());
        var different = ledger.post("/v1/runs/" + runId + "/manifest", manifest(5, 1, 6));
        assertThat(different.status()).isEqualTo(409);
        assertThat(different.code()).isEqualTo("RUN_STATUS_MISMATCH");
        JsonNode run = ledger.get("/v1/runs/" + runId).body();
        assertThat(run.at("/partitionCounts/PENDING").asInt()).isEqualTo(2);
        assertThat(run.at("/partitionCounts/SUCCESS").asInt()).isEqualTo(1);
    }

    @Test
    void aManifestOfTenThousandPartitionsIsAcceptedAndOneMoreIsNot() {
        String runId = ledger.post("/v1/runs", create(job(), "K")).text("runId");
        long[] counts = new long[10_000];
        java.util.Arrays.fill(counts, 1);
        var response = ledger.post("/v1/runs/" + runId + "/manifest", manifest(counts));
        assertThat(response.status()).as(response.code()).isEqualTo(200);
        assertThat(response.body().get("dispatchPartitions")).hasSize(10_000);

        String other = ledger.post("/v1/runs", create(job(), "K")).text("runId");
        long[] tooMany = new long[10_001];
        java.util.Arrays.fill(tooMany, 1);
        var refused = ledger.post("/v1/runs/" + other + "/manifest", manifest(tooMany));
        assertThat(refused.status()).isEqualTo(422);
        assertThat(refused.code()).isEqualTo("REQUEST_INVALID");
    }

    @Test
    void aBodyBeyondTheSizeLimitIs413NotA500() {
        // One byte over the limit, and no more: the server reads the whole body before it refuses it, so it closes
        // no connection with unread bytes in it (a reset that could swallow its answer).
        String open = "{\"jobKey\": \"";
        String close = "\"}";
        String huge = open + "A".repeat((int) ApiServer.MAX_REQUEST_BYTES + 1 - open.length() - close.length()) + close;
        assertThat(huge.length()).isEqualTo(ApiServer.MAX_REQUEST_BYTES + 1);
        var response = ledger.post("/v1/runs", huge);
        assertThat(response.status()).isEqualTo(413);
        assertThat(response.code()).isEqualTo("REQUEST_TOO_LARGE");
    }

    @Test
    void allEmptyManifestGoesStraightToExtractedValidated() {
        Map<String, Object> body = create(job(), "K");
        body.put("allowEmptySource", true);
        String runId = ledger.post("/v1/runs", body).text("runId");
        Map<String, Object> m = manifest(0);
        m.put("sourceMinSplit", null);
        m.put("sourceMaxSplit", null);
        var response = ledger.post("/v1/runs/" + runId + "/manifest", m);
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        assertThat(response.text("status")).isEqualTo("EXTRACTED_VALIDATED");
        assertThat(response.body().get("validationScheduled").asBoolean()).isTrue();
        assertThat(ledger.count("SELECT count(*) FROM loadgate.load_dispatch WHERE run_id = '" + runId
                + "' AND dispatch_type = 'VALIDATE_RUN'")).isEqualTo(1);
    }

    @Test
    void invalidManifestFailsTheRunAndListsEveryViolation() {
        String runId = ledger.post("/v1/runs", create(job(), "K")).text("runId");
        Map<String, Object> m = manifest(10, 20, 30);
        m.put("sourceCount", 99);
        m.put("plannedPartitionCount", 4);
        m.put("sourceNullSplitCount", 3);
        m.put("sourceMinSplit", "-5");
        @SuppressWarnings("unchecked")
        var parts = (List<Map<String, Object>>) m.get("partitions");
        parts.get(0).put("upperInclusive", true);
        parts.get(1).put("lowerBound", "150");
        parts.get(2).put("partitionId", "0001");
        var response = ledger.post("/v1/runs/" + runId + "/manifest", m);
        assertThat(response.status()).isEqualTo(422);
        assertThat(response.code()).isEqualTo("MANIFEST_INVALID");
        List<String> codes = new ArrayList<>();
        response.body().at("/details/violations").forEach(v -> codes.add(v.get("code").asText()));
        assertThat(codes).contains("DUPLICATE_PARTITION_ID", "PARTITION_COUNT_MISMATCH", "EXPECTED_SUM_MISMATCH",
                "NULL_ROWS_WITHOUT_NULL_PARTITION", "UPPER_INCLUSIVE_INVALID", "RANGE_GAP_OR_OVERLAP",
                "MIN_SPLIT_MISMATCH");
        assertThat(ledger.get("/v1/runs/" + runId).text("status")).isEqualTo("FAILED_MANIFEST");
    }

    @Test
    void emptySourceIsBlockedUnlessAllowed() {
        String runId = ledger.post("/v1/runs", create(job(), "K")).text("runId");
        Map<String, Object> m = manifest(0);
        var response = ledger.post("/v1/runs/" + runId + "/manifest", m);
        assertThat(response.status()).isEqualTo(422);
        assertThat(response.body().at("/details/violations/0/code").asText()).isEqualTo("EMPTY_SOURCE_BLOCKED");
    }

    @Test
    void manifestForAnUnknownRunIs404() {
        assertThat(ledger.post("/v1/runs/" + UUID.randomUUID() + "/manifest", manifest(1)).code())
                .isEqualTo("RUN_NOT_FOUND");
        assertThat(ledger.get("/v1/runs/not-a-uuid").code()).isEqualTo("RUN_NOT_FOUND");
        assertThat(ledger.get("/v1/runs/" + UUID.randomUUID() + "/events").status()).isEqualTo(404);
    }

    @Test
    void claimChunksAndCompletionTakeARunToExtractedValidated() {
        String runId = Runs.started(ledger, job(), 30, 20);
        UUID a = UUID.randomUUID();
        UUID b = UUID.randomUUID();
        var claimed = ledger.post("/v1/runs/" + runId + "/partitions/0000/claim", claim(a));
        assertThat(claimed.body().get("claimed").asBoolean()).isTrue();
        assertThat(claimed.body().get("attempt").asInt()).isEqualTo(1);
        assertThat(ledger.post("/v1/runs/" + runId + "/partitions/0001/claim", claim(b)).body().get("claimed")
                .asBoolean()).isTrue();
        var c0 = ledger.post("/v1/runs/" + runId + "/partitions/0000/chunks", chunk(runId, a, "0000", 0, 2, 10));
        assertThat(c0.body().get("partitionStatus").asText()).isEqualTo("RUNNING");
        assertThat(c0.body().get("receivedChunks").asInt()).isEqualTo(1);
        var c1 = ledger.post("/v1/runs/" + runId + "/partitions/0000/chunks", chunk(runId, a, "0000", 1, 2, 20));
        assertThat(c1.body().get("partitionStatus").asText()).isEqualTo("SUCCESS");
        assertThat(c1.text("runStatus")).isEqualTo("EXTRACTING");
        var last = ledger.post("/v1/runs/" + runId + "/partitions/0001/chunks", chunk(runId, b, "0001", 0, 1, 20));
        assertThat(last.text("runStatus")).isEqualTo("EXTRACTED_VALIDATED");
        assertThat(last.body().get("validationScheduled").asBoolean()).isTrue();
        JsonNode run = ledger.get("/v1/runs/" + runId).body();
        assertThat(run.get("extractedCount").asLong()).isEqualTo(50);
        assertThat(run.get("successPartitionCount").asInt()).isEqualTo(2);
        assertThat(run.get("dispatches")).hasSize(1);
        assertThat(run.at("/dispatches/0/dispatchType").asText()).isEqualTo("VALIDATE_RUN");
        var events = ledger.get("/v1/runs/" + runId + "/events");
        assertThat(events.status()).isEqualTo(200);
        List<String> transitions = new ArrayList<>();
        events.body().forEach(e -> {
            if (e.get("eventType").asText().equals("RUN_STATUS")) {
                transitions.add(e.get("toStatus").asText());
            }
        });
        assertThat(transitions).containsExactly("CREATED", "EXTRACTING", "EXTRACTED_VALIDATED");
    }

    @Test
    void claimIsIdempotentForTheOwnerAndRefusedToOthers() {
        String runId = Runs.started(ledger, job(), 10);
        UUID owner = UUID.randomUUID();
        String path = "/v1/runs/" + runId + "/partitions/0000/claim";
        assertThat(ledger.post(path, claim(owner)).body().get("claimed").asBoolean()).isTrue();
        var again = ledger.post(path, claim(owner));
        assertThat(again.body().get("claimed").asBoolean()).isTrue();
        assertThat(again.body().get("attempt").asInt()).isEqualTo(1);
        var other = ledger.post(path, claim(UUID.randomUUID()));
        assertThat(other.body().get("claimed").asBoolean()).isFalse();
        assertThat(other.text("partitionStatus")).isEqualTo("RUNNING");
        assertThat(ledger.post("/v1/runs/" + runId + "/partitions/0009/claim", claim(owner)).code())
                .isEqualTo("PARTITION_NOT_FOUND");
        assertThat(ledger.post("/v1/runs/" + runId + "/partitions/abc/claim", claim(owner)).status()).isEqualTo(404);
    }

    @Test
    void claimOnARunThatIsNotExtractingIsRefused() {
        String runId = ledger.post("/v1/runs", create(job(), "K")).text("runId");
        ledger.post("/v1/runs/" + runId + "/manifest", manifest(5));
        ledger.post("/v1/runs/" + runId + "/fail", Map.of("expectedStatus", "EXTRACTING", "failStatus",
                "FAILED_EXTRACT", "errorStage", "X", "errorCode", "Y", "message", "test"));
        var response = ledger.post("/v1/runs/" + runId + "/partitions/0000/claim", claim(UUID.randomUUID()));
        assertThat(response.body().get("claimed").asBoolean()).isFalse();
        assertThat(response.text("runStatus")).isEqualTo("FAILED_EXTRACT");
    }

    @Test
    void sameChunkTwiceIsCountedOnceAndOtherContentConflicts() {
        String runId = Runs.started(ledger, job(), 30);
        UUID token = UUID.randomUUID();
        ledger.post("/v1/runs/" + runId + "/partitions/0000/claim", claim(token));
        String path = "/v1/runs/" + runId + "/partitions/0000/chunks";
        assertThat(ledger.post(path, chunk(runId, token, "0000", 0, 2, 10)).status()).isEqualTo(200);
        var repeat = ledger.post(path, chunk(runId, token, "0000", 0, 2, 10));
        assertThat(repeat.status()).isEqualTo(200);
        assertThat(repeat.body().get("receivedChunks").asInt()).isEqualTo(1);
        var conflict = ledger.post(path, chunk(runId, token, "0000", 0, 2, 11));
        assertThat(conflict.status()).isEqualTo(409);
        assertThat(conflict.code()).isEqualTo("CHUNK_CONFLICT");
        var otherCount = ledger.post(path, chunk(runId, token, "0000", 1, 3, 20));
        assertThat(otherCount.code()).isEqualTo("CHUNK_CONFLICT");
        assertThat(ledger.count("SELECT count(*) FROM loadgate.load_file WHERE run_id = '" + runId + "'")).isEqualTo(1);
    }

    @Test
    void aRejectsChunkCountsTowardsThePartitionAndIsListedAsSuch() {
        String runId = Runs.started(ledger, job(), 30);
        UUID token = UUID.randomUUID();
        ledger.post("/v1/runs/" + runId + "/partitions/0000/claim", claim(token));
        String path = "/v1/runs/" + runId + "/partitions/0000/chunks";
        Map<String, Object> rejects = new LinkedHashMap<>(chunk(runId, token, "0000", 1, 2, 4));
        rejects.put("kind", "REJECTS");
        Map<String, Object> badKind = new LinkedHashMap<>(rejects);
        badKind.put("kind", "SPARE");
        assertThat(ledger.post(path, badKind).status()).isEqualTo(422);
        assertThat(ledger.post(path, chunk(runId, token, "0000", 0, 2, 26)).status()).isEqualTo(200);
        var last = ledger.post(path, rejects);
        assertThat(last.text("partitionStatus")).as("26 data rows and 4 rejected rows are the 30 expected")
                .isEqualTo("SUCCESS");
        assertThat(last.text("runStatus")).isEqualTo("EXTRACTED_VALIDATED");
        assertThat(ledger.post(path, rejects).status()).as("the identical report again").isEqualTo(200);
        Map<String, Object> sameFileAsData = new LinkedHashMap<>(rejects);
        sameFileAsData.remove("kind");
        assertThat(ledger.post(path, sameFileAsData).code()).as("the same chunk reported as another kind")
                .isEqualTo("CHUNK_CONFLICT");
        JsonNode files = ledger.get("/v1/runs/" + runId + "/files").body();
        assertThat(files).extracting(f -> f.get("kind").asText()).containsExactly("DATA", "REJECTS");
        JsonNode run = ledger.get("/v1/runs/" + runId).body();
        assertThat(run.get("extractedCount").asLong()).isEqualTo(30);
        assertThat(run.get("rejectedCount").asLong()).isEqualTo(4);
    }

    @Test
    void chunkChecksRunInTheContractOrder() {
        String runId = Runs.started(ledger, job(), 30);
        UUID token = UUID.randomUUID();
        ledger.post("/v1/runs/" + runId + "/partitions/0000/claim", claim(token));
        String path = "/v1/runs/" + runId + "/partitions/0000/chunks";
        var stranger = chunk(runId, UUID.randomUUID(), "0000", 5, 2, 10);
        stranger.put("hdfsPath", "/etc/passwd");
        assertThat(ledger.post(path, stranger).code()).isEqualTo("CLAIM_MISMATCH");
        var outOfRange = chunk(runId, token, "0000", 2, 2, 10);
        outOfRange.put("hdfsPath", "/etc/passwd");
        assertThat(ledger.post(path, outOfRange).code()).isEqualTo("CHUNK_INDEX_OUT_OF_RANGE");
        assertThat(ledger.post(path, chunk(runId, token, "0000", -1, 2, 10)).code())
                .isEqualTo("CHUNK_INDEX_OUT_OF_RANGE");
    }

    @Test
    void pathsOutsideTheRunAreRejected() {
        String runId = Runs.started(ledger, job(), 30);
        UUID token = UUID.randomUUID();
        ledger.post("/v1/runs/" + runId + "/partitions/0000/claim", claim(token));
        String runPath = ledger.get("/v1/runs/" + runId).text("hdfsRunPath");
        String prefixTrick = runPath.substring(0, runPath.length() - 1);
        List<String> escapes = List.of(
                runPath + "/../other/part.parquet",
                runPath + "/%2e%2e/%2e%2e/part.parquet",
                runPath + "/%2E%2E/part.parquet",
                runPath + "/..%2fpart.parquet",
                "/etc/passwd",
                "/data/loadgate/stage/other/part.parquet",
                "file://" + runPath + "/part.parquet",
                "hdfs://evil-host" + runPath + "/part.parquet",
                prefixTrick + "/part.parquet",
                runPath + "x/part.parquet",
                runPath,
                runPath + "/",
                "relative/part.parquet",
                "//host" + runPath + "/part.parquet");
        for (String escape : escapes) {
            var body = chunk(runId, token, "0000", 0, 1, 30);
            body.put("hdfsPath", escape);
            var response = ledger.post("/v1/runs/" + runId + "/partitions/0000/chunks", body);
            assertThat(response.status()).as(escape).isEqualTo(422);
            assertThat(response.code()).as(escape).isEqualTo("HDFS_PATH_OUTSIDE_RUN");
        }
        var inside = chunk(runId, token, "0000", 0, 1, 30);
        inside.put("hdfsPath", runPath + "/./sub//part.parquet");
        assertThat(ledger.post("/v1/runs/" + runId + "/partitions/0000/chunks", inside).status()).isEqualTo(200);
        assertThat(ledger.count("SELECT count(*) FROM loadgate.load_file WHERE run_id = '" + runId + "'")).isEqualTo(1);
    }

    @Test
    void rowCountMismatchFailsThePartitionAndTheRun() {
        String runId = Runs.started(ledger, job(), 30, 10);
        UUID token = UUID.randomUUID();
        ledger.post("/v1/runs/" + runId + "/partitions/0000/claim", claim(token));
        var response = ledger.post("/v1/runs/" + runId + "/partitions/0000/chunks", chunk(runId, token, "0000", 0, 1, 29));
        assertThat(response.text("partitionStatus")).isEqualTo("FAILED");
        assertThat(response.text("runStatus")).isEqualTo("FAILED_EXTRACT");
        JsonNode run = ledger.get("/v1/runs/" + runId).body();
        assertThat(run.get("errorCode").asText()).isEqualTo("ROW_COUNT_MISMATCH");
        var late = ledger.post("/v1/runs/" + runId + "/partitions/0000/chunks", chunk(runId, token, "0000", 0, 1, 30));
        assertThat(late.status()).isEqualTo(200);
        assertThat(late.body().get("recorded").asBoolean()).isFalse();
    }

    /** A chunk report with a mapper's counts (the extension), for partitions whose rows a mapper gave. */
    private static Map<String, Object> mapped(Map<String, Object> chunk, long linesRead, long linesSkipped,
                                              long rowsEmitted) {
        chunk.put("linesRead", linesRead);
        chunk.put("linesSkipped", linesSkipped);
        chunk.put("rowsEmitted", rowsEmitted);
        return chunk;
    }

    @Test
    void aMappedPartitionIsJudgedByItsLinesReadAndTheRowsItsMapperEmitted() {
        // Two partitions of 30 and 10 lines; the mapper fans the first out to 70 rows in two chunks.
        String runId = Runs.started(ledger, job(), 30, 10);
        UUID token = UUID.randomUUID();
        ledger.post("/v1/runs/" + runId + "/partitions/0000/claim", claim(token));
        String chunks = "/v1/runs/" + runId + "/partitions/0000/chunks";
        var first = ledger.post(chunks, mapped(chunk(runId, token, "0000", 0, 2, 50), 30, 2, 70));
        assertThat(first.status()).as(first.toString()).isEqualTo(200);
        var otherCounts = ledger.post(chunks, mapped(chunk(runId, token, "0000", 1, 2, 20), 30, 3, 70));
        assertThat(otherCounts.status()).as("every chunk carries the partition's counts").isEqualTo(409);
        assertThat(otherCounts.code()).isEqualTo("CHUNK_CONFLICT");
        assertThat(otherCounts.toString()).contains("30 lines read, 2 skipped, 70 rows emitted");
        var none = ledger.post(chunks, chunk(runId, token, "0000", 1, 2, 20));
        assertThat(none.status()).as("a chunk without them beside one with them").isEqualTo(409);
        var last = ledger.post(chunks, mapped(chunk(runId, token, "0000", 1, 2, 20), 30, 2, 70));
        assertThat(last.text("partitionStatus")).as(last.toString()).isEqualTo("SUCCESS");

        UUID second = UUID.randomUUID();
        ledger.post("/v1/runs/" + runId + "/partitions/0001/claim", claim(second));
        var completing = ledger.post("/v1/runs/" + runId + "/partitions/0001/chunks",
                mapped(chunk(runId, second, "0001", 0, 1, 12), 10, 0, 12));
        assertThat(completing.text("runStatus")).as("the run's 40 lines are the source's count, not its 82 rows")
                .isEqualTo("EXTRACTED_VALIDATED");
        JsonNode run = ledger.get("/v1/runs/" + runId).body();
        assertThat(run.get("extractedCount").asLong()).as("extracted: the rows").isEqualTo(82);
        assertThat(ledger.count("SELECT sum(lines_read) FROM loadgate.load_partition WHERE run_id = '" + runId
                + "' AND rows_emitted = actual_row_count")).isEqualTo(40);
    }

    @Test
    void aMappedPartitionWhoseChunksMissARowOrWhoseMapperReadAnotherLineCountFails() {
        String rows = Runs.started(ledger, job(), 30);
        UUID token = UUID.randomUUID();
        ledger.post("/v1/runs/" + rows + "/partitions/0000/claim", claim(token));
        var lost = ledger.post("/v1/runs/" + rows + "/partitions/0000/chunks",
                mapped(chunk(rows, token, "0000", 0, 1, 69), 30, 0, 70));
        assertThat(lost.text("partitionStatus")).isEqualTo("FAILED");
        assertThat(lost.text("runStatus")).isEqualTo("FAILED_EXTRACT");
        assertThat(ledger.get("/v1/runs/" + rows).text("errorMessage"))
                .contains("staged and rejected 69 rows, its mapper emitted 70");

        String lines = Runs.started(ledger, job(), 30);
        UUID other = UUID.randomUUID();
        ledger.post("/v1/runs/" + lines + "/partitions/0000/claim", claim(other));
        // 30 rows, as many as the lines expected: without the counts this would pass.
        var shortRead = ledger.post("/v1/runs/" + lines + "/partitions/0000/chunks",
                mapped(chunk(lines, other, "0000", 0, 1, 30), 29, 0, 30));
        assertThat(shortRead.text("partitionStatus")).isEqualTo("FAILED");
        assertThat(ledger.get("/v1/runs/" + lines).text("errorMessage"))
                .contains("had 29 lines read by its mapper, expected 30");

        var impossible = ledger.post("/v1/runs/" + lines + "/partitions/0000/chunks",
                mapped(chunk(lines, other, "0000", 0, 1, 30), 30, 0, 29));
        assertThat(impossible.status()).isEqualTo(422);
        assertThat(impossible.code()).isEqualTo("REQUEST_INVALID");
        assertThat(impossible.toString()).contains("rowsEmitted 29 is below the 30 lines that were not skipped");
        var partial = chunk(lines, other, "0000", 0, 1, 30);
        partial.put("linesRead", 30);
        assertThat(ledger.post("/v1/runs/" + lines + "/partitions/0000/chunks", partial).toString())
                .contains("all three or none");
    }

    @Test
    void partitionFailEndsTheRunAndSnapshotLossIsItsOwnFailure() {
        String runId = Runs.started(ledger, job(), 30, 10);
        UUID token = UUID.randomUUID();
        ledger.post("/v1/runs/" + runId + "/partitions/0000/claim", claim(token));
        Map<String, Object> fail = new LinkedHashMap<>();
        fail.put("claimToken", UUID.randomUUID().toString());
        fail.put("errorStage", "EXTRACT");
        fail.put("errorClass", "SNAPSHOT");
        fail.put("errorCode", "SNAPSHOT_GONE");
        fail.put("message", "snapshot expired");
        fail.put("attempt", 1);
        String path = "/v1/runs/" + runId + "/partitions/0000/fail";
        assertThat(ledger.post(path, fail).code()).isEqualTo("CLAIM_MISMATCH");
        fail.put("claimToken", token.toString());
        var response = ledger.post(path, fail);
        assertThat(response.status()).isEqualTo(200);
        assertThat(response.text("partitionStatus")).isEqualTo("FAILED");
        assertThat(response.text("runStatus")).isEqualTo("FAILED_SNAPSHOT_EXPIRED");
        assertThat(response.body().get("changed").asBoolean()).isTrue();
        assertThat(ledger.post(path, fail).body().get("changed").asBoolean()).isFalse();

        String other = Runs.started(ledger, job(), 30);
        UUID t2 = UUID.randomUUID();
        ledger.post("/v1/runs/" + other + "/partitions/0000/claim", claim(t2));
        fail.put("claimToken", t2.toString());
        fail.put("errorClass", "SQL");
        fail.put("errorCode", "ORA-01555");
        assertThat(ledger.post("/v1/runs/" + other + "/partitions/0000/fail", fail).text("runStatus"))
                .isEqualTo("FAILED_SNAPSHOT_EXPIRED");
    }

    @Test
    void aRunsOwnRecoveryModeOverridesTheServers() {
        Map<String, Object> body = create(job(), "K");
        body.put("recoveryMode", "REISSUE");
        String runId = ledger.post("/v1/runs", body).text("runId");
        ledger.post("/v1/runs/" + runId + "/manifest", manifest(10));
        Runs.remember(ledger, runId);
        UUID token = UUID.randomUUID();
        ledger.post("/v1/runs/" + runId + "/partitions/0000/claim", claim(token));
        var failed = ledger.post("/v1/runs/" + runId + "/partitions/0000/fail", Map.of("claimToken", token.toString(),
                "errorClass", "TRANSIENT", "errorCode", "NET", "message", "connection reset"));
        assertThat(failed.text("partitionStatus")).as(failed.toString()).isEqualTo("RETRY");
        assertThat(failed.text("runStatus")).isEqualTo("EXTRACTING");
        assertThat(ledger.get("/v1/runs/" + runId).body().get("dispatches").toString()).contains("REISSUE_PARTITION");
        body.put("recoveryMode", "SOMETIMES");
        assertThat(ledger.post("/v1/runs", body).code()).isEqualTo("REQUEST_INVALID");
    }

    @Test
    void partitionFailOnAPartitionThatIsNotRunningConflicts() {
        String runId = Runs.started(ledger, job(), 30);
        UUID token = UUID.randomUUID();
        ledger.post("/v1/runs/" + runId + "/partitions/0000/claim", claim(token));
        ledger.post("/v1/runs/" + runId + "/partitions/0000/chunks", chunk(runId, token, "0000", 0, 1, 30));
        var response = ledger.post("/v1/runs/" + runId + "/partitions/0000/fail",
                Map.of("claimToken", token.toString(), "errorClass", "SQL", "message", "late"));
        assertThat(response.status()).isEqualTo(409);
        assertThat(response.code()).isEqualTo("PARTITION_STATUS_MISMATCH");
    }

    @Test
    void heartbeatNeedsTheOwnersToken() {
        String runId = Runs.started(ledger, job(), 30);
        UUID token = UUID.randomUUID();
        ledger.post("/v1/runs/" + runId + "/partitions/0000/claim", claim(token));
        String path = "/v1/runs/" + runId + "/partitions/0000/heartbeat";
        var ok = ledger.post(path, Map.of("claimToken", token.toString()));
        assertThat(ok.status()).isEqualTo(200);
        assertThat(ok.text("partitionStatus")).isEqualTo("RUNNING");
        assertThat(ledger.post(path, Map.of("claimToken", UUID.randomUUID().toString())).code())
                .isEqualTo("CLAIM_MISMATCH");
        assertThat(ledger.post(path, Map.of("claimToken", "nope")).code()).isEqualTo("REQUEST_INVALID");
    }

    @Test
    void runFailFollowsTheAllowedPairs() {
        String runId = ledger.post("/v1/runs", create(job(), "K")).text("runId");
        String path = "/v1/runs/" + runId + "/fail";
        Map<String, Object> body = new LinkedHashMap<>(Map.of("expectedStatus", "CREATED", "failStatus",
                "FAILED_EXTRACT", "errorStage", "PLAN", "errorCode", "E", "message", "m"));
        assertThat(ledger.post(path, body).code()).isEqualTo("FAIL_TRANSITION_NOT_ALLOWED");
        body.put("expectedStatus", "EXTRACTING");
        var mismatch = ledger.post(path, body);
        assertThat(mismatch.status()).isEqualTo(409);
        assertThat(mismatch.code()).isEqualTo("RUN_STATUS_MISMATCH");
        body.put("expectedStatus", "CREATED");
        body.put("failStatus", "FAILED_MANIFEST");
        var failed = ledger.post(path, body);
        assertThat(failed.body().get("changed").asBoolean()).isTrue();
        assertThat(failed.text("runStatus")).isEqualTo("FAILED_MANIFEST");
        assertThat(ledger.post(path, body).body().get("changed").asBoolean()).isFalse();
        assertThat(ledger.get("/v1/runs/" + runId).text("errorCode")).isEqualTo("E");
    }

    @Test
    void listFiltersAndOrdersNewestFirst() {
        String job = job();
        String first = ledger.post("/v1/runs", create(job, "A")).text("runId");
        String second = ledger.post("/v1/runs", create(job, "B")).text("runId");
        var list = ledger.get("/v1/runs?jobKey=" + job);
        assertThat(list.status()).isEqualTo(200);
        assertThat(list.body()).hasSize(2);
        assertThat(list.body().get(0).get("runId").asText()).isEqualTo(second);
        assertThat(list.body().get(1).get("runId").asText()).isEqualTo(first);
        assertThat(ledger.get("/v1/runs?jobKey=" + job + "&businessKey=A").body()).hasSize(1);
        assertThat(ledger.get("/v1/runs?jobKey=" + job + "&status=SUCCESS").body()).isEmpty();
        assertThat(ledger.get("/v1/runs?limit=1").body()).hasSize(1);
        assertThat(ledger.get("/v1/runs?limit=5000").code()).isEqualTo("REQUEST_INVALID");
        assertThat(ledger.get("/v1/runs?status=NOPE").code()).isEqualTo("REQUEST_INVALID");
    }

    @Test
    void healthReadinessAndMetricsNeedNoToken() {
        assertThat(ledger.send("GET", "/healthz", null, null).status()).isEqualTo(200);
        assertThat(ledger.send("GET", "/readyz", null, null).status()).isEqualTo(200);
        ledger.get("/v1/runs");
        var metrics = ledger.send("GET", "/metrics", null, null);
        assertThat(metrics.status()).isEqualTo(200);
        assertThat(metrics.raw().body()).contains("loadgate_http_requests");
        assertThat(ledger.send("GET", "/v1/nothing-here", null, ledger.workerToken).code()).isEqualTo("NOT_FOUND");
        var request = java.net.http.HttpRequest.newBuilder(java.net.URI.create(ledger.baseUrl() + "/v1/nothing"))
                .header("Accept", "application/json").build();
        try {
            var response = java.net.http.HttpClient.newHttpClient().send(request,
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(404);
            assertThat(response.body()).contains("\"code\":\"NOT_FOUND\"", "requestId");
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void requestIdIsEchoed() {
        var request = java.net.http.HttpRequest.newBuilder(java.net.URI.create(ledger.baseUrl() + "/healthz"))
                .header("X-Request-Id", "trace-42").build();
        try {
            var response = java.net.http.HttpClient.newHttpClient().send(request,
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(response.headers().firstValue("X-Request-Id")).contains("trace-42");
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}

package io.loadgate.server.http;

import static io.loadgate.server.testing.Runs.chunk;
import static io.loadgate.server.testing.Runs.claim;
import static io.loadgate.server.testing.Runs.create;
import static io.loadgate.server.testing.Runs.manifest;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.loadgate.server.testing.Runs;
import io.loadgate.server.testing.TestLedger;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Progress within a partition: the rows read its owner sends with each heartbeat, and the run's progressRows that
 * counts them until the partition's chunks are reported. Real HTTP on a real database.
 */
class PartitionProgressApiTest {
    @RegisterExtension
    static final TestLedger ledger = new TestLedger();
    private static int jobs;

    private static String job() {
        return "PROGRESS_" + (++jobs) + "_" + UUID.randomUUID().toString().substring(0, 6).toUpperCase().replace('-', '_');
    }

    private static TestLedger.Response beat(String runId, String partitionId, UUID token, Object rowsRead) {
        Map<String, Object> body = new HashMap<>();
        body.put("claimToken", token.toString());
        body.put("rowsRead", rowsRead);
        return ledger.post("/v1/runs/" + runId + "/partitions/" + partitionId + "/heartbeat", body);
    }

    private static JsonNode partition(String runId, String partitionId) {
        for (JsonNode p : ledger.get("/v1/runs/" + runId).body().get("partitions")) {
            if (p.get("partitionId").asText().equals(partitionId)) {
                return p;
            }
        }
        throw new AssertionError("run " + runId + " has no partition " + partitionId);
    }

    private static JsonNode rowsRead(String runId, String partitionId) {
        return partition(runId, partitionId).get("rowsRead");
    }

    @Test
    void theOwnersRowsReadAreRecordedAndNeverMoveBack() {
        String runId = Runs.started(ledger, job(), 1000);
        UUID token = UUID.randomUUID();
        ledger.post("/v1/runs/" + runId + "/partitions/0000/claim", claim(token));
        assertThat(rowsRead(runId, "0000").isNull()).as("unknown before the first count").isTrue();

        var first = beat(runId, "0000", token, 400);
        assertThat(first.status()).as(first.toString()).isEqualTo(200);
        assertThat(first.text("partitionStatus")).isEqualTo("RUNNING");
        assertThat(rowsRead(runId, "0000").asLong()).isEqualTo(400);

        assertThat(beat(runId, "0000", token, 250).status()).as("a late beat is still a beat").isEqualTo(200);
        assertThat(rowsRead(runId, "0000").asLong()).as("a late, smaller count is ignored").isEqualTo(400);

        assertThat(beat(runId, "0000", token, "700").status()).as("lenient like every integer").isEqualTo(200);
        assertThat(rowsRead(runId, "0000").asLong()).isEqualTo(700);
        var plain = ledger.post("/v1/runs/" + runId + "/partitions/0000/heartbeat",
                Map.of("claimToken", token.toString()));
        assertThat(plain.status()).as("a beat without a count: " + plain).isEqualTo(200);
        assertThat(rowsRead(runId, "0000").asLong()).as("a beat without a count keeps it").isEqualTo(700);
    }

    @Test
    void anotherTokensCountIsRefusedAndChangesNothing() {
        String runId = Runs.started(ledger, job(), 1000);
        UUID token = UUID.randomUUID();
        ledger.post("/v1/runs/" + runId + "/partitions/0000/claim", claim(token));
        beat(runId, "0000", token, 10);

        var stranger = beat(runId, "0000", UUID.randomUUID(), 900);

        assertThat(stranger.status()).as(stranger.toString()).isEqualTo(409);
        assertThat(stranger.code()).isEqualTo("CLAIM_MISMATCH");
        assertThat(rowsRead(runId, "0000").asLong()).isEqualTo(10);
    }

    @Test
    void badCountsAreRefusedWithTheFieldNamed() {
        String runId = Runs.started(ledger, job(), 1000);
        UUID token = UUID.randomUUID();
        ledger.post("/v1/runs/" + runId + "/partitions/0000/claim", claim(token));
        for (Object bad : new Object[] {-1, 1.5, "many", true, Map.of("n", 1)}) {
            var response = beat(runId, "0000", token, bad);
            assertThat(response.status()).as(bad + ": " + response).isEqualTo(422);
            assertThat(response.code()).as(String.valueOf(bad)).isEqualTo("REQUEST_INVALID");
            assertThat(response.body().at("/details/errors").toString()).as(String.valueOf(bad)).contains("rowsRead");
        }
        assertThat(rowsRead(runId, "0000").isNull()).isTrue();
    }

    @Test
    void aReissuedPartitionStartsCountingAgain() {
        Map<String, Object> body = create(job(), "K");
        body.put("recoveryMode", "REISSUE");
        String runId = ledger.post("/v1/runs", body).text("runId");
        ledger.post("/v1/runs/" + runId + "/manifest", manifest(1000));
        UUID first = UUID.randomUUID();
        ledger.post("/v1/runs/" + runId + "/partitions/0000/claim", claim(first));
        beat(runId, "0000", first, 800);
        var failed = ledger.post("/v1/runs/" + runId + "/partitions/0000/fail", Map.of("claimToken", first.toString(),
                "errorClass", "TRANSIENT", "errorCode", "NET", "message", "connection reset"));
        assertThat(failed.text("partitionStatus")).as(failed.toString()).isEqualTo("RETRY");
        assertThat(rowsRead(runId, "0000").isNull()).as("reissued").isTrue();
        assertThat(ledger.get("/v1/runs/" + runId).body().get("progressRows").asLong()).isZero();

        UUID second = UUID.randomUUID();
        ledger.post("/v1/runs/" + runId + "/partitions/0000/claim", claim(second));
        assertThat(beat(runId, "0000", first, 900).code()).as("the old owner").isEqualTo("CLAIM_MISMATCH");
        beat(runId, "0000", second, 50);
        assertThat(rowsRead(runId, "0000").asLong()).as("the new attempt's count, though lower").isEqualTo(50);
    }

    @Test
    void progressCountsChunkRowsAndTheRowsReadOfPartitionsWithoutChunksAndEndsAtTheExtractedCount() {
        String runId = Runs.started(ledger, job(), 30, 40, 50);
        UUID a = UUID.randomUUID();
        UUID b = UUID.randomUUID();
        UUID c = UUID.randomUUID();
        ledger.post("/v1/runs/" + runId + "/partitions/0000/claim", claim(a));
        ledger.post("/v1/runs/" + runId + "/partitions/0001/claim", claim(b));
        ledger.post("/v1/runs/" + runId + "/partitions/0002/claim", claim(c));
        assertThat(ledger.get("/v1/runs/" + runId).body().get("progressRows").asLong()).isZero();

        beat(runId, "0000", a, 10);
        beat(runId, "0001", b, 25);
        ledger.post("/v1/runs/" + runId + "/partitions/0002/chunks", chunk(runId, c, "0002", 0, 1, 50));
        JsonNode run = ledger.get("/v1/runs/" + runId).body();
        assertThat(run.get("extractedCount").asLong()).isEqualTo(50);
        assertThat(run.get("progressRows").asLong()).as(run.toString()).isEqualTo(10 + 25 + 50);
        assertThat(ledger.get("/v1/runs?jobKey=" + run.get("jobKey").asText()).body().get(0).get("progressRows")
                .asLong()).as("the list shows it too").isEqualTo(85);

        // 0000 has read all its rows and reports the first of its two chunks: its count of rows read still stands.
        beat(runId, "0000", a, 30);
        ledger.post("/v1/runs/" + runId + "/partitions/0000/chunks", chunk(runId, a, "0000", 0, 2, 15));
        assertThat(ledger.get("/v1/runs/" + runId).body().get("progressRows").asLong()).isEqualTo(30 + 25 + 50);

        ledger.post("/v1/runs/" + runId + "/partitions/0000/chunks", chunk(runId, a, "0000", 1, 2, 15));
        ledger.post("/v1/runs/" + runId + "/partitions/0001/chunks", chunk(runId, b, "0001", 0, 1, 40));
        run = ledger.get("/v1/runs/" + runId).body();
        assertThat(run.get("status").asText()).isEqualTo("EXTRACTED_VALIDATED");
        assertThat(run.get("progressRows").asLong()).as(run.toString()).isEqualTo(120)
                .isEqualTo(run.get("extractedCount").asLong());
    }
}

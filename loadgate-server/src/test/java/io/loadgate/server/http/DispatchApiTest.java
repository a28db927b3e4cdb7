package io.loadgate.server.http;

import static io.loadgate.server.testing.Runs.create;
import static io.loadgate.server.testing.Runs.manifest;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.loadgate.server.testing.TestLedger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code POST /v1/dispatches/lease} (the workers' long poll) and the operator's resend, through real HTTP. */
class DispatchApiTest {
    @RegisterExtension
    static final TestLedger ledger = new TestLedger();
    private static int jobs;

    @BeforeEach
    void clear() {
        ledger.execute("TRUNCATE load_run CASCADE");
    }

    private static String workerRun() {
        Map<String, Object> body = create("LEASE_" + (++jobs), "2026-11-29");
        body.put("executor", "worker");
        var created = ledger.post("/v1/runs", body);
        assertThat(created.status()).as(created.toString()).isEqualTo(200);
        return created.text("runId");
    }

    private static Map<String, Object> leaseBody(int waitSeconds) {
        return Map.of("node", "worker-1", "types", List.of("EXTRACT_PARTITION"), "max", 10, "waitSeconds", waitSeconds);
    }

    @Test
    void longPollReturnsAsSoonAsADispatchIsInserted() {
        String runId = workerRun();
        long started = System.nanoTime();
        CompletableFuture<TestLedger.Response> poll = CompletableFuture.supplyAsync(() ->
                ledger.post("/v1/dispatches/lease", leaseBody(30)));
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> !poll.isDone());

        assertThat(ledger.post("/v1/runs/" + runId + "/manifest", manifest(5, 0, 7)).status()).isEqualTo(200);

        var response = poll.orTimeout(5, java.util.concurrent.TimeUnit.SECONDS).join();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("well before waitSeconds")
                .isLessThan(Duration.ofSeconds(10));
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        List<String> partitions = new ArrayList<>();
        for (JsonNode item : response.body()) {
            assertThat(item.get("runId").asText()).isEqualTo(runId);
            assertThat(item.get("dispatchType").asText()).isEqualTo("EXTRACT_PARTITION");
            assertThat(item.at("/payload/jobKey").asText()).startsWith("LEASE_");
            assertThat(item.at("/payload/businessKey").asText()).isEqualTo("2026-11-29");
            assertThat(item.at("/payload/snapshotScn").asText()).isEqualTo("123456");
            assertThat(item.at("/payload/partition/partitionId").asText()).isEqualTo(item.get("partitionId").asText());
            partitions.add(item.get("partitionId").asText());
        }
        assertThat(partitions).as("the non-empty partitions").containsExactlyInAnyOrder("0000", "0002");
        assertThat(ledger.count("SELECT count(*) FROM load_dispatch WHERE status = 'SENT' AND sent_at IS NOT NULL"))
                .as("a lease is a receipt").isEqualTo(2);

        var again = ledger.post("/v1/dispatches/lease", leaseBody(0));
        assertThat(again.body()).as("leased once until the ack timeout").isEmpty();
    }

    @Test
    void anUnackedLeaseIsHandedOutAgainAfterTheAckTimeout() {
        String runId = workerRun();
        assertThat(ledger.post("/v1/runs/" + runId + "/manifest", manifest(5)).status()).isEqualTo(200);
        String first = ledger.post("/v1/dispatches/lease", leaseBody(0)).body().get(0).get("dispatchId").asText();
        assertThat(ledger.post("/v1/dispatches/lease", leaseBody(0)).body()).isEmpty();

        ledger.execute("UPDATE load_dispatch SET sent_at = now() - interval '11 minutes'");
        var again = ledger.post("/v1/dispatches/lease", leaseBody(0));
        assertThat(again.body()).hasSize(1);
        assertThat(again.body().get(0).get("dispatchId").asText()).isEqualTo(first);
        assertThat(ledger.count("SELECT attempt_count FROM load_dispatch")).isEqualTo(2);

        // The step's own CAS is the ACK: claiming the partition ends redelivery.
        var claim = ledger.post("/v1/runs/" + runId + "/partitions/0000/claim",
                io.loadgate.server.testing.Runs.claim(UUID.randomUUID()));
        assertThat(claim.body().get("claimed").asBoolean()).as(claim.toString()).isTrue();
        ledger.execute("UPDATE load_dispatch SET sent_at = now() - interval '11 minutes'");
        assertThat(ledger.post("/v1/dispatches/lease", leaseBody(0)).body()).isEmpty();
        assertThat(ledger.count("SELECT count(*) FROM load_dispatch WHERE status = 'ACKED'")).isEqualTo(1);
    }

    @Test
    void aLeaseHandedBackIsDueAgainAtOnceButOnlyItsHolderCanHandItBack() {
        String runId = workerRun();
        assertThat(ledger.post("/v1/runs/" + runId + "/manifest", manifest(5)).status()).isEqualTo(200);
        var leased = ledger.post("/v1/dispatches/lease", Map.of("node", "stopping-worker", "waitSeconds", 0));
        String dispatchId = leased.body().get(0).get("dispatchId").asText();
        String path = "/v1/dispatches/" + dispatchId + "/release";
        assertThat(ledger.post(path, Map.of("node", "someone-else")).body().get("released").asBoolean()).isFalse();
        assertThat(ledger.send("POST", path, Map.of("node", "stopping-worker"), ledger.viewerToken).status())
                .isEqualTo(403);
        assertThat(ledger.post(path, Map.of("node", "stopping-worker")).body().get("released").asBoolean()).isTrue();
        assertThat(ledger.post(path, Map.of("node", "stopping-worker")).body().get("released").asBoolean()).isFalse();
        var again = ledger.post("/v1/dispatches/lease", Map.of("node", "other-worker", "waitSeconds", 0));
        assertThat(again.body()).hasSize(1);
        assertThat(again.body().get(0).get("dispatchId").asText()).isEqualTo(dispatchId);
        assertThat(ledger.post("/v1/dispatches/not-a-uuid/release", Map.of("node", "x")).status()).isEqualTo(404);
    }

    @Test
    void leaseOnlyHandsOutTheWantedTypes() {
        String runId = workerRun();
        assertThat(ledger.post("/v1/runs/" + runId + "/manifest", manifest(5)).status()).isEqualTo(200);
        var other = ledger.post("/v1/dispatches/lease",
                Map.of("node", "w", "types", List.of("VALIDATE_RUN"), "max", 5, "waitSeconds", 0));
        assertThat(other.status()).isEqualTo(200);
        assertThat(other.body()).isEmpty();
        var all = ledger.post("/v1/dispatches/lease", Map.of("node", "w", "max", "5"));
        assertThat(all.body()).as("no types: every type").hasSize(1);
    }

    @Test
    void leaseIsForTheWorkerRoleOnly() {
        assertThat(ledger.send("POST", "/v1/dispatches/lease", leaseBody(0), ledger.viewerToken).status())
                .isEqualTo(403);
        assertThat(ledger.send("POST", "/v1/dispatches/lease", leaseBody(0), ledger.operatorToken).status())
                .isEqualTo(403);
        assertThat(ledger.send("POST", "/v1/dispatches/lease", leaseBody(0), null).status()).isEqualTo(401);
    }

    @Test
    void leaseRequestsAreValidated() {
        var tooLong = ledger.post("/v1/dispatches/lease", Map.of("node", "w", "waitSeconds", 61));
        assertThat(tooLong.status()).isEqualTo(422);
        assertThat(tooLong.code()).isEqualTo("REQUEST_INVALID");
        var badType = ledger.post("/v1/dispatches/lease", Map.of("node", "w", "types", List.of("NOPE")));
        assertThat(badType.status()).isEqualTo(422);
        assertThat(badType.body().at("/details/errors/0/field").asText()).isEqualTo("types[0]");
        assertThat(ledger.post("/v1/dispatches/lease", Map.of("max", 1)).status()).as("node is required")
                .isEqualTo(422);
    }

    @Test
    void operatorResendsADeadDispatch() {
        String runId = workerRun();
        assertThat(ledger.post("/v1/runs/" + runId + "/manifest", manifest(5)).status()).isEqualTo(200);
        String dispatchId = ledger.post("/v1/dispatches/lease", leaseBody(0)).body().get(0).get("dispatchId").asText();
        String path = "/v1/runs/" + runId + "/dispatches/" + dispatchId + "/resend";

        assertThat(ledger.send("POST", path, Map.of(), ledger.workerToken).status()).as("worker may not resend")
                .isEqualTo(403);
        ledger.execute("UPDATE load_dispatch SET status = 'DEAD', attempt_count = 20");
        var resent = ledger.send("POST", path, null, ledger.operatorToken);
        assertThat(resent.status()).as(resent.toString()).isEqualTo(200);
        assertThat(resent.text("status")).isEqualTo("PENDING");
        assertThat(resent.text("dispatchId")).isEqualTo(dispatchId);
        assertThat(ledger.count("SELECT attempt_count FROM load_dispatch")).as("attempts reset").isZero();
        assertThat(ledger.count("SELECT count(*) FROM load_event WHERE event_type = 'DISPATCH_RESENT' "
                + "AND actor LIKE 'operator:%'")).isEqualTo(1);

        var pending = ledger.send("POST", path, Map.of(), ledger.operatorToken);
        assertThat(pending.status()).isEqualTo(409);
        assertThat(pending.code()).isEqualTo("DISPATCH_STATUS_MISMATCH");

        var unknown = ledger.send("POST", "/v1/runs/" + runId + "/dispatches/" + UUID.randomUUID() + "/resend",
                Map.of(), ledger.operatorToken);
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.code()).isEqualTo("DISPATCH_NOT_FOUND");
        assertThat(ledger.send("POST", "/v1/runs/" + runId + "/dispatches/not-a-uuid/resend", Map.of(),
                ledger.operatorToken).code()).isEqualTo("DISPATCH_NOT_FOUND");
    }

    @Test
    void dispatchesOfEndedRunsAreNotLeased() {
        String runId = workerRun();
        assertThat(ledger.post("/v1/runs/" + runId + "/manifest", manifest(5)).status()).isEqualTo(200);
        ledger.execute("UPDATE load_run SET status = 'FAILED_EXTRACT'");
        assertThat(ledger.post("/v1/dispatches/lease", leaseBody(0)).body()).isEmpty();
        assertThat(ledger.count("SELECT count(*) FROM load_dispatch WHERE status = 'DEAD' "
                + "AND last_error LIKE 'RUN_ENDED%'")).isEqualTo(1);
    }
}

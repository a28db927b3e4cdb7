package io.loadgate.server.http;

import static io.loadgate.server.testing.Runs.create;
import static io.loadgate.server.testing.Runs.createAfter;
import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.server.testing.TestLedger;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 8, item 2: {@code POST /v1/runs} with an {@code Idempotency-Key} (an extension) returns the run the first
 * create with that key made, to a retry or to a copy a proxy duplicated; without the key it behaves as the NiFi wire
 * always did.
 */
class IdempotentCreateTest {
    @RegisterExtension
    static final TestLedger ledger = new TestLedger();

    private static String job() {
        return "IDEM_" + UUID.randomUUID().toString().substring(0, 8).toUpperCase();
    }

    private static TestLedger.Response keyed(Map<String, Object> body, String key) {
        return ledger.send("POST", "/v1/runs", body, ledger.workerToken, Map.of("Idempotency-Key", key));
    }

    @Test
    void theSameKeyAndRequestAgainGetTheSameRun() {
        String job = job();
        String key = UUID.randomUUID().toString();
        var first = keyed(create(job, "K"), key);
        var again = keyed(create(job, "K"), key);

        assertThat(first.status()).as(first.toString()).isEqualTo(200);
        assertThat(again.status()).as(again.toString()).isEqualTo(200);
        assertThat(again.text("runId")).isEqualTo(first.text("runId"));
        assertThat(again.text("hdfsRunPath")).isEqualTo(first.text("hdfsRunPath"));
        assertThat(again.text("stageTable")).isEqualTo(first.text("stageTable"));
        assertThat(again.raw().headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(first.raw().headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(ledger.count("SELECT count(*) FROM load_run WHERE job_key = '" + job + "'")).isEqualTo(1);
    }

    @Test
    void copiesArrivingAtOnceGetOneRun() throws Exception {
        String job = job();
        String key = UUID.randomUUID().toString();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Callable<TestLedger.Response>> copies = IntStream.range(0, 8)
                    .<Callable<TestLedger.Response>>mapToObj(i -> () -> keyed(create(job, "K"), key)).toList();
            List<TestLedger.Response> answers = pool.invokeAll(copies).stream().map(IdempotentCreateTest::get).toList();

            assertThat(answers).allSatisfy(a -> assertThat(a.status()).as(a.toString()).isEqualTo(200));
            assertThat(answers).extracting(a -> a.text("runId")).containsOnly(answers.get(0).text("runId"));
            assertThat(ledger.count("SELECT count(*) FROM load_run WHERE job_key = '" + job + "'")).isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theSameKeyWithAnotherRequestIsRefused() {
        String job = job();
        String key = UUID.randomUUID().toString();
        String runId = keyed(create(job, "K"), key).text("runId");
        Map<String, Object> other = create(job, "K");
        other.put("parameters", Map.of("x", "1"));

        var refused = keyed(other, key);
        assertThat(refused.status()).as(refused.toString()).isEqualTo(422);
        assertThat(refused.code()).isEqualTo("IDEMPOTENCY_KEY_REUSED");
        assertThat(refused.body().get("details").get("runId").asText()).isEqualTo(runId);
        assertThat(keyed(create(job, "OTHER_KEY"), key).code()).as("another business key")
                .isEqualTo("IDEMPOTENCY_KEY_REUSED");
    }

    @Test
    void theSameKeyWithAnotherAfterRunIsRefused() {
        String job = job();
        String first = keyed(create(job, "K"), UUID.randomUUID().toString()).text("runId");
        var failed = ledger.post("/v1/runs/" + first + "/fail", Map.of("expectedStatus", "CREATED",
                "failStatus", "FAILED_MANIFEST", "errorCode", "GIVEN_UP", "message", "the test ends it"));
        assertThat(failed.status()).as(failed.toString()).isEqualTo(200);
        String key = UUID.randomUUID().toString();
        var created = keyed(createAfter(job, first), key);
        assertThat(created.status()).as(created.toString()).isEqualTo(200);

        // Its precondition is part of the request: answering a create planned after no run, or without one, with
        // the run made after `first` would tell its caller its plan held when it was never checked.
        for (Map<String, Object> other : List.of(createAfter(job, null), create(job, "K"),
                createAfter(job, UUID.randomUUID().toString()))) {
            var refused = keyed(other, key);
            assertThat(refused.status()).as(other + ": " + refused).isEqualTo(422);
            assertThat(refused.code()).isEqualTo("IDEMPOTENCY_KEY_REUSED");
            assertThat(refused.body().get("details").get("runId").asText()).isEqualTo(created.text("runId"));
        }
        var again = keyed(createAfter(job, first), key);
        assertThat(again.status()).as(again.toString()).isEqualTo(200);
        assertThat(again.text("runId")).isEqualTo(created.text("runId"));
        assertThat(again.raw().headers().firstValue("Idempotent-Replayed")).contains("true");
    }

    @Test
    void aKeyWithoutAfterRunIsRefusedWithOne() {
        String job = job();
        String key = UUID.randomUUID().toString();
        String runId = keyed(create(job, "K"), key).text("runId");
        var refused = keyed(createAfter(job, null), key);
        assertThat(refused.code()).as(refused.toString()).isEqualTo("IDEMPOTENCY_KEY_REUSED");
        assertThat(refused.body().get("details").get("runId").asText()).isEqualTo(runId);
    }

    @Test
    void aKeyKeepsNamingItsRunAfterTheRunEnded() {
        String job = job();
        String key = UUID.randomUUID().toString();
        String runId = keyed(create(job, "K"), key).text("runId");
        var failed = ledger.post("/v1/runs/" + runId + "/fail", Map.of("expectedStatus", "CREATED",
                "failStatus", "FAILED_MANIFEST", "errorCode", "GIVEN_UP", "message", "the flow gave up"));
        assertThat(failed.status()).as(failed.toString()).isEqualTo(200);

        var again = keyed(create(job, "K"), key);
        assertThat(again.text("runId")).isEqualTo(runId);
        assertThat(again.text("status")).isEqualTo("FAILED_MANIFEST");
        var fresh = keyed(create(job, "K"), UUID.randomUUID().toString());
        assertThat(fresh.status()).as("a new key makes a new run").isEqualTo(200);
        assertThat(fresh.text("runId")).isNotEqualTo(runId);
    }

    @Test
    void withoutAKeyASecondCreateIsStillADuplicate() {
        String job = job();
        keyed(create(job, "K"), UUID.randomUUID().toString());

        assertThat(ledger.post("/v1/runs", create(job, "K")).code()).isEqualTo("DUPLICATE_ACTIVE_RUN");
        assertThat(keyed(create(job, "K"), UUID.randomUUID().toString()).code()).as("another key")
                .isEqualTo("DUPLICATE_ACTIVE_RUN");
    }

    @Test
    void aMalformedKeyIsInvalid() {
        var response = keyed(create(job(), "K"), "x".repeat(201));
        assertThat(response.status()).isEqualTo(422);
        assertThat(response.code()).isEqualTo("REQUEST_INVALID");
        assertThat(response.body().get("details").get("errors").toString()).contains("Idempotency-Key");
    }

    private static TestLedger.Response get(Future<TestLedger.Response> future) {
        try {
            return future.get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}

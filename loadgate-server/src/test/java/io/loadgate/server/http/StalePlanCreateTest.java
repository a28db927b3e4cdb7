package io.loadgate.server.http;

import static io.loadgate.server.testing.Runs.create;
import static io.loadgate.server.testing.Runs.createAfter;
import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.server.testing.TestLedger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 11: {@code POST /v1/runs} with {@code afterRun} (an extension) creates only while the key's latest run is the
 * one the caller planned after ({@code runId} null: the key has no run), else 409 STALE_PLAN naming the latest.
 */
class StalePlanCreateTest {
    @RegisterExtension
    static final TestLedger ledger = new TestLedger();

    private static String job() {
        return "STALE_" + UUID.randomUUID().toString().substring(0, 8).toUpperCase();
    }

    private static void fail(String runId) {
        var failed = ledger.post("/v1/runs/" + runId + "/fail", Map.of("expectedStatus", "CREATED",
                "failStatus", "FAILED_MANIFEST", "errorCode", "GIVEN_UP", "message", "the test ends it"));
        assertThat(failed.status()).as(failed.toString()).isEqualTo(200);
    }

    private static long runs(String job) {
        return ledger.count("SELECT count(*) FROM load_run WHERE job_key = '" + job + "'");
    }

    @Test
    void aCreateIsMadeOnlyAfterTheRunItWasPlannedAfter() {
        String job = job();
        var first = ledger.post("/v1/runs", createAfter(job, null));
        assertThat(first.status()).as(first.toString()).isEqualTo(200);
        String firstRun = first.text("runId");
        fail(firstRun);

        var stale = ledger.post("/v1/runs", createAfter(job, null));
        assertThat(stale.status()).as(stale.toString()).isEqualTo(409);
        assertThat(stale.code()).isEqualTo("STALE_PLAN");
        assertThat(stale.body().get("details").get("latestRunId").asText()).isEqualTo(firstRun);

        var second = ledger.post("/v1/runs", createAfter(job, firstRun));
        assertThat(second.status()).as(second.toString()).isEqualTo(200);
        fail(second.text("runId"));
        var behind = ledger.post("/v1/runs", createAfter(job, firstRun));
        assertThat(behind.code()).as(behind.toString()).isEqualTo("STALE_PLAN");
        assertThat(behind.body().get("details").get("latestRunId").asText()).isEqualTo(second.text("runId"));
        assertThat(runs(job)).isEqualTo(2);
    }

    @Test
    void anActiveLatestRunIsStillADuplicateAndNoPreconditionIsTheSeedsCreate() {
        String job = job();
        String active = ledger.post("/v1/runs", create(job, "K")).text("runId");

        var duplicate = ledger.post("/v1/runs", createAfter(job, active));
        assertThat(duplicate.code()).as(duplicate.toString()).isEqualTo("DUPLICATE_ACTIVE_RUN");
        assertThat(ledger.post("/v1/runs", createAfter(job, null)).code()).isEqualTo("DUPLICATE_ACTIVE_RUN");
        fail(active);
        assertThat(ledger.post("/v1/runs", create(job, "K")).status()).as("no afterRun: no precondition")
                .isEqualTo(200);
    }

    @Test
    void aRetriedCreateGetsItsRunEvenThoughItIsNowTheLatest() {
        String job = job();
        String key = UUID.randomUUID().toString();
        var first = ledger.send("POST", "/v1/runs", createAfter(job, null), ledger.workerToken,
                Map.of("Idempotency-Key", key));
        var again = ledger.send("POST", "/v1/runs", createAfter(job, null), ledger.workerToken,
                Map.of("Idempotency-Key", key));

        assertThat(again.status()).as(again.toString()).isEqualTo(200);
        assertThat(again.text("runId")).isEqualTo(first.text("runId"));
        assertThat(runs(job)).isEqualTo(1);
    }

    @Test
    void aMalformedPreconditionIsInvalid() {
        Map<String, Object> noRunId = create(job(), "K");
        noRunId.put("afterRun", Map.of());
        Map<String, Object> notObject = create(job(), "K");
        notObject.put("afterRun", "none");
        Map<String, Object> extra = createAfter(job(), null);
        ((Map<String, Object>) extra.get("afterRun")).put("status", "SUCCESS");
        Map<String, Object> notUuid = createAfter(job(), "run-1");

        for (var body : List.of(noRunId, notObject, extra, notUuid)) {
            var response = ledger.post("/v1/runs", body);
            assertThat(response.status()).as(response.toString()).isEqualTo(422);
            assertThat(response.code()).isEqualTo("REQUEST_INVALID");
            assertThat(response.body().get("details").get("errors").toString()).as(body.toString())
                    .contains("afterRun");
        }
    }

    /**
     * Creates planned after one run, each ending its run as soon as it has it: a run created and ended while another
     * create was under way must still be seen by that create, so exactly one is made.
     */
    @Test
    void createsAtOnceAfterOneRunMakeOneRunEvenWhenEachEndsAtOnce() throws Exception {
        for (int round = 0; round < 5; round++) {
            String job = job();
            String base = ledger.post("/v1/runs", create(job, "K")).text("runId");
            fail(base);
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                List<Callable<String>> creates = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    creates.add(() -> {
                        var answer = ledger.post("/v1/runs", createAfter(job, base));
                        if (answer.status() == 200) {
                            fail(answer.text("runId"));
                        }
                        return answer.status() == 200 ? "CREATED" : answer.code();
                    });
                }
                List<String> outcomes = new ArrayList<>();
                for (Future<String> f : pool.invokeAll(creates)) {
                    outcomes.add(f.get());
                }
                assertThat(outcomes).as(outcomes.toString()).containsOnlyOnce("CREATED")
                        .isSubsetOf("CREATED", "STALE_PLAN", "DUPLICATE_ACTIVE_RUN");
                assertThat(runs(job)).isEqualTo(2);
            } finally {
                pool.shutdownNow();
            }
        }
    }
}

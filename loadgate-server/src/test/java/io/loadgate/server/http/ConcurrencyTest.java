package io.loadgate.server.http;

import static io.loadgate.server.testing.Runs.chunk;
import static io.loadgate.server.testing.Runs.claim;
import static io.loadgate.server.testing.Runs.create;
import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.server.testing.Runs;
import io.loadgate.server.testing.TestLedger;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The ledger's exactly-once claims, raced by many real threads over real HTTP. */
class ConcurrencyTest {
    @RegisterExtension
    static final TestLedger ledger = new TestLedger();
    private static ExecutorService pool;

    @BeforeAll
    static void start() {
        pool = Executors.newFixedThreadPool(50);
    }

    @AfterAll
    static void stop() {
        pool.shutdownNow();
    }

    /** Starts every task at the same instant and waits for all results. */
    private static <T> List<T> race(List<Callable<T>> tasks) throws Exception {
        CountDownLatch ready = new CountDownLatch(tasks.size());
        CountDownLatch go = new CountDownLatch(1);
        List<Future<T>> futures = new ArrayList<>();
        for (Callable<T> task : tasks) {
            futures.add(pool.submit(() -> {
                ready.countDown();
                go.await();
                return task.call();
            }));
        }
        ready.await();
        go.countDown();
        List<T> results = new ArrayList<>();
        for (Future<T> f : futures) {
            results.add(f.get());
        }
        return results;
    }

    @Test
    void fiftyClaimersOfOnePartitionHaveExactlyOneWinner() throws Exception {
        String runId = Runs.started(ledger, "CLAIM_RACE", 10);
        List<UUID> tokens = new ArrayList<>();
        List<Callable<TestLedger.Response>> tasks = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            UUID token = UUID.randomUUID();
            tokens.add(token);
            tasks.add(() -> ledger.post("/v1/runs/" + runId + "/partitions/0000/claim", claim(token)));
        }
        List<TestLedger.Response> responses = race(tasks);
        List<UUID> winners = new ArrayList<>();
        for (int i = 0; i < responses.size(); i++) {
            assertThat(responses.get(i).status()).as(responses.get(i).toString()).isEqualTo(200);
            if (responses.get(i).body().get("claimed").asBoolean()) {
                winners.add(tokens.get(i));
            }
        }
        assertThat(winners).hasSize(1);
        UUID winner = winners.get(0);
        assertThat(ledger.post("/v1/runs/" + runId + "/partitions/0000/claim", claim(winner)).body().get("claimed")
                .asBoolean()).isTrue();
        for (UUID token : tokens) {
            if (!token.equals(winner)) {
                assertThat(ledger.post("/v1/runs/" + runId + "/partitions/0000/claim", claim(token)).body()
                        .get("claimed").asBoolean()).isFalse();
            }
        }
        assertThat(ledger.count("SELECT attempt_count FROM loadgate.load_partition WHERE run_id = '" + runId + "'"))
                .isEqualTo(1);
    }

    @Test
    void simultaneousLastChunksCompleteTheRunExactlyOnce() throws Exception {
        for (int round = 0; round < 200; round++) {
            int partitions = 2 + round % 15;
            long[] counts = new long[partitions];
            java.util.Arrays.fill(counts, 5);
            String runId = Runs.started(ledger, "LAST_CHUNK_" + round, counts);
            List<UUID> tokens = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                UUID token = UUID.randomUUID();
                tokens.add(token);
                String pid = String.format("%04d", p);
                ledger.post("/v1/runs/" + runId + "/partitions/" + pid + "/claim", claim(token));
            }
            List<Callable<TestLedger.Response>> tasks = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                String pid = String.format("%04d", p);
                UUID token = tokens.get(p);
                tasks.add(() -> ledger.post("/v1/runs/" + runId + "/partitions/" + pid + "/chunks",
                        chunk(runId, token, pid, 0, 1, 5)));
            }
            List<TestLedger.Response> responses = race(tasks);
            long scheduled = responses.stream().filter(r -> {
                assertThat(r.status()).as(r.toString()).isEqualTo(200);
                return r.body().get("validationScheduled").asBoolean();
            }).count();
            assertThat(scheduled).as("round %d", round).isEqualTo(1);
            assertThat(ledger.count("SELECT count(*) FROM loadgate.load_event WHERE run_id = '" + runId
                    + "' AND to_status = 'EXTRACTED_VALIDATED'")).as("round %d", round).isEqualTo(1);
            assertThat(ledger.count("SELECT count(*) FROM loadgate.load_dispatch WHERE run_id = '" + runId
                    + "' AND dispatch_type = 'VALIDATE_RUN'")).as("round %d", round).isEqualTo(1);
            assertThat(ledger.get("/v1/runs/" + runId).text("status")).isEqualTo("EXTRACTED_VALIDATED");
        }
    }

    @Test
    void twentyConcurrentCreatesForOneKeyMakeOneRun() throws Exception {
        List<Callable<TestLedger.Response>> tasks = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            tasks.add(() -> ledger.post("/v1/runs", create("CREATE_RACE", "2026-11-29")));
        }
        List<TestLedger.Response> responses = race(tasks);
        assertThat(responses).filteredOn(r -> r.status() == 200).hasSize(1);
        String winner = responses.stream().filter(r -> r.status() == 200).findFirst().orElseThrow().text("runId");
        assertThat(responses).filteredOn(r -> r.status() == 409).hasSize(19)
                .allSatisfy(r -> {
                    assertThat(r.code()).isEqualTo("DUPLICATE_ACTIVE_RUN");
                    assertThat(r.body().at("/details/activeRunId").asText()).isEqualTo(winner);
                });
        assertThat(ledger.count("SELECT count(*) FROM loadgate.load_run WHERE job_key = 'CREATE_RACE'")).isEqualTo(1);
    }
}

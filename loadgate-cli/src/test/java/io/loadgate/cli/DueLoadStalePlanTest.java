package io.loadgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.api.RunApi.CreateRun;
import io.loadgate.api.RunApi.CreatedRun;
import io.loadgate.api.RunApi.OnLostResponse;
import io.loadgate.worker.execution.SourceCache;
import io.loadgate.worker.execution.TargetCatalogs;
import io.loadgate.worker.ledger.ForwardingLedgerClient;
import io.loadgate.worker.ledger.HttpLedgerClient;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.ledger.LedgerClientConfig;
import io.loadgate.worker.ledger.LedgerToken;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 11: the residual race of two keyless loads, made to happen every time. Between a load's plan of a key and its
 * create, another run of the key is created (and ended): the ledger refuses the create (STALE_PLAN, the create's
 * afterRun), and the load reads the key again instead of running its older plan. Real files, the real ledger over
 * HTTP, real workers and an Iceberg table; the only seam is a client that runs the other load just before the create.
 */
@Timeout(600)
class DueLoadStalePlanTest {
    @TempDir
    static Path dir;
    private static JobFixture fixture;

    @BeforeAll
    static void start() throws Exception {
        fixture = new JobFixture(dir);
    }

    @AfterAll
    static void stop() {
        fixture.close();
    }

    /** Runs {@code before} once, just before the first create this client sends. */
    private static final class BeforeFirstCreate extends ForwardingLedgerClient {
        private final Runnable before;
        private final AtomicBoolean done = new AtomicBoolean();

        BeforeFirstCreate(LedgerClient delegate, Runnable before) {
            super(delegate);
            this.before = before;
        }

        @Override
        protected <T> T around(String method, Supplier<T> call) {
            return call.get();
        }

        @Override
        public CreatedRun createRun(CreateRun request, OnLostResponse onLostResponse, String idempotencyKey) {
            if (done.compareAndSet(false, true)) {
                before.run();
            }
            return super.createRun(request, onLostResponse, idempotencyKey);
        }
    }

    /** A keyless load of {@code job} through {@code client}, in this process against the fixture's ledger. */
    private static OperatorCommandsTest.Result load(Path job, LedgerClient client) throws Exception {
        PrintStream out = System.out;
        var stdout = new ByteArrayOutputStream();
        System.setOut(new PrintStream(stdout, true, StandardCharsets.UTF_8));
        try (Interruption interruption = Interruption.install(Interruption.Mode.LEAVE);
             TargetCatalogs catalogs = new TargetCatalogs(Optional.empty(), dir.resolve("warehouse"));
             SourceCache sources = new SourceCache(Map.of())) {
            int exit = new DueLoad(client, sources, catalogs, JobInput.load(job),
                    JobInput.text(job), new LedgerOptions()).run(false, interruption);
            return new OperatorCommandsTest.Result(exit, stdout.toString(StandardCharsets.UTF_8), "");
        } finally {
            System.setOut(out);
        }
    }

    private static LedgerClient worker() {
        return HttpLedgerClient.create(LedgerClientConfig.builder(fixture.ledger.baseUrl(),
                LedgerToken.of(fixture.ledger.workerToken)).build());
    }

    @Test
    void aLoadWhosePlanAnotherLoadOvertookRunsNothingOlder() throws Exception {
        Path root = dir.resolve("drops-overtaken");
        FileJobCommandsTest.lines(root, "d_20261130-1400", 0, 3);
        Path job = fixture.fileJob("STALE_OVERTAKEN", "stale_overtaken", root);
        // After this load planned 14:00 as one directory, a late one lands and another load loads both.
        Runnable otherLoad = () -> {
            try {
                FileJobCommandsTest.lines(root, "d_20261130-1450", 100, 2);
                var other = fixture.run("load", job.toString());
                assertThat(other.exit()).as(other.toString()).isZero();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        };

        var result = load(job, new BeforeFirstCreate(worker(), otherLoad));

        assertThat(result.exit()).as(result.toString()).isZero();
        assertThat(result.out()).as(result.toString()).contains("was created since the plan; planning again",
                "loaded by another load meanwhile");
        assertThat(fixture.runs("STALE_OVERTAKEN")).as("the older plan (one directory) never ran").isEqualTo(1);
        assertThat(fixture.rowsBy("stale_overtaken", "load_key")).isEqualTo(Map.of("2026-11-30T14", 5L));
    }

    @Test
    void aLoadWhosePlanARunThatFailedOvertookPlansAgainAndLoads() throws Exception {
        Path root = dir.resolve("drops-replanned");
        FileJobCommandsTest.lines(root, "d_20261130-1400", 0, 3);
        Path job = fixture.fileJob("STALE_REPLANNED", "stale_replanned", root);
        // Someone's run of the key, created and failed between this load's plan and its create.
        Runnable failedRun = () -> {
            Map<String, Object> create = new LinkedHashMap<>();
            create.put("jobKey", "STALE_REPLANNED");
            create.put("businessKey", "2026-11-30T14");
            create.put("hdfsRoot", dir.resolve("stage").toUri().toString());
            create.put("stageTablePrefix", "stg_");
            var created = fixture.ledger.post("/v1/runs", create);
            assertThat(created.status()).as(created.toString()).isEqualTo(200);
            var failed = fixture.ledger.post("/v1/runs/" + created.text("runId") + "/fail", Map.of(
                    "expectedStatus", "CREATED", "failStatus", "FAILED_MANIFEST", "errorCode", "GIVEN_UP",
                    "message", "another caller gave up"));
            assertThat(failed.status()).as(failed.toString()).isEqualTo(200);
        };

        var result = load(job, new BeforeFirstCreate(worker(), failedRun));

        assertThat(result.exit()).as(result.toString()).isZero();
        assertThat(result.out()).as(result.toString()).contains("planning again",
                "Loaded STALE_REPLANNED: 1 of 1 due keys loaded");
        assertThat(fixture.runs("STALE_REPLANNED", " AND status = 'SUCCESS'")).isEqualTo(1);
        assertThat(fixture.runs("STALE_REPLANNED")).isEqualTo(2);
        assertThat(fixture.rowsBy("stale_replanned", "load_key")).isEqualTo(Map.of("2026-11-30T14", 3L));
    }
}

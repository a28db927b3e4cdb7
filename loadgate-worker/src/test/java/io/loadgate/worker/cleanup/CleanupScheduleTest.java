package io.loadgate.worker.cleanup;

import static io.loadgate.worker.testing.StagedRuns.orders;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.loadgate.server.auth.Authenticator;
import io.loadgate.server.auth.Role;
import io.loadgate.server.auth.Tokens;
import io.loadgate.server.http.ApiServer;
import io.loadgate.server.testing.TestLedger;
import io.loadgate.worker.execution.RunContexts;
import io.loadgate.worker.execution.TargetCatalogs;
import io.loadgate.worker.ledger.HttpLedgerClient;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.ledger.LedgerClientConfig.Retry;
import io.loadgate.worker.testing.Lakehouses;
import io.loadgate.worker.testing.StagedRuns;
import io.loadgate.worker.testing.StagedRuns.Run;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The schedule against a real ledger over HTTP and real staged files, with an interval of a fraction of a second. */
class CleanupScheduleTest {
    private static final LocalDate DAY_1 = LocalDate.of(2026, 11, 28);
    private static final LocalDate DAY_2 = LocalDate.of(2026, 11, 29);
    private static final String TABLE = "lake.orders";
    private static final Duration EVERY = Duration.ofMillis(100);

    @TempDir
    Path stage;
    @TempDir
    Path warehouse;

    private TestLedger ledger;
    private LedgerClient client;
    private StagedRuns runs;
    private TargetCatalogs catalogs;
    private CleanupSchedule schedule;
    private ApiServer restarted;

    @BeforeEach
    void start() {
        ledger = StagedRuns.ledger(stage);
        // No retries: a pass against a stopped ledger should fail at once, not after the client's backoff. A short
        // request timeout: a call in flight when the ledger stops gets no answer and would wait the default 30 s,
        // longer than the test waits for two failed passes (seen once, 2026-12-05).
        client = HttpLedgerClient.create(StagedRuns.workerClient(ledger).retry(Retry.NONE)
                .requestTimeout(Duration.ofSeconds(3)).build());
        runs = new StagedRuns(ledger, client, stage, Lakehouses.jdbcCatalog(warehouse));
        catalogs = new TargetCatalogs(Optional.empty(), warehouse);
    }

    @AfterEach
    void stop() {
        if (schedule != null) {
            schedule.stop(Duration.ofSeconds(30));
        }
        if (restarted != null) {
            restarted.close();
        }
        catalogs.close();
        runs.close();
        ledger.close();
    }

    private CleanupSchedule startSchedule() {
        schedule = CleanupSchedule.start(new Cleaner(client, new RunContexts(client), catalogs, new Configuration()),
                EVERY);
        return schedule;
    }

    @Test
    void aDueFailedRunsFilesDisappearWithoutAnyoneCallingCleanup() {
        Run failed = runs.failedExtract("ORDERS", DAY_1, TABLE, orders(DAY_1, 1, 40), orders(DAY_1, 41, 40));
        Run notDue = runs.failedExtract("ORDERS_OTHER", DAY_1, TABLE, orders(DAY_1, 1, 10), orders(DAY_1, 11, 10));
        long bytes = size(failed.directory());
        startSchedule();
        await().atMost(Duration.ofSeconds(10)).until(() -> schedule.totals().passes() >= 3);
        assertThat(failed.directory()).as("not due yet: passes leave it alone").isDirectory();

        runs.makeDue(failed);

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(failed.directory())
                .as("removed by a scheduled pass").doesNotExist());
        assertThat(notDue.directory()).as("a run not due").isDirectory();
        assertThat(failed.directory().getParent()).as("the job directory is outside the run path").isDirectory();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(client.cleanupCandidates())
                .as("the ledger recorded the cleanup").isEmpty());
        assertThat(schedule.totals().deletedBytes()).as("bytes deleted, counted once").isEqualTo(bytes);
        assertThat(schedule.totals().failedPasses()).isZero();
    }

    @Test
    void passesGoOnAfterPassesThatThrewWhileTheLedgerWasStopped() {
        Run failed = runs.failedExtract("ORDERS", DAY_2, TABLE, orders(DAY_2, 1, 20), orders(DAY_2, 21, 20));
        int port = ledger.server.port();
        startSchedule();
        await().atMost(Duration.ofSeconds(10)).until(() -> schedule.totals().passes() >= 1);

        ledger.server.close();
        long failedBefore = schedule.totals().failedPasses();
        await().atMost(Duration.ofSeconds(20)).until(() -> schedule.totals().failedPasses() >= failedBefore + 2);
        runs.makeDue(failed);
        assertThat(failed.directory()).as("nothing cleaned while the ledger is away").isDirectory();

        restarted = ApiServer.start(new ApiServer.Wiring(ledger.ledger, new Authenticator(Map.of(
                Role.WORKER, List.of(Tokens.digest(ledger.workerToken)))),
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)), "127.0.0.1", port);

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(failed.directory())
                .as("a pass after the failed ones cleaned the run").doesNotExist());
        // The pass adds to the totals when it ends, a moment after the directory went.
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            CleanupSchedule.Totals totals = schedule.totals();
            assertThat(totals.passes()).as("totals %s", totals).isGreaterThan(totals.failedPasses());
            assertThat(totals.deletedBytes()).as("totals %s", totals).isPositive();
        });
    }

    @Test
    void stopReturnsPromptlyAndNoPassRunsAfterIt() {
        startSchedule();
        await().atMost(Duration.ofSeconds(10)).until(() -> schedule.totals().passes() >= 2);

        long started = System.nanoTime();
        boolean ended = schedule.stop(Duration.ofSeconds(30));
        Duration took = Duration.ofNanos(System.nanoTime() - started);

        assertThat(ended).as("the schedule's thread ended").isTrue();
        assertThat(took).as("stop between passes does not wait out the interval").isLessThan(Duration.ofSeconds(2));
        long passes = schedule.totals().passes();
        await().during(Duration.ofMillis(5 * EVERY.toMillis())).atMost(Duration.ofSeconds(2))
                .until(() -> schedule.totals().passes() == passes);
    }

    @Test
    void neverTwoPassesAtOnceAndAnErrorDoesNotEndTheSchedule() throws InterruptedException {
        AtomicInteger running = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        AtomicInteger calls = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        schedule = CleanupSchedule.start(() -> {
            mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
            try {
                int call = calls.incrementAndGet();
                if (call == 1) {
                    // The first pass outlasts many intervals.
                    awaitQuietly(release);
                }
                if (call == 2) {
                    throw new AssertionError("an Error, not an Exception");
                }
                return List.of();
            } finally {
                running.decrementAndGet();
            }
        }, Duration.ofMillis(10));

        await().atMost(Duration.ofSeconds(10)).until(() -> calls.get() == 1);
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> calls.get() == 1);
        release.countDown();

        await().atMost(Duration.ofSeconds(10)).until(() -> calls.get() >= 5);
        assertThat(mostAtOnce.get()).as("passes at once").isEqualTo(1);
        assertThat(schedule.totals().failedPasses()).as("the pass that threw an Error").isEqualTo(1);
        assertThat(schedule.stop(Duration.ofSeconds(5))).isTrue();
    }

    @Test
    void stopDoesNotInterruptARunningPass() throws InterruptedException {
        CountDownLatch inPass = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger interrupted = new AtomicInteger();
        schedule = CleanupSchedule.start(() -> {
            inPass.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                interrupted.incrementAndGet();
            }
            return List.of();
        }, EVERY);
        assertThat(inPass.await(10, TimeUnit.SECONDS)).isTrue();

        assertThat(schedule.stop(Duration.ofMillis(200))).as("still in its pass after the wait").isFalse();
        release.countDown();

        assertThat(schedule.stop(Duration.ofSeconds(10))).as("ended once its pass did").isTrue();
        assertThat(interrupted.get()).as("interrupts").isZero();
        assertThat(schedule.totals().passes()).as("no pass after stop").isEqualTo(1);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static long size(Path directory) {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(Files::isRegularFile).mapToLong(file -> {
                try {
                    return Files.size(file);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).sum();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

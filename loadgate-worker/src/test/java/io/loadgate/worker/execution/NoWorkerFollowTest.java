package io.loadgate.worker.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunStatus;
import io.loadgate.ledger.LedgerSettings.RecoveryMode;
import io.loadgate.worker.submit.RunFollower;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Following a run that no worker takes: the follower says so after its patience, and goes on when one comes. */
@Timeout(120)
class NoWorkerFollowTest {
    private static final LocalDate DAY = LocalDate.of(2026, 11, 29);

    @TempDir
    Path dir;
    private LoadHarness harness;

    @AfterEach
    void stop() {
        if (harness != null) {
            harness.close();
        }
    }

    @Test
    void aRunNoWorkerTakesIsReportedAndLoadsOnceAWorkerStarts() throws Exception {
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        harness.addRows(DAY, 1, 4_000);
        List<RunView> untaken = new CopyOnWriteArrayList<>();
        var submission = harness.submit(harness.jobYaml("NOBODY", 2), DAY);
        RunFollower follower = new RunFollower(harness.client, Duration.ofMillis(100), Duration.ofSeconds(5),
                Duration.ofMillis(500));
        CompletableFuture<RunView> end = CompletableFuture.supplyAsync(() -> {
            try {
                return follower.follow(submission.runId(), submission, new RunFollower.Listener() {
                    @Override
                    public void changed(RunView run) {
                    }

                    @Override
                    public void noWorker(RunView run, Duration waited) {
                        untaken.add(run);
                    }
                });
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(untaken).as("told of no worker")
                .isNotEmpty());
        RunView told = untaken.get(0);
        assertThat(told.status()).isEqualTo(RunStatus.EXTRACTING);
        assertThat(told.dispatches()).as("every step still waiting").isNotEmpty()
                .allSatisfy(d -> assertThat(d.sentAt()).isNull());
        assertThat(end).as("the follower goes on waiting").isNotDone();

        harness.startWorker(2);
        assertThat(end.get(90, TimeUnit.SECONDS).status()).isEqualTo(RunStatus.SUCCESS);
    }
}

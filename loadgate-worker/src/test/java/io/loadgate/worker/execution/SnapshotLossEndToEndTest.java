package io.loadgate.worker.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.loadgate.api.PartitionStatus;
import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunStatus;
import io.loadgate.ledger.LedgerSettings.RecoveryMode;
import io.loadgate.worker.submit.RunSubmitter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.LocalDate;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 8, item 7: the source's exported snapshot dies with the backend that holds it (a restart of the source
 * database, here its backend terminated). The run fails FAILED_SNAPSHOT_EXPIRED within seconds and says why, even
 * when no worker tries a partition meanwhile, and the business key can be loaded again at once.
 */
@Timeout(180)
class SnapshotLossEndToEndTest {
    private static final LocalDate DAY = LocalDate.of(2026, 11, 27);

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
    void aKilledSnapshotFailsTheRunAtOnceAndFreesTheKey() throws Exception {
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        harness.addRows(DAY, 1, 6_000);
        String yaml = harness.jobYaml("SNAPLOSS", 3);
        // No worker yet: nothing but the submitter's holder is connected to the source, and no partition read
        // would notice the loss for it.
        RunSubmitter.Submission submission = harness.submit(yaml, DAY);
        // Its source metrics, measured beside the holder at the same snapshot, are in first (issue 14).
        submission.sourceMetrics().get(60, TimeUnit.SECONDS);
        CompletableFuture<RunView> followed = CompletableFuture.supplyAsync(() -> {
            try {
                return harness.follow(submission);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        });

        // The metrics' own connections are closed by now, but a server process may outlive its client's close
        // for a moment; only the holder must be left before the restart, or the test would not show that a loss
        // nobody reads through is noticed.
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(sourceClients()).as("client backends of the source but the holder's").isEqualTo(1));
        assertThat(terminateSourceBackends()).as("the holder's backend").isPositive();

        await().atMost(Duration.ofSeconds(60)).until(() -> harness.client.getRun(submission.runId()).status()
                == RunStatus.FAILED_SNAPSHOT_EXPIRED);
        RunView failed = followed.get(60, TimeUnit.SECONDS);
        submission.close();
        assertThat(failed.status()).isEqualTo(RunStatus.FAILED_SNAPSHOT_EXPIRED);
        assertThat(failed.errorCode()).isEqualTo("SNAPSHOT_LOST");
        assertThat(failed.errorMessage()).contains("the source snapshot " + submission.plan().snapshotRef(),
                "ended with the connection that held it", "Load the business key again");
        RunView view = harness.client.getRun(failed.runId());
        assertThat(view.partitions()).as("no partition is left to be tried").allSatisfy(p ->
                assertThat(p.status()).isEqualTo(PartitionStatus.FAILED));

        harness.startWorker(2);
        RunView again = harness.follow(harness.submit(yaml, DAY));
        assertThat(again.status()).as(again.errorMessage()).isEqualTo(RunStatus.SUCCESS);
        assertThat(harness.tableRows(DAY)).isEqualTo(harness.sourceRows(DAY));
    }

    private int sourceClients() throws Exception {
        return countBackends("count(*) FILTER (WHERE backend_type = 'client backend')");
    }

    /**
     * What a restart of the source does to the snapshot: every backend of the source database ends (an autovacuum
     * worker the test's inserts woke among them).
     */
    private int terminateSourceBackends() throws Exception {
        return countBackends("count(*) FILTER (WHERE pg_terminate_backend(pid))");
    }

    private int countBackends(String aggregate) throws Exception {
        try (Connection c = harness.source.connect(); PreparedStatement s = c.prepareStatement(
                "SELECT " + aggregate + " FROM pg_stat_activity WHERE datname = ? AND pid <> pg_backend_pid()")) {
            s.setString(1, harness.source.name());
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }
}

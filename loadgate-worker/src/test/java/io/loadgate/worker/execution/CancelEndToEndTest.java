package io.loadgate.worker.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.loadgate.api.OperatorApi.Cancel;
import io.loadgate.api.PartitionStatus;
import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunStatus;
import io.loadgate.ledger.LedgerSettings.RecoveryMode;
import io.loadgate.worker.ledger.HttpLedgerClient;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.ledger.LedgerClientConfig;
import io.loadgate.worker.ledger.LedgerToken;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An operator cancels a run while a real worker is writing its partition: the worker's next heartbeat finds the
 * partition no longer RUNNING, the worker stops writing and reports nothing, and nothing of the run is published.
 */
@Timeout(180)
class CancelEndToEndTest {
    private static final LocalDate DAY = LocalDate.of(2026, 11, 29);
    private static final LocalDate NEXT_DAY = DAY.plusDays(1);
    // Fetched 100 at a time, enough rows that the read spans many 5 ms heartbeats after the cancel lands.
    private static final long ROWS = 200_000;

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
    void aWorkerWritingAPartitionOfACancelledRunStopsAndNothingIsPublished() throws Exception {
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        try (Connection c = harness.source.connect(); Statement s = c.createStatement()) {
            s.execute("INSERT INTO items SELECT g, (g % 13)::int, round((g % 10007) / 7.0, 2), 'n' || g, DATE '" + DAY
                    + "' FROM generate_series(1, " + ROWS + ") g");
        }
        harness.addRows(NEXT_DAY, ROWS + 1, 300);
        String yaml = harness.jobYaml("CANCELLED", 1).replace("fetch_size: 1000", "fetch_size: 100")
                .replace("rows_per_chunk: 3000", "rows_per_chunk: 50000");
        LedgerClient operator = HttpLedgerClient.create(LedgerClientConfig.builder(harness.ledger.baseUrl(),
                LedgerToken.of(harness.ledger.operatorToken)).build());
        // One thread: the next run can only be extracted once the cancelled partition's extraction has ended.
        harness.startWorker(1, Duration.ofMillis(5));

        var submission = harness.submit(yaml, DAY);
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(5)).until(() -> {
            Long read = harness.client.getRun(submission.runId()).partitions().get(0).rowsRead();
            return read != null && read > 0;
        });
        var cancelled = operator.cancelRun(submission.runId(), new Cancel("source is suffering"));
        assertThat(cancelled.runStatus()).isEqualTo(RunStatus.CANCELLED);
        assertThat(cancelled.changed()).isTrue();
        Long readAtCancel = harness.client.getRun(submission.runId()).partitions().get(0).rowsRead();
        assertThat(readAtCancel).as("cancelled mid-partition").isLessThan(ROWS);

        RunView next = harness.follow(harness.submit(yaml, NEXT_DAY));
        assertThat(next.status()).as("the worker's one thread came free: " + next.errorMessage())
                .isEqualTo(RunStatus.SUCCESS);

        RunView run = harness.client.getRun(submission.runId());
        assertThat(run.status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(run.partitions()).singleElement().satisfies(p -> {
            assertThat(p.status()).isEqualTo(PartitionStatus.FAILED);
            assertThat(p.errorCode()).isEqualTo("RUN_CANCELLED");
            assertThat(p.fileCount()).isZero();
        });
        var events = harness.client.allEvents(submission.runId());
        assertThat(events).as("the worker stopped writing, so it never got as far as reporting a chunk")
                .noneMatch(e -> e.eventType().equals("CHUNK_IGNORED"));
        assertThat(events).as("no step of the run came after the cancel")
                .noneMatch(e -> e.details() != null && "PUBLISH_RUN".equals(e.details().get("dispatchType")))
                .noneMatch(e -> "PUBLISHING".equals(e.toStatus()));
        assertThat(run.extractCompletedAt()).isNull();
        assertThat(harness.tableRows(DAY)).as("nothing of the cancelled run is in the target").isEmpty();
        assertThat(harness.tableRows(NEXT_DAY)).isEqualTo(harness.sourceRows(NEXT_DAY));
    }
}

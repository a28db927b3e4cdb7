package io.loadgate.worker.execution;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunStatus;
import io.loadgate.ledger.LedgerSettings.RecoveryMode;
import io.loadgate.worker.submit.RunFollower;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Progress within a partition, end to end: a worker reports its chunks only once the partition is written, so
 * what a follower sees move meanwhile is the rows read its heartbeats carry.
 */
@Timeout(180)
class ExtractionProgressEndToEndTest {
    private static final LocalDate DAY = LocalDate.of(2026, 11, 29);
    // Enough rows, fetched 100 at a time, that reading the partition spans many 5 ms beats and follower polls.
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

    /** One partition (no NULL split values), so no chunk is reported before all its rows are written. */
    private String onePartitionJob() throws Exception {
        try (Connection c = harness.source.connect(); Statement s = c.createStatement()) {
            s.execute("INSERT INTO items SELECT g, (g % 13)::int, round((g % 10007) / 7.0, 2), 'n' || g, DATE '" + DAY
                    + "' FROM generate_series(1, " + ROWS + ") g");
        }
        return harness.jobYaml("PROGRESS", 1).replace("fetch_size: 1000", "fetch_size: 100")
                .replace("rows_per_chunk: 3000", "rows_per_chunk: 50000");
    }

    private RunView follow(String yaml, List<RunView> seen) throws InterruptedException {
        harness.startWorker(1, Duration.ofMillis(5));
        var submission = harness.submit(yaml, DAY);
        return new RunFollower(harness.client, Duration.ofMillis(5), Duration.ofSeconds(5))
                .follow(submission.runId(), submission, seen::add);
    }

    @Test
    void aFollowerSeesRowsReadBeforeTheFirstChunkIsReportedAndProgressEndsAtTheExtractedCount() throws Exception {
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        List<RunView> seen = new CopyOnWriteArrayList<>();

        RunView last = follow(onePartitionJob(), seen);

        assertThat(last.status()).as(last.errorMessage()).isEqualTo(RunStatus.SUCCESS);
        assertThat(last.expectedPartitionCount()).isEqualTo(1);
        assertThat(seen).as("a view while the partition was being read, before any chunk was reported")
                .anySatisfy(run -> {
                    assertThat(run.extractedCount()).isZero();
                    assertThat(run.progressRows()).isStrictlyBetween(0L, ROWS);
                });
        assertThat(seen.stream().map(RunView::progressRows).toList()).as("progress never moves back").isSorted();
        assertThat(last.progressRows()).isEqualTo(last.extractedCount()).isEqualTo(ROWS);
    }

    @Test
    void rowsTheTransformsRejectAreCountedAsRead() throws Exception {
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        // Only grp 0 passes: 1 row in 13. Counted after the transforms, progress could not pass ROWS / 13 before the
        // first chunk report.
        String yaml = onePartitionJob() + """
                transform:
                  max_rejected: %d
                  steps:
                    - range: {column: grp, max: 0}
                """.formatted(ROWS);
        List<RunView> seen = new CopyOnWriteArrayList<>();

        RunView last = follow(yaml, seen);

        assertThat(last.status()).as(last.errorMessage()).isEqualTo(RunStatus.SUCCESS);
        assertThat(last.rejectedCount()).isGreaterThan(ROWS / 2);
        assertThat(seen).as("a view past the kept rows, before any chunk was reported").anySatisfy(run -> {
            assertThat(run.extractedCount()).isZero();
            assertThat(run.progressRows()).isStrictlyBetween(ROWS / 2, ROWS);
        });
        assertThat(last.progressRows()).isEqualTo(last.extractedCount()).isEqualTo(ROWS);
    }
}

package io.loadgate.worker.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.loadgate.api.PartitionStatus;
import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunStatus;
import io.loadgate.ledger.LedgerSettings.RecoveryMode;
import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.job.JobSpecLoader;
import io.loadgate.worker.source.SnapshotHolder;
import io.loadgate.worker.job.SourceMetricsTiming;
import io.loadgate.worker.source.Sources;
import io.loadgate.worker.submit.RunSubmitter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 14: the submitter registers the manifest without the source metrics, so extraction starts at once, and
 * measures them at the same snapshot on a thread of its own; they are the metrics the plan would have carried. A
 * metrics query that fails fails the run at once ({@code SOURCE_METRICS_FAILED}); a submitter that dies before
 * sending them is the sweeper's (SweeperTest.sourceMetricsThatNeverComeTimeTheRunOut).
 */
@Timeout(180)
class SourceMetricsLaterEndToEndTest {
    private static final LocalDate DAY = LocalDate.of(2026, 11, 28);

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
    void theMetricsFollowTheManifestAtTheSameSnapshot() throws Exception {
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        harness.addRows(DAY, 1, 6_000);
        String yaml = duringExtraction(harness.jobYaml("LATER", 3));
        JobSpec job = JobSpecLoader.parse(Path.of("test.yaml"), yaml);
        Map<String, String> planned;
        try (SnapshotHolder whilePlanning = Sources.forJob(job, Map.of()).openSnapshot(DAY.toString(),
                SourceMetricsTiming.WHILE_PLANNING)) {
            planned = whilePlanning.plan().sourceMetrics().orElseThrow().values();
        }

        // No worker yet: the run is extracting (its partitions dispatched) before the metrics are measured.
        RunSubmitter.Submission submission = harness.submit(yaml, DAY);
        assertThat(submission.plan().sourceMetrics()).as("the plan measured none").isEmpty();
        assertThat(submission.manifest().status()).isEqualTo(RunStatus.EXTRACTING);
        // Rows committed after the snapshot must not count: the metrics are measured at the plan's snapshot.
        harness.addRows(DAY, 100_000, 500);
        submission.sourceMetrics().get(60, TimeUnit.SECONDS);

        RunView run = harness.client.getRun(submission.runId());
        assertThat(run.sourceMetrics()).as("what the plan would have carried").isEqualTo(planned)
                .containsKeys("SUM:amount", "SUM:grp", "MIN:id", "MAX:id", "NULL_COUNT:note");
        assertThat(run.status()).isEqualTo(RunStatus.EXTRACTING);

        harness.startWorker(2);
        RunView end = harness.follow(submission);
        assertThat(end.status()).as(end.errorMessage()).isEqualTo(RunStatus.SUCCESS);
        assertThat(harness.tableRows(DAY)).hasSize(6_000);
    }

    @Test
    void aFailingMetricsQueryFailsTheRunAtOnce() throws Exception {
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        harness.addRows(DAY, 1, 3_000);
        // The plan reads only the split column; the SUM of `boom` divides by zero on the first row it meets.
        String yaml = duringExtraction(harness.jobYaml("LATERFAIL", 2))
                .replace("table: public.items",
                        "query: \"SELECT id, grp, amount, note, day, 1 / (grp - grp) AS boom FROM public.items\"")
                .replace("sum: [amount, grp]", "sum: [amount, grp, boom]");

        RunSubmitter.Submission submission = harness.submit(yaml, DAY);

        await().atMost(Duration.ofSeconds(60)).until(() -> harness.client.getRun(submission.runId()).status()
                .isTerminal());
        submission.close();
        RunView run = harness.client.getRun(submission.runId());
        assertThat(run.status()).isEqualTo(RunStatus.FAILED_EXTRACT);
        assertThat(run.errorStage()).isEqualTo("SOURCE_METRICS");
        assertThat(run.errorCode()).isEqualTo(RunSubmitter.METRICS_FAILED);
        assertThat(run.errorMessage()).contains("source metrics could not be measured", "division by zero");
        assertThat(run.partitions()).as("no partition is left to be read for a run that cannot be validated")
                .allSatisfy(p -> assertThat(p.status()).isEqualTo(PartitionStatus.FAILED));
    }

    /** The harness's source is on this host, where {@code auto} measures while planning. */
    private static String duringExtraction(String yaml) {
        return yaml.replace("  fetch_size: 1000\n", "  fetch_size: 1000\n  metrics: during_extraction\n");
    }
}

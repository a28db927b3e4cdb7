package io.loadgate.worker.execution;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.api.DispatchType;
import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunStatus;
import io.loadgate.ledger.LedgerSettings.RecoveryMode;
import io.loadgate.worker.source.Partition;
import io.loadgate.worker.source.PartitionRows;
import io.loadgate.worker.source.SnapshotHolder;
import io.loadgate.worker.source.Source;
import io.loadgate.worker.source.SourceColumn;
import io.loadgate.worker.submit.RunSubmitter;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A step that throws an {@link Error} (a {@code NoSuchMethodError} from a Parquet version that does not match, an
 * {@code OutOfMemoryError}) fails its run at once, saying so, instead of leaving it active with nobody working on
 * it until a stale threshold; the worker's thread takes the next dispatch, unless the Error says the JVM itself
 * cannot go on, and then the worker stops and says why. The ledger of these tests runs no sweeper, so before the
 * fix each run stayed active for good.
 */
@Timeout(300)
class StepErrorEndToEndTest {
    private static final LocalDate DAY = LocalDate.of(2026, 11, 28);
    private static final LocalDate NEXT_DAY = DAY.plusDays(1);
    private static final String MISSING_METHOD = "'org.apache.parquet.io.api.Binary"
            + " org.apache.parquet.io.api.Binary.fromConstantByteArray(byte[])'";

    @TempDir
    Path dir;
    private LoadHarness harness;
    private Worker own;

    @AfterEach
    void stop() {
        if (own != null) {
            own.stop(Duration.ofSeconds(5));
        }
        if (harness != null) {
            harness.close();
        }
    }

    @Test
    void anErrorWhileExtractingFailsTheRunAtOnceAndTheThreadTakesTheNextRun() throws Exception {
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        harness.addRows(DAY, 1, 2_000);
        harness.addRows(NEXT_DAY, 10_001, 2_000);
        String yaml = harness.jobYaml("STEP_ERROR", 2);
        RunSubmitter.Submission broken = harness.submit(yaml, DAY);
        throwWhileReading(broken, () -> new NoSuchMethodError(MISSING_METHOD));
        Worker worker = harness.startWorker(1);

        RunView failed = harness.waitFor(broken.runId(), RunStatus.FAILED_EXTRACT);
        broken.close();

        assertThat(failed.status()).as("the run fails as soon as the step does").isEqualTo(RunStatus.FAILED_EXTRACT);
        assertThat(failed.errorCode()).isEqualTo("NoSuchMethodError");
        assertThat(failed.errorMessage()).contains("java.lang.NoSuchMethodError", "Binary.fromConstantByteArray");
        // The worker's one thread survived the Error: it loads the next key.
        RunSubmitter.Submission next = harness.submit(yaml, NEXT_DAY);
        RunView run = harness.follow(next);
        next.close();
        assertThat(run.status()).as(run.errorCode() + ": " + run.errorMessage()).isEqualTo(RunStatus.SUCCESS);
        assertThat(harness.tableRows(NEXT_DAY)).isEqualTo(harness.sourceRows(NEXT_DAY));
        assertThat(worker.unhealthy()).isEmpty();
    }

    @Test
    void aVirtualMachineErrorIsReportedThenTheWorkerStopsAndSaysWhy() throws Exception {
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        harness.addRows(DAY, 1, 2_000);
        RunSubmitter.Submission broken = harness.submit(harness.jobYaml("STEP_OOM", 2), DAY);
        throwWhileReading(broken, () -> new OutOfMemoryError("Java heap space"));
        Worker worker = harness.startWorker(2);

        RunView failed = harness.waitFor(broken.runId(), RunStatus.FAILED_EXTRACT);
        broken.close();

        assertThat(failed.status()).isEqualTo(RunStatus.FAILED_EXTRACT);
        assertThat(failed.errorCode()).isEqualTo("OutOfMemoryError");
        // What the worker process prints before it exits, and /healthz answers meanwhile.
        String why = worker.refused().get(60, TimeUnit.SECONDS);
        assertThat(why).contains("OutOfMemoryError", broken.runId().toString(), "restart");
        assertThat(worker.unhealthy()).contains(why);
    }

    @Test
    void anErrorWhileValidatingTheStageFailsTheRunAtOnce() throws Exception {
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        harness.addRows(DAY, 1, 2_000);
        harness.startWorker(1, EnumSet.of(DispatchType.EXTRACT_PARTITION, DispatchType.REISSUE_PARTITION));
        // The validating worker's Hadoop opens no file: what a Parquet reader that does not link looks like there.
        Configuration hadoop = new Configuration();
        hadoop.set("fs.file.impl", UnlinkedReads.class.getName());
        hadoop.setBoolean("fs.file.impl.disable.cache", true);
        own = Worker.start(new WorkerContext(harness.context.ledger(), "validator", hadoop,
                harness.context.shared(), harness.context.heartbeatInterval(), harness.context.leaseWait()), 1,
                EnumSet.of(DispatchType.VALIDATE_RUN));
        RunSubmitter.Submission submission = harness.submit(harness.jobYaml("STEP_ERROR_VALIDATE", 2), DAY);

        RunView failed = harness.waitFor(submission.runId(), RunStatus.FAILED_STAGE_VALIDATION);
        submission.close();

        assertThat(failed.status()).as("the run fails as soon as its validation does")
                .isEqualTo(RunStatus.FAILED_STAGE_VALIDATION);
        assertThat(failed.errorCode()).isEqualTo("NoSuchMethodError");
        assertThat(failed.errorMessage()).contains("Binary.fromConstantByteArray");
    }

    @Test
    void anErrorWhilePublishingIsReportedProbedAndFailsThePublishAtOnce() throws Exception {
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        harness.addRows(DAY, 1, 2_000);
        harness.faults.beforeNextCommit(() -> {
            throw new NoSuchMethodError(MISSING_METHOD);
        });
        harness.startWorker(1);
        RunSubmitter.Submission submission = harness.submit(harness.jobYaml("STEP_ERROR_PUBLISH", 2), DAY);

        RunView failed = harness.waitFor(submission.runId(), RunStatus.FAILED_PUBLISH);
        submission.close();

        // The Error came before anything reached the catalog: the probe finds no commit of the token.
        assertThat(failed.status()).as(failed.errorCode() + ": " + failed.errorMessage())
                .isEqualTo(RunStatus.FAILED_PUBLISH);
        assertThat(harness.faults.landedCommits()).isZero();
        assertThat(harness.tableRows(DAY)).isEmpty();
    }

    /** From now on, the readers of {@code submission}'s source throw {@code error} at their first row. */
    private void throwWhileReading(RunSubmitter.Submission submission, Supplier<Error> error) {
        // The submitter registered the source that holds the run's snapshot; its readers are the seam.
        Source real = harness.sources.forRun(submission.runId(), null);
        harness.sources.register(submission.runId(), new ThrowingSource(real, error));
    }

    /** A source whose partitions open, then throw {@code error} where the first row would be read. */
    private record ThrowingSource(Source real, Supplier<Error> error) implements Source {
        @Override
        public SnapshotHolder openSnapshot(String businessKey) {
            return real.openSnapshot(businessKey);
        }

        @Override
        public List<SourceColumn> columns() {
            return real.columns();
        }

        @Override
        public PartitionRows readPartition(String snapshotRef, Partition partition, String businessKey) {
            PartitionRows rows = real.readPartition(snapshotRef, partition, businessKey);
            return new PartitionRows() {
                @Override
                public List<SourceColumn> columns() {
                    return rows.columns();
                }

                @Override
                public boolean next() {
                    throw error.get();
                }

                @Override
                public Object value(int index) {
                    return rows.value(index);
                }

                @Override
                public void close() {
                    rows.close();
                }
            };
        }
    }

    /** The local file system, except that reading a file throws what a Parquet jar of another version would. */
    public static final class UnlinkedReads extends RawLocalFileSystem {
        @Override
        public FSDataInputStream open(org.apache.hadoop.fs.Path f, int bufferSize) throws IOException {
            throw new NoSuchMethodError(MISSING_METHOD);
        }
    }
}

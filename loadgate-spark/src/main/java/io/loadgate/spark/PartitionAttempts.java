package io.loadgate.spark;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.PartitionStatus;
import io.loadgate.api.RunApi.PartitionView;
import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunStatus;
import io.loadgate.spark.PartitionResult.Role;
import io.loadgate.worker.execution.ExtractStep;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.metrics.StepOutcome;
import java.util.UUID;
import org.apache.spark.api.java.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The body of a partition's Spark task: the worker's own extraction ({@link ExtractStep}) under a claim of this
 * attempt. An attempt that does not win the claim — another attempt of the task owns the partition, as a speculative
 * copy finds its original — does not write: it waits, asking the ledger, until the partition is done (then it
 * returns, and Spark may count it as the task's success: harmless, since the owner's files are the committed ones),
 * failed, or claimable again (its owner's beats stopped and the sweeper reissued it; this attempt then claims and
 * extracts it). An owner whose claim is taken meanwhile stops at its next row or report, as a worker does.
 */
final class PartitionAttempts implements Function<PartitionTask, PartitionResult> {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionAttempts.class);

    private final ExecutorSettings settings;
    private final TaskHook hook;

    PartitionAttempts(ExecutorSettings settings, TaskHook hook) {
        this.settings = requireNonNull(settings, "settings is null");
        this.hook = requireNonNull(hook, "hook is null");
    }

    @Override
    public PartitionResult call(PartitionTask task) throws InterruptedException {
        TaskAttempt attempt = TaskAttempt.current();
        ExecutorRuntime runtime = ExecutorRuntime.forSettings(settings);
        String node = attempt.node(runtime.executor());
        LedgerClient ledger = hook.ledger(runtime.ledger(), task.partitionId(), attempt);
        ExtractStep extract = new ExtractStep(runtime.context(node, ledger));
        while (true) {
            // A token per claim: a claim lost and later won again by this attempt writes files of a new name.
            var claimant = new ExtractStep.Claimant(UUID.randomUUID(), node, attempt.writer());
            StepOutcome outcome = extract.extract(task.runId(), task.partition(), task.snapshotRef(), claimant);
            RunView run = runtime.ledger().getRun(task.runId());
            PartitionView partition = run.partitions().stream()
                    .filter(p -> p.partitionId().value().equals(task.partitionId())).findFirst()
                    .orElseThrow(() -> new IllegalStateException("run " + task.runId() + " has no partition "
                            + task.partitionId()));
            if (outcome == StepOutcome.OK) {
                return result(task, attempt, node, Role.OWNER, partition, run);
            }
            switch (partition.status()) {
                case SUCCESS -> {
                    return result(task, attempt, node, Role.STANDBY, partition, run);
                }
                case FAILED, TIMED_OUT -> {
                    return result(task, attempt, node, Role.FAILED, partition, run);
                }
                case PENDING, RETRY -> {
                    if (run.status() != RunStatus.EXTRACTING) {
                        return result(task, attempt, node, Role.RUN_ENDED, partition, run);
                    }
                    LOG.info("partition {}/{} is {}: attempt {} tries to claim it", task.runId(), task.partitionId(),
                            partition.status(), node);
                }
                case RUNNING -> {
                    if (run.status() != RunStatus.EXTRACTING) {
                        return result(task, attempt, node, Role.RUN_ENDED, partition, run);
                    }
                }
            }
            // Spark's kill of this attempt (another one finished the task) interrupts the wait.
            Thread.sleep(settings.standbyPoll().toMillis());
        }
    }

    private static PartitionResult result(PartitionTask task, TaskAttempt attempt, String node, Role role,
                                          PartitionView partition, RunView run) {
        LOG.info("partition {}/{} attempt {}: {} (partition {}, run {})", task.runId(), task.partitionId(), node, role,
                partition.status(), run.status());
        return new PartitionResult(task.partitionId(), attempt, node, role, partition.status(), run.status());
    }
}

package io.loadgate.spark;

import java.io.Serializable;
import org.apache.spark.TaskContext;

/**
 * One Spark attempt of a partition's task. Spark runs the same task more than once — a retry after a failure, a
 * speculative copy beside a slow one — and each attempt claims the partition with its own token; the ledger's
 * worker node and the chunk files' names carry the attempt, so the ledger and a listing of the run's directory
 * both say which attempt wrote what.
 *
 * @param stageAttempt Spark's {@code stageAttemptNumber}
 * @param taskAttemptId Spark's id of the attempt, unique in the application
 * @param attemptNumber Spark's {@code attemptNumber}: 0 for the first attempt of the task, then 1, 2, ...
 */
public record TaskAttempt(int stageId, int stageAttempt, int partitionIndex, long taskAttemptId, int attemptNumber)
        implements Serializable {

    static TaskAttempt current() {
        TaskContext task = TaskContext.get();
        if (task == null) {
            throw new IllegalStateException("not inside a Spark task");
        }
        return new TaskAttempt(task.stageId(), task.stageAttemptNumber(), task.partitionId(), task.taskAttemptId(),
                task.attemptNumber());
    }

    /** The owner the ledger records: the executor's host and process, then the attempt. */
    String node(String executor) {
        return executor + "/spark-stage" + stageId + "." + stageAttempt + "-task" + partitionIndex + "-attempt"
                + attemptNumber;
    }

    /** What the chunk names carry ({@code io.loadgate.worker.staging.ChunkNaming#writer}): s0t17a1. */
    String writer() {
        return "s" + stageAttempt + "t" + taskAttemptId + "a" + attemptNumber;
    }
}

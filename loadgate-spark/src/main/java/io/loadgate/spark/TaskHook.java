package io.loadgate.spark;

import io.loadgate.worker.ledger.LedgerClient;
import java.io.Serializable;

/**
 * A seam in a Spark task, for tests: the ledger client one attempt of one partition talks through (a hook that
 * stalls one attempt, or lets one die after its first chunk report). Shipped with the tasks, so it must be
 * serializable. Production runs use {@link #NONE}.
 */
@FunctionalInterface
public interface TaskHook extends Serializable {
    TaskHook NONE = (ledger, partitionId, attempt) -> ledger;

    LedgerClient ledger(LedgerClient ledger, String partitionId, TaskAttempt attempt);
}

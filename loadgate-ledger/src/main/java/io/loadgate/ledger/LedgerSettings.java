package io.loadgate.ledger;

import static java.util.Objects.requireNonNull;

import io.loadgate.ledger.run.StagePath;
import java.util.List;

/** What the ledger's decisions depend on beyond the request: where runs may stage, and how partitions recover. */
public record LedgerSettings(List<StagePath> allowedRoots, RecoveryMode recoveryMode, int maxAttempts) {
    public LedgerSettings {
        allowedRoots = List.copyOf(requireNonNull(allowedRoots, "allowedRoots is null"));
        requireNonNull(recoveryMode, "recoveryMode is null");
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1");
        }
    }

    /** FAIL ends the run when a partition stalls or fails; REISSUE retries the partition at the same snapshot. */
    public enum RecoveryMode {
        FAIL,
        REISSUE
    }
}

package io.loadgate.worker.cleanup;

/** Whether a cleanup pass deletes, or only says what it would delete. */
public enum CleanupMode {
    DELETE,
    /** Lists what would be deleted; deletes nothing and records nothing in the ledger. */
    DRY_RUN
}

package io.loadgate.worker.target;

/**
 * A business key's rows as {@link Target#rollback} found them, removed by one {@link #commit} that removes nothing
 * if they changed meanwhile (a run published the key).
 */
public interface PendingRollback {
    /** How many rows the key holds; 0 means there is nothing to roll back. */
    long rows();

    /** What would be removed, e.g. {@code 2 data file(s), 1,500 rows of business key 2026-11-28 from lake.orders}. */
    String describe();

    /**
     * Removes exactly the rows found, recording the run whose rows they are and why.
     *
     * @throws TargetException when nothing was removed because the key changed, or when the commit's outcome is
     *     unknown (the message says what to look for before anything else)
     */
    RolledBack commit(String runId, String reason);

    /**
     * @param ref what the ledger records as the rollback's targetRef
     * @param committedAs the commit as messages name it ({@code snapshot 42}, {@code transaction 812})
     */
    record RolledBack(String ref, String committedAs) {
        public RolledBack {
            java.util.Objects.requireNonNull(ref, "ref is null");
            java.util.Objects.requireNonNull(committedAs, "committedAs is null");
        }
    }
}

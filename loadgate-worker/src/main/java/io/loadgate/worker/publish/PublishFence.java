package io.loadgate.worker.publish;

import static java.util.Objects.requireNonNull;

import java.time.Instant;

/**
 * What keeps a publish from landing where it must not: a publisher paused past its lease (a stopped process, a long
 * GC) must not commit over a later run's publish of the same key, nor after the ledger may have settled its run. The
 * target checks both atomically with its commit (Iceberg: in the table operations' compare-and-set, retried with
 * it; a warehouse: in the publish transaction, under the key's lock) and records {@code generation} with the data.
 *
 * @param generation the business key's publish generation the ledger issued at the publish claim; the commit is
 *     refused when the target already holds a higher one for the key. Each claim takes a new generation, so an equal
 *     one can only be this very claim's (its own earlier attempt, which the commit then replaces with itself)
 * @param deadline the last instant, on this process's clock, at which the commit may still be sent
 */
public record PublishFence(long generation, Instant deadline) {
    public PublishFence {
        if (generation < 1) {
            throw new IllegalArgumentException("publish generation must be at least 1, got " + generation);
        }
        requireNonNull(deadline, "deadline is null");
    }

    /** Throws {@link PublishFencedException} when the deadline has passed; call it as late before the commit as can. */
    public void checkDeadline() {
        Instant now = Instant.now();
        if (now.isAfter(deadline)) {
            throw new PublishFencedException("the publish deadline " + deadline + " passed (now " + now
                    + "): the ledger may already have settled the run, so the commit is not sent");
        }
    }

    /**
     * Throws {@link PublishFencedException} when the target's newest generation for the key, {@code recorded} (null:
     * none), is above this publish's.
     */
    public void checkNotBehind(Long recorded, String where) {
        if (recorded != null && recorded > generation) {
            throw new PublishFencedException(where + " holds publish generation " + recorded + " of the business key,"
                    + " above this publish's " + generation + ": a later publish of the key has claimed it");
        }
    }
}

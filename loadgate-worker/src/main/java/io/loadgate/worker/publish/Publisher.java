package io.loadgate.worker.publish;

import java.util.UUID;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Makes a run's staged files the target's data for its business key, exactly once. Implementations make no
 * ledger calls: the caller claims the publish token first ({@code publish/claim}) and reports the outcome
 * ({@code publish/result}) afterwards.
 *
 * <p>Contract:
 * <ul>
 *   <li>{@link #publish} makes at most one commit that can land, and returns rather than throws for every
 *       failure it can classify. Its outcome is trustworthy in one direction each: PUBLISHED means the commit
 *       landed; FAILED_PUBLISH means the table is certainly unchanged by this call (the run's files may be
 *       cleaned up); PUBLISH_UNKNOWN means either may be true. The caller must never call {@code publish}
 *       again for a run whose outcome was not FAILED_PUBLISH, and never clean up after PUBLISH_UNKNOWN.</li>
 *   <li>An {@link Error} (out of memory...) propagates; the caller then reports nothing and the ledger's
 *       {@code publish_stale} turns the run PUBLISH_UNKNOWN, which is the truth.</li>
 *   <li>{@link #probe} resolves a PUBLISH_UNKNOWN run: it looks for the token in the table. PUBLISHED is
 *       final; NOT_FOUND is only evidence of failure once the attempt is certainly over (the publishing
 *       process has returned or died, or {@code publish_stale} has passed) — a commit still in flight can
 *       land after a probe.</li>
 * </ul>
 */
public interface Publisher {
    /** Replaces the request's business-key partition with exactly its files, in one atomic commit. */
    PublishOutcome publish(PublishRequest request);

    /**
     * Looks through every retained snapshot of {@code table} for one committed with {@code publishToken}.
     * Throws when the catalog cannot be read (the run then stays PUBLISH_UNKNOWN), or when the token is found
     * under another run id (a broken invariant that no one should resolve automatically).
     */
    ProbeResult probe(TableIdentifier table, String runId, UUID publishToken);
}

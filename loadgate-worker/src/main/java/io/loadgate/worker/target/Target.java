package io.loadgate.worker.target;

import io.loadgate.worker.job.ValidationSpec;
import io.loadgate.worker.publish.ProbeResult;
import io.loadgate.worker.publish.PublishOutcome;
import io.loadgate.worker.publish.StagedFile;
import io.loadgate.worker.publish.TargetMismatchException;
import io.loadgate.worker.validation.MetricSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import org.apache.iceberg.Schema;

/**
 * The table a job loads into, chosen once per job by {@link Targets#forJob}: an Iceberg table or a warehouse table.
 * Callers never ask which; what differs lives behind these methods. Implementations make no ledger calls.
 *
 * <p>Columns are given as the staged files' schema ({@link Schema} is the staging format's type, shared by every
 * target), never as one target's own types.
 */
public interface Target {
    /** The table as the job names it ({@code namespace.name} or {@code schema.table}); messages show it so. */
    String table();

    /**
     * {@code loadgate setup}: creates the table from {@code columns} when absent, else checks that it fits them.
     *
     * @return true when this call created the table
     * @throws TargetMismatchException when the table exists with other columns or partitioning, or cannot be made
     *     to hold the business key
     * @throws TargetException when the target cannot be reached
     */
    boolean setUp(Schema columns);

    /**
     * The table's columns as staged files hold them, when the target can tell: an existing Iceberg table's schema;
     * empty when the table does not exist, or for a warehouse (its database types do not say which staged type a
     * column holds).
     *
     * @throws TargetException when the target cannot be read
     */
    Optional<Schema> columns();

    /**
     * Before a run is created ({@code load}, {@code setup}): the target answers and takes this process's
     * credentials, and the table, if it exists, fits {@code columns}. Columns the source gained after the table's own
     * are added here when the job's {@code target.schema} is {@code add_columns}, else refused by name. An absent
     * table is left to {@link #setUp} or the first publish.
     *
     * @return the names of the columns added; empty when none were
     * @throws TargetMismatchException when the table does not fit, naming the columns
     * @throws TargetException when the target cannot be reached
     */
    List<String> check(Schema columns);

    /**
     * Makes the publication's files the table's data for its business key, exactly once. The caller claims the
     * publish token first ({@code publish/claim}) and reports the outcome ({@code publish/result}) afterwards.
     *
     * <ul>
     *   <li>Makes at most one commit that can land, and returns rather than throws for every failure it can
     *       classify. PUBLISHED means the commit landed; FAILED_PUBLISH means the table is certainly unchanged by
     *       this call (the run's files may be cleaned up); PUBLISH_UNKNOWN means either may be true. Never call it
     *       again for a run whose outcome was not FAILED_PUBLISH, and never clean up after PUBLISH_UNKNOWN.</li>
     *   <li>The commit is fenced: it is refused (FAILED_PUBLISH, {@code PUBLISH_FENCED}) when the table already
     *       holds a publish of the key with a higher generation than the publication's, or when the publication's
     *       deadline has passed; both are checked atomically with the commit, as late as the target allows.</li>
     *   <li>An {@link Error} propagates; the caller then reports nothing and the ledger's {@code publish_stale}
     *       turns the run PUBLISH_UNKNOWN, which is the truth.</li>
     * </ul>
     */
    PublishOutcome publish(Publication publication);

    /**
     * Resolves a PUBLISH_UNKNOWN run: looks for {@code publishToken} in what the table retains of its publishes.
     * PUBLISHED is final; NOT_FOUND is evidence of failure only once the attempt is certainly over (its process
     * returned or died, or its publish deadline has passed). Throws when the target cannot be read, or when the
     * token is found under another run id (a broken invariant no one should resolve automatically).
     */
    ProbeResult probe(String runId, UUID publishToken);

    /**
     * VALIDATE_TARGET: opens the table now (throws while it cannot be opened; the dispatch comes again) and returns
     * the reading of the business key's rows as it is now, measured with {@code validation}'s metrics; a reading
     * that throws fails the run. {@code stagedColumns} is asked only by a target that does not know its columns.
     */
    Supplier<MetricSet> reading(String businessKey, ValidationSpec validation, Supplier<Schema> stagedColumns);

    /**
     * As {@link #reading(String, ValidationSpec, Supplier)}, given also the run's data files as the ledger holds them.
     * A target whose metadata describes its files exactly (Iceberg) checks that they are these files and then
     * takes from that metadata what it gives exactly, reading data only for the rest; the reading then carries
     * {@link io.loadgate.worker.validation.MetricNames#TARGET_FILES}. Others measure their data as before.
     */
    default Supplier<MetricSet> reading(String businessKey, ValidationSpec validation, Supplier<Schema> stagedColumns,
                                        List<StagedFile> ledgerFiles) {
        return reading(businessKey, validation, stagedColumns);
    }

    /**
     * {@code loadgate rollback}: the business key's rows as they are now, ready to be removed in one commit; empty
     * when the table does not exist.
     *
     * @throws TargetMismatchException when a business key of this table cannot be removed as one unit
     * @throws TargetException when the table cannot be read
     */
    Optional<PendingRollback> rollback(String businessKey);

    /**
     * Cleanup: the locations of the staged files the table references in any retained snapshot (a copying target
     * references none); empty when the table does not exist.
     *
     * @throws TargetException when what the table references cannot be learned
     */
    Optional<Set<String>> referencedFiles();

    /**
     * Cleanup, in a pass that deletes, before {@link #referencedFiles}: forgets the table's history past
     * {@code expiry}'s retention (Iceberg: expires snapshots, in one commit), so that files only old history
     * references can be freed. A copying target keeps no such history and expires nothing.
     *
     * @return how many snapshots expired
     */
    int expireHistory(SnapshotExpiry expiry);

    /**
     * {@code loadgate table show|count}: the table's columns and the rows of each business key as the table holds
     * them now (exact: what a reader of the table gets); empty when the table does not exist.
     *
     * @throws TargetException when the table cannot be read
     */
    Optional<TableOverview> overview();

    /**
     * {@code loadgate table sample}: up to {@code limit} rows of the table (of {@code businessKey} only, when given),
     * each a map from column name to its value as text (null for SQL NULL), in column order; empty when the table
     * does not exist.
     *
     * @throws TargetException when the table cannot be read
     */
    List<java.util.Map<String, String>> sample(Optional<String> businessKey, int limit);

    /**
     * {@code loadgate table snapshots}: the commits the table retains, oldest first, each with the run id and
     * publish token that made it; empty when the table does not exist.
     *
     * @throws TargetException when the table cannot be read
     */
    List<TableSnapshot> snapshots();

    /**
     * {@code loadgate table history}: the table's states in the order they became current (Iceberg's snapshot log:
     * a rollback to an older snapshot shows it again, at the time it became current); a warehouse's are its
     * publishes, as {@link #snapshots}.
     *
     * @throws TargetException when the table cannot be read
     */
    List<TableSnapshot> history();
}

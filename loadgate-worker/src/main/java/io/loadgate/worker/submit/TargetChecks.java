package io.loadgate.worker.submit;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.job.JobSpecException;
import io.loadgate.worker.publish.TargetMismatchException;
import io.loadgate.worker.target.TargetException;
import io.loadgate.worker.target.Targets;
import java.util.List;
import org.apache.iceberg.Schema;

/**
 * The submitter's look at a job's target before it creates a run, so that what would fail the publish after the
 * whole extraction fails now, in one line: a catalog or warehouse that does not answer or refuses the credentials
 * (read here from this process's environment, as the publishing worker reads them from its own), no catalog to
 * publish to, or a table that does not fit the staged columns. Columns the source gained are added here when the
 * job's {@code target.schema} allows it. The Iceberg catalog is the one the job names, else the default of
 * {@code targets} (see {@code TargetCatalogs}): the submitter cannot see a remote worker's, so it checks the one it
 * was given.
 */
public final class TargetChecks {
    private final Targets targets;

    public TargetChecks(Targets targets) {
        this.targets = requireNonNull(targets, "targets is null");
    }

    /**
     * @param staged the schema the run's chunks will be written with
     * @return the names of the columns added to the table; empty when none were
     * @throws TargetCheckException when the target cannot take the run
     */
    public List<String> check(JobSpec job, Schema staged) {
        try {
            return targets.forJob(job).check(staged);
        } catch (IllegalArgumentException e) {
            // The business-key column is not among the staged columns, or cannot partition the table.
            throw new TargetCheckException("target.business_key_column: " + e.getMessage(), e);
        } catch (TargetMismatchException | JobSpecException | TargetException e) {
            throw new TargetCheckException(e.getMessage(), e);
        }
    }
}

package io.loadgate.worker.submit;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.execution.TargetCatalogs;
import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.job.JobSpecException;
import io.loadgate.worker.publish.TargetMismatchException;
import io.loadgate.worker.publish.TargetTable;
import io.loadgate.worker.warehouse.WarehouseConnector;
import io.loadgate.worker.warehouse.WarehousePublisher;
import io.loadgate.worker.warehouse.WarehouseTable;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The submitter's look at a job's target before it creates a run, so that what would fail the publish after the
 * whole extraction fails now, in one line: a catalog or warehouse that does not answer or refuses the credentials
 * (read here from this process's environment, as the publishing worker reads them from its own), no catalog to
 * publish to, or a table that does not fit the staged columns. Columns the source gained are added here when the
 * job's {@code target.schema} allows it. The Iceberg catalog is the one the job names, else {@code catalogs}' default
 * (see {@link TargetCatalogs}): the submitter cannot see a remote worker's, so it checks the one it was given.
 */
public final class TargetChecks {
    private final TargetCatalogs catalogs;
    private final Map<String, String> environment;

    public TargetChecks(TargetCatalogs catalogs, Map<String, String> environment) {
        this.catalogs = requireNonNull(catalogs, "catalogs is null");
        this.environment = Map.copyOf(environment);
    }

    /**
     * @param staged the schema the run's chunks will be written with
     * @return the names of the columns added to the table; empty when none were
     * @throws TargetCheckException when the target cannot take the run
     */
    public List<String> check(JobSpec job, Schema staged) {
        String table = job.target().table();
        TargetTable target;
        try {
            target = new TargetTable(TableIdentifier.parse(table), staged, job.target().businessKeyColumn());
        } catch (IllegalArgumentException e) {
            throw new TargetCheckException("target.business_key_column: " + e.getMessage(), e);
        }
        if (job.target().isWarehouse()) {
            try {
                return new WarehousePublisher(WarehouseConnector.of(job.target().database(), environment),
                        new Configuration()).check(WarehouseTable.of(table, staged, target.businessKeyColumn()),
                        job.target().schema());
            } catch (SQLException e) {
                throw new TargetCheckException("the warehouse " + job.target().database() + " refused the check of "
                        + table + ": " + firstLine(e.getMessage()), e);
            } catch (TargetMismatchException | JobSpecException e) {
                throw new TargetCheckException(e.getMessage(), e);
            }
        }
        try {
            return catalogs.forJob(job).check(target, job.target().schema());
        } catch (TargetMismatchException | JobSpecException e) {
            throw new TargetCheckException(e.getMessage(), e);
        } catch (RuntimeException e) {
            throw new TargetCheckException("the Iceberg catalog of " + table + " failed: " + rootLine(e), e);
        }
    }

    /** Catalog libraries wrap the driver's error, which is the part that says what went wrong. */
    private static String rootLine(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root == e ? e.getMessage() : e.getMessage() + ": " + root.getMessage();
        return firstLine(message == null ? e.getClass().getSimpleName() : message);
    }

    private static String firstLine(String message) {
        return message == null ? "" : message.strip().lines().findFirst().orElse("");
    }
}

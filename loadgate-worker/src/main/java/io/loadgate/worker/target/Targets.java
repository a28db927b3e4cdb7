package io.loadgate.worker.target;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.execution.TargetCatalogs;
import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.job.JobSpecException;
import io.loadgate.worker.job.TargetSpec;
import java.util.Map;
import java.util.ServiceLoader;
import org.apache.hadoop.conf.Configuration;

/**
 * Picks the {@link Target} for a job, once, as {@code Sources.forJob} picks its source: a warehouse table when the
 * job's target names a {@code database}, a Hive table when it names {@code hive} (a {@link TargetProvider} of the
 * {@code loadgate-hive} module), else an Iceberg table in the job's catalog or the worker's default one.
 * Nothing is opened here: a target opens its catalog or connection when first used, so a job whose target cannot
 * be reached still gets one, and its first call says why.
 */
public final class Targets {
    private final TargetCatalogs catalogs;
    private final Map<String, String> environment;
    private final Configuration hadoop;

    /** {@code environment} supplies the password variable a warehouse or HiveServer2 spec names; pass {@code System.getenv()}. */
    public Targets(TargetCatalogs catalogs, Map<String, String> environment, Configuration hadoop) {
        this.catalogs = requireNonNull(catalogs, "catalogs is null");
        this.environment = requireNonNull(environment, "environment is null");
        this.hadoop = requireNonNull(hadoop, "hadoop is null");
    }

    public Target forJob(JobSpec job) {
        requireNonNull(job, "job is null");
        TargetSpec spec = job.target();
        if (spec.isWarehouse()) {
            return new WarehouseTarget(job.jobKey(), spec, environment, hadoop);
        }
        if (spec.isHive()) {
            return provided("hive").create(job, hadoop, environment);
        }
        return new IcebergTarget(job.jobKey(), spec, () -> catalogs.forJob(job));
    }

    private static TargetProvider provided(String kind) {
        return ServiceLoader.load(TargetProvider.class).stream().map(ServiceLoader.Provider::get)
                .filter(provider -> provider.kind().equals(kind)).findFirst()
                .orElseThrow(() -> new JobSpecException("target." + kind + " needs the loadgate-"
                        + kind + " module on the class path (lib/ of the distribution); this process has none"));
    }

    /**
     * True when the job's target is an Iceberg table without a catalog of its own, so whoever runs it must supply
     * the default catalog (the CLI starts its local one then).
     */
    public static boolean needsDefaultCatalog(JobSpec job) {
        return !job.target().isWarehouse() && !job.target().isHive() && job.target().catalog().isEmpty();
    }
}

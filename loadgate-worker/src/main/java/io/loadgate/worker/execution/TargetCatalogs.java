package io.loadgate.worker.execution;

import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.job.JobSpecException;
import io.loadgate.worker.publish.CatalogConfig;
import io.loadgate.worker.publish.TargetCatalog;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Iceberg catalogs this worker publishes to: the job's own ({@code target.catalog}) or the worker's default.
 * Opened once each and shared: a catalog holds a connection pool.
 */
public final class TargetCatalogs implements AutoCloseable {
    private final Optional<CatalogConfig> defaultConfig;
    private final Path defaultWarehouse;
    private final Map<Object, TargetCatalog> open = new ConcurrentHashMap<>();

    public TargetCatalogs(Optional<CatalogConfig> defaultConfig, Path defaultWarehouse) {
        this.defaultConfig = defaultConfig;
        this.defaultWarehouse = defaultWarehouse;
    }

    /** Every job without a catalog of its own publishes to {@code catalog}, already open. */
    public static TargetCatalogs withDefault(TargetCatalog catalog, Path defaultWarehouse) {
        TargetCatalogs catalogs = new TargetCatalogs(Optional.empty(), defaultWarehouse);
        catalogs.open.put(DefaultKey.INSTANCE, catalog);
        return catalogs;
    }

    public TargetCatalog forJob(JobSpec job) {
        if (!job.target().catalog().isEmpty()) {
            CatalogConfig config = CatalogConfig.fromProperties(job.target().catalog(), defaultWarehouse);
            return open.computeIfAbsent(config, c -> TargetCatalog.open(config));
        }
        return open.computeIfAbsent(DefaultKey.INSTANCE, key -> TargetCatalog.open(defaultConfig.orElseThrow(() ->
                new JobSpecException("job " + job.jobKey() + " names no target.catalog and there is no default"
                        + " catalog here (--catalog, or the lakehouse of a ledger on $LOADGATE_HOME)"))));
    }

    @Override
    public void close() {
        open.values().forEach(TargetCatalog::close);
        open.clear();
    }

    /** The key of the worker's default catalog among the open ones. */
    private enum DefaultKey {
        INSTANCE
    }
}

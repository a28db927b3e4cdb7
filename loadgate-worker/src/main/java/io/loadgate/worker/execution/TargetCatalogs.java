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
    private final Optional<CatalogConfig> defaultCatalog;
    private final Path defaultWarehouse;
    private final Map<CatalogConfig, TargetCatalog> open = new ConcurrentHashMap<>();

    public TargetCatalogs(Optional<CatalogConfig> defaultCatalog, Path defaultWarehouse) {
        this.defaultCatalog = defaultCatalog;
        this.defaultWarehouse = defaultWarehouse;
    }

    public TargetCatalog forJob(JobSpec job) {
        CatalogConfig config;
        if (!job.target().catalog().isEmpty()) {
            config = CatalogConfig.fromProperties(job.target().catalog(), defaultWarehouse);
        } else {
            config = defaultCatalog.orElseThrow(() -> new JobSpecException("job " + job.jobKey()
                    + " names no target.catalog and this worker has no default catalog (--catalog-uri)"));
        }
        return open.computeIfAbsent(config, TargetCatalog::open);
    }

    @Override
    public void close() {
        open.values().forEach(TargetCatalog::close);
        open.clear();
    }
}

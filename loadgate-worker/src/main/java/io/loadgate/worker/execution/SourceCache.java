package io.loadgate.worker.execution;

import io.loadgate.api.RunId;
import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.source.Source;
import io.loadgate.worker.source.Sources;
import io.loadgate.worker.source.jdbc.IdleConnections;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One {@link Source} per run in this process. The planner registers the source that holds the snapshot, because
 * some sources (MariaDB) can hand their snapshot only to readers in the same process; other runs get a new one.
 * The sources share the process's {@link IdleConnections}, so a partition of the next run finds a connection too;
 * closing the cache closes them.
 */
public final class SourceCache implements AutoCloseable {
    private final Map<String, String> environment;
    private final Map<RunId, Source> sources = new ConcurrentHashMap<>();
    private final IdleConnections idle = IdleConnections.forProcess();

    /** The environment the jobs' {@code password_env} variables are read from (sources and warehouses alike). */
    public Map<String, String> environment() {
        return environment;
    }

    public SourceCache(Map<String, String> environment) {
        this.environment = Map.copyOf(environment);
    }

    public void register(RunId runId, Source source) {
        sources.put(runId, source);
    }

    public Source forRun(RunId runId, JobSpec job) {
        return sources.computeIfAbsent(runId, id -> newSource(job));
    }

    /** A new source for {@code job} (the planner's, before its run exists), sharing this process's connections. */
    public Source newSource(JobSpec job) {
        return Sources.forJob(job, environment, idle);
    }

    public void forget(RunId runId) {
        sources.remove(runId);
    }

    /** Closes the source connections kept between reads (partitions and plans). */
    @Override
    public void close() {
        idle.close();
    }
}

package io.loadgate.worker.publish;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Runs every task in the thread that submits it, for an Iceberg commit's manifest work
 * ({@code SnapshotUpdate.scanManifestsWith} and {@code writeManifestsWith}).
 *
 * <p>Why: Iceberg waits for the tasks it hands to a pool by polling their futures every 10 ms ({@code Tasks.waitFor}),
 * and a publish's overwrite does so three times (writing the new data manifest, merging manifests, writing the
 * manifest list). Each poll usually finds the few milliseconds of work unfinished and sleeps: 24 of a publish's 41 ms
 * were those sleeps (async-profiler, wall clock, 61 publishes of the scale bench, 2026-12-04). Run in the caller, the
 * futures are done before the first poll. A load's publish writes one manifest and merges a handful, so nothing is
 * lost by not writing them in parallel. A rollback's delete commits the same way.
 */
final class SameThreadExecutor extends AbstractExecutorService {
    /** Stateless, so one serves every commit; shutting it down is refused rather than silently ignored. */
    static final SameThreadExecutor INSTANCE = new SameThreadExecutor();

    private SameThreadExecutor() {
    }

    @Override
    public void execute(Runnable command) {
        command.run();
    }

    @Override
    public void shutdown() {
        throw new UnsupportedOperationException("the same-thread executor is shared and cannot be shut down");
    }

    @Override
    public List<Runnable> shutdownNow() {
        throw new UnsupportedOperationException("the same-thread executor is shared and cannot be shut down");
    }

    @Override
    public boolean isShutdown() {
        return false;
    }

    @Override
    public boolean isTerminated() {
        return false;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return false;
    }
}

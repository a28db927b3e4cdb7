package io.loadgate.worker.submit;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.ledger.RunApi.RunView;
import io.loadgate.worker.ledger.RunStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

/**
 * Follows a run until it ends, telling a listener each time it changes, and closes the submission's snapshot as
 * soon as extraction is over (not before: partitions still reading need it; not much later: it holds back
 * the source's vacuum).
 */
public final class RunFollower {
    private final LedgerClient ledger;
    private final Duration pollInterval;
    private final Duration unknownPatience;

    /**
     * @param unknownPatience how long to wait in PUBLISH_UNKNOWN for the publish probe before handing the run to an
     *     operator
     */
    public RunFollower(LedgerClient ledger, Duration pollInterval, Duration unknownPatience) {
        this.ledger = requireNonNull(ledger, "ledger is null");
        this.pollInterval = requireNonNull(pollInterval, "pollInterval is null");
        this.unknownPatience = requireNonNull(unknownPatience, "unknownPatience is null");
    }

    /** Told of each new state of the run. */
    @FunctionalInterface
    public interface Listener {
        void changed(RunView run);
    }

    /** Follows until the run ends, or rests in PUBLISH_UNKNOWN longer than the patience; returns its last view. */
    public RunView follow(UUID runId, AutoCloseable snapshot, Listener listener) throws InterruptedException {
        RunView last = null;
        Instant unknownSince = null;
        boolean snapshotOpen = snapshot != null;
        while (true) {
            RunView run = ledger.getRun(runId);
            if (last == null || !sameProgress(last, run)) {
                listener.changed(run);
            }
            last = run;
            if (snapshotOpen && run.status() != RunStatus.CREATED && run.status() != RunStatus.EXTRACTING) {
                closeQuietly(snapshot);
                snapshotOpen = false;
            }
            if (run.status().isTerminal()) {
                return run;
            }
            if (run.status() == RunStatus.PUBLISH_UNKNOWN) {
                unknownSince = unknownSince == null ? Instant.now() : unknownSince;
                if (Duration.between(unknownSince, Instant.now()).compareTo(unknownPatience) > 0) {
                    return run;
                }
            }
            Thread.sleep(pollInterval.toMillis());
        }
    }

    /** Follows only until extraction is over, then closes the snapshot and returns. */
    public RunView followExtraction(UUID runId, AutoCloseable snapshot, Listener listener) throws InterruptedException {
        RunView last = null;
        while (true) {
            RunView run = ledger.getRun(runId);
            if (last == null || !sameProgress(last, run)) {
                listener.changed(run);
            }
            last = run;
            if (run.status() != RunStatus.CREATED && run.status() != RunStatus.EXTRACTING) {
                closeQuietly(snapshot);
                return run;
            }
            Thread.sleep(pollInterval.toMillis());
        }
    }

    private static boolean sameProgress(RunView a, RunView b) {
        return a.status() == b.status() && a.extractedCount() == b.extractedCount()
                && a.successPartitionCount() == b.successPartitionCount()
                && a.failedPartitionCount() == b.failedPartitionCount();
    }

    private static void closeQuietly(AutoCloseable snapshot) {
        try {
            snapshot.close();
        } catch (Exception e) {
            // The snapshot's transaction ends with its connection either way.
        }
    }
}

package io.loadgate.worker.submit;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunStatus;
import io.loadgate.worker.ledger.LedgerClient;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.function.Predicate;

/**
 * Follows a run, telling a listener each time it changes, and closes the submission's snapshot as soon as
 * extraction is over (not before: partitions still reading need it; not much later: it holds back the source's
 * vacuum).
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
        Instant[] unknownSince = {null};
        return followUntil(runId, snapshot, listener, run -> {
            if (run.status() != RunStatus.PUBLISH_UNKNOWN) {
                return run.status().isTerminal();
            }
            unknownSince[0] = unknownSince[0] == null ? Instant.now() : unknownSince[0];
            return Duration.between(unknownSince[0], Instant.now()).compareTo(unknownPatience) > 0;
        });
    }

    /** Follows only until extraction is over; the snapshot is closed by then. */
    public RunView followExtraction(UUID runId, AutoCloseable snapshot, Listener listener) throws InterruptedException {
        return followUntil(runId, snapshot, listener, run -> !extracting(run));
    }

    private RunView followUntil(UUID runId, AutoCloseable snapshot, Listener listener, Predicate<RunView> done)
            throws InterruptedException {
        RunView last = null;
        boolean snapshotOpen = snapshot != null;
        while (true) {
            RunView run = ledger.getRun(runId);
            if (last == null || !sameProgress(last, run)) {
                listener.changed(run);
            }
            last = run;
            if (snapshotOpen && !extracting(run)) {
                closeQuietly(snapshot);
                snapshotOpen = false;
            }
            if (done.test(run)) {
                return run;
            }
            Thread.sleep(pollInterval.toMillis());
        }
    }

    private static boolean extracting(RunView run) {
        return run.status() == RunStatus.CREATED || run.status() == RunStatus.EXTRACTING;
    }

    private static boolean sameProgress(RunView a, RunView b) {
        return a.status() == b.status() && a.extractedCount() == b.extractedCount()
                && a.progressRows().equals(b.progressRows())
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

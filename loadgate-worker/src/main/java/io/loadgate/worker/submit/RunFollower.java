package io.loadgate.worker.submit;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.DispatchStatus;
import io.loadgate.api.ErrorCode;
import io.loadgate.api.PartitionStatus;
import io.loadgate.api.RunApi.FailRun;
import io.loadgate.api.RunApi.RunChange;
import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunId;
import io.loadgate.api.RunStatus;
import io.loadgate.worker.ledger.LedgerCallException;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.submit.RunSubmitter.Submission;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows a run, telling a listener each time it changes, and closes the submission's snapshot as soon as
 * extraction is over (not before: partitions still reading need it; not much later: it holds back the source's
 * vacuum). While the ledger does not answer, the client's retry window keeps the follower, and so the snapshot,
 * waiting. When the snapshot itself dies (the source database restarted, or the backend holding it was
 * terminated), the follower fails the run FAILED_SNAPSHOT_EXPIRED at once: no partition that has yet to start can be
 * read at that snapshot any more, and the run would otherwise stay active until each one was tried.
 */
public final class RunFollower {
    private static final Logger LOG = LoggerFactory.getLogger(RunFollower.class);
    static final String SNAPSHOT_LOST = "SNAPSHOT_LOST";
    /** How often the snapshot is checked: each check is a round trip to the source. */
    private static final Duration SNAPSHOT_CHECK = Duration.ofSeconds(1);
    /** As long as the ledger waits before it lists a run no worker takes under the monitor's attention. */
    public static final Duration DEFAULT_WORKER_PATIENCE = Duration.ofMinutes(1);

    private final LedgerClient ledger;
    private final Duration pollInterval;
    private final Duration unknownPatience;
    private final Duration workerPatience;

    /**
     * @param unknownPatience how long to wait in PUBLISH_UNKNOWN for the publish probe before handing the run to an
     *     operator
     */
    public RunFollower(LedgerClient ledger, Duration pollInterval, Duration unknownPatience) {
        this(ledger, pollInterval, unknownPatience, DEFAULT_WORKER_PATIENCE);
    }

    /**
     * @param workerPatience how long the run's steps may wait with no worker taking any before the listener hears
     *     of it ({@link Listener#noWorker})
     */
    public RunFollower(LedgerClient ledger, Duration pollInterval, Duration unknownPatience, Duration workerPatience) {
        this.ledger = requireNonNull(ledger, "ledger is null");
        this.pollInterval = requireNonNull(pollInterval, "pollInterval is null");
        this.unknownPatience = requireNonNull(unknownPatience, "unknownPatience is null");
        this.workerPatience = requireNonNull(workerPatience, "workerPatience is null");
    }

    /** Told of each new state of the run. */
    @FunctionalInterface
    public interface Listener {
        void changed(RunView run);

        /**
         * The run's waiting steps have not been taken by any worker for {@code waited} (no dispatch of the run is
         * leased): told once per such spell, and the following goes on, since a worker may still come.
         */
        default void noWorker(RunView run, Duration waited) {
        }
    }

    /** Follows until the run ends, or rests in PUBLISH_UNKNOWN longer than the patience; returns its last view. */
    public RunView follow(RunId runId, Submission snapshot, Listener listener) throws InterruptedException {
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
    public RunView followExtraction(RunId runId, Submission snapshot, Listener listener) throws InterruptedException {
        return followUntil(runId, snapshot, listener, run -> !extracting(run));
    }

    private RunView followUntil(RunId runId, Submission snapshot, Listener listener, Predicate<RunView> done)
            throws InterruptedException {
        RunView last = null;
        boolean snapshotOpen = snapshot != null;
        Instant nextCheck = Instant.now();
        Instant untakenSince = null;
        boolean told = false;
        int deadChecks = 0;
        while (true) {
            RunView run = ledger.getRun(runId);
            if (snapshotOpen && run.status() == RunStatus.EXTRACTING && !Instant.now().isBefore(nextCheck)) {
                nextCheck = Instant.now().plus(SNAPSHOT_CHECK);
                // Twice in a row: one check that timed out on a busy source is not yet a lost snapshot.
                deadChecks = snapshot.snapshot().isAlive() ? 0 : deadChecks + 1;
                if (deadChecks >= 2) {
                    failSnapshotLost(runId, snapshot);
                    run = ledger.getRun(runId);
                }
            }
            if (last == null || !sameProgress(last, run)) {
                listener.changed(run);
            }
            last = run;
            // The ledger knows whether any worker has the run's steps: a leased dispatch is SENT.
            if (!untaken(run)) {
                untakenSince = null;
                told = false;
            } else if (untakenSince == null) {
                untakenSince = Instant.now();
            } else if (!told && Duration.between(untakenSince, Instant.now()).compareTo(workerPatience) >= 0) {
                listener.noWorker(run, Duration.between(untakenSince, Instant.now()));
                told = true;
            }
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

    private void failSnapshotLost(RunId runId, Submission submission) {
        String message = "the source snapshot " + submission.plan().snapshotRef() + " ended with the connection"
                + " that held it (the source database restarted, or its backend was terminated); partitions not yet"
                + " read cannot be read at it. Load the business key again.";
        try {
            RunChange change = ledger.failRun(runId, new FailRun(RunStatus.EXTRACTING,
                    RunStatus.FAILED_SNAPSHOT_EXPIRED, "EXTRACT", SNAPSHOT_LOST, message));
            LOG.warn("run {}: {} ({})", runId, message, change.changed() ? "failed it" : "it had already failed");
        } catch (LedgerCallException e) {
            // RUN_STATUS_MISMATCH: the run left EXTRACTING meanwhile (a worker failed it, or the last partition
            // had already been read); the next read of the run says how it went on.
            if (!e.is(ErrorCode.RUN_STATUS_MISMATCH)) {
                throw e;
            }
        }
    }

    /**
     * An active run with steps waiting for a worker, none leased and no partition being extracted (a claim
     * acknowledges its dispatch, so a running partition's is ACKED, not SENT): nobody is working on it.
     */
    private static boolean untaken(RunView run) {
        return !run.status().isTerminal() && run.status() != RunStatus.PUBLISH_UNKNOWN
                && run.dispatches().stream().anyMatch(d -> d.status() == DispatchStatus.PENDING)
                && run.dispatches().stream().noneMatch(d -> d.status() == DispatchStatus.SENT)
                && run.partitions().stream().noneMatch(p -> p.status() == PartitionStatus.RUNNING);
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

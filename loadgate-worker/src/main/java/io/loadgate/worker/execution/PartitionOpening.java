package io.loadgate.worker.execution;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.source.PartitionRows;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A partition's rows being opened on a thread of its own while the ledger decides the claim. Opening them is a
 * source connection (a new one when none is kept: a PostgreSQL connection alone took 12 ms on the bench's machine)
 * that joins the run's snapshot and starts its read; the claim is a ledger round trip; neither needs the other, so
 * the extraction starts after the longer of the two rather than after both. Reading before the claim is won reads
 * nothing that matters: the source is only read, at the run's snapshot, and the rows are closed unread when the claim
 * is not won.
 */
final class PartitionOpening {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionOpening.class);

    private final FutureTask<PartitionRows> opening;
    // Both set by the step's thread; the opening thread reads discarded when it finishes.
    private volatile boolean handedOut;
    private volatile boolean discarded;
    private final AtomicBoolean closed = new AtomicBoolean();

    private PartitionOpening(Callable<PartitionRows> open) {
        this.opening = new FutureTask<>(requireNonNull(open, "open is null")) {
            @Override
            protected void done() {
                if (discarded) {
                    closeOnce();
                }
            }
        };
    }

    /** Starts opening the rows with {@code open}. */
    static PartitionOpening start(Callable<PartitionRows> open) {
        PartitionOpening partition = new PartitionOpening(open);
        Thread thread = new Thread(partition.opening, "loadgate-open-partition");
        thread.setDaemon(true);
        thread.start();
        return partition;
    }

    /** The open rows, for the caller to close; or what opening them threw, as it was thrown. */
    PartitionRows rows() {
        PartitionRows rows;
        try {
            rows = opening.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            discard();
            throw new CancellationException("interrupted while the partition's rows were opened");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(cause);
        }
        handedOut = true;
        return rows;
    }

    /** Closes the rows, now or once they are open, unless {@link #rows()} handed them out. */
    void discard() {
        if (handedOut) {
            return;
        }
        // Set before the check: the opening thread sets its outcome before it calls done(), so either this sees
        // the outcome or done() sees the flag.
        discarded = true;
        if (opening.isDone()) {
            closeOnce();
        }
    }

    private void closeOnce() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            // Done: get() does not wait.
            opening.get().close();
        } catch (ExecutionException | CancellationException e) {
            // Nothing was opened.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.debug("closing the rows of an unclaimed partition failed: {}", e.toString());
        }
    }
}

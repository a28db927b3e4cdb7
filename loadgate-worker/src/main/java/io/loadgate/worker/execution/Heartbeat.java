package io.loadgate.worker.execution;

import io.loadgate.api.ErrorCode;
import io.loadgate.api.PartitionApi.PartitionHeartbeat;
import io.loadgate.api.PartitionId;
import io.loadgate.api.PartitionStatus;
import io.loadgate.api.RunId;
import io.loadgate.worker.ledger.LedgerCallException;
import io.loadgate.worker.ledger.LedgerClient;
import java.time.Duration;
import java.util.Iterator;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Tells the ledger a partition's owner is alive while it extracts and how many rows it has read, and notices when
 * it no longer owns it (the sweeper reissued the partition, or an operator cancelled its run): the extraction then
 * stops at the next row instead of writing on as a zombie.
 */
final class Heartbeat implements AutoCloseable {
    private final Beats beats;
    // Written by the one extracting thread only, so ++ on a volatile loses nothing; volatile so the timer's beats
    // see a recent count.
    private volatile long rowsRead;

    Heartbeat(LedgerClient ledger, RunId runId, PartitionId partitionId, UUID claimToken,
                      ScheduledExecutorService timer, Duration interval) {
        this.beats = new Beats(timer, interval, runId + "/" + partitionId, () -> {
            try {
                return ledger.heartbeat(runId, partitionId, new PartitionHeartbeat(claimToken, rowsRead))
                        .partitionStatus() == PartitionStatus.RUNNING;
            } catch (LedgerCallException e) {
                if (e.is(ErrorCode.CLAIM_MISMATCH)) {
                    return false;
                }
                throw e;
            }
        });
    }

    /** Beats at the worker's interval, or the ledger's ({@code ledgerMillis}, from the claim) when shorter. */
    static Heartbeat start(WorkerContext context, RunId runId, PartitionId partitionId, UUID claimToken,
                           Long ledgerMillis) {
        return new Heartbeat(context.ledger(), runId, partitionId, claimToken, context.shared().timer(),
                context.heartbeatInterval(ledgerMillis));
    }

    /**
     * Counts the rows {@code rows} yields as read, for the beats to report. Wrap the source's rows before the job's
     * transforms: a rejected row was read too, and the ledger counts it in the partition's rows.
     */
    <T> Iterator<T> counting(Iterator<T> rows) {
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return rows.hasNext();
            }

            @Override
            public T next() {
                T row = rows.next();
                rowsRead++;
                return row;
            }
        };
    }

    /** Throws the Error a beat hit, if one did: the extraction stops and reports it as the partition's failure. */
    void checkAlive() {
        beats.checkAlive();
    }

    /** True once the ledger says this worker no longer owns the partition. */
    boolean lost() {
        return beats.lost();
    }

    @Override
    public void close() {
        beats.close();
    }
}

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
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the ledger a partition's owner is alive while it extracts and how many rows it has read, and notices when
 * it no longer owns it (the sweeper reissued the partition, or an operator cancelled its run): the extraction then
 * stops at the next row instead of writing on as a zombie.
 */
final class Heartbeat implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Heartbeat.class);

    private final ScheduledFuture<?> task;
    private volatile boolean lost;
    private volatile Error failure;
    // Written by the one extracting thread only, so ++ on a volatile loses nothing; volatile so the timer's beats
    // see a recent count.
    private volatile long rowsRead;

    Heartbeat(LedgerClient ledger, RunId runId, PartitionId partitionId, UUID claimToken,
                      ScheduledExecutorService timer, Duration interval) {
        long millis = interval.toMillis();
        this.task = timer.scheduleWithFixedDelay(() -> beat(ledger, runId, partitionId, claimToken), millis, millis,
                TimeUnit.MILLISECONDS);
    }

    /** Beats at the worker's interval, or the ledger's ({@code ledgerMillis}, from the claim) when shorter. */
    static Heartbeat start(WorkerContext context, RunId runId, PartitionId partitionId, UUID claimToken,
                           Long ledgerMillis) {
        return new Heartbeat(context.ledger(), runId, partitionId, claimToken, context.shared().timer(),
                context.heartbeatInterval(ledgerMillis));
    }

    private void beat(LedgerClient ledger, RunId runId, PartitionId partitionId, UUID claimToken) {
        try {
            var result = ledger.heartbeat(runId, partitionId, new PartitionHeartbeat(claimToken, rowsRead));
            if (result.partitionStatus() != PartitionStatus.RUNNING) {
                lost = true;
            }
        } catch (LedgerCallException e) {
            if (e.is(ErrorCode.CLAIM_MISMATCH)) {
                lost = true;
            } else {
                LOG.warn("heartbeat for {}/{} failed: {}", runId, partitionId, e.getMessage());
            }
        } catch (RuntimeException e) {
            // A missed beat is harmless until `stale` passes; the next one may get through.
            LOG.warn("heartbeat for {}/{} failed: {}", runId, partitionId, e.getMessage());
        } catch (Error e) {
            // Thrown on, the Error would only end the beats inside the timer's future: the extraction would go on
            // unbeaten until the sweeper gave the partition to another worker. The extracting thread throws it at its
            // next row instead (checkAlive), and reports it as the partition's failure. Rethrown here so the timer
            // runs this beat no more: a JVM that throws an Error is not one to keep claiming the partition.
            LOG.error("heartbeat for {}/{} hit an Error; the extraction stops", runId, partitionId, e);
            failure = e;
            throw e;
        }
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

    /** Throws the Error a beat hit, if one did: the work this heartbeat vouches for must stop. */
    void checkAlive() {
        Error e = failure;
        if (e != null) {
            throw e;
        }
    }

    /** True once the ledger says this worker no longer owns the partition. */
    boolean lost() {
        return lost;
    }

    @Override
    public void close() {
        task.cancel(false);
    }
}

package io.loadgate.spark;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.RunApi.FailRun;
import io.loadgate.api.RunId;
import io.loadgate.api.RunStatus;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.ledger.Messages;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One beat of a Spark run from its driver, for the driver's timer. A failed call only skips a beat: the next may get
 * through, well inside the ledger's stale window. An Error ends the beats, and with them the ledger's reason to think
 * someone still runs the partitions; rather than leave the run to the sweeper's timeout while the executors go on,
 * the beat fails the run saying why and stops its Spark job ({@code stop}), then throws the Error on so that the timer
 * runs it no more.
 */
final class DriverBeat implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(DriverBeat.class);

    private final LedgerClient ledger;
    private final RunId runId;
    private final Runnable stop;

    DriverBeat(LedgerClient ledger, RunId runId, Runnable stop) {
        this.ledger = requireNonNull(ledger, "ledger is null");
        this.runId = requireNonNull(runId, "runId is null");
        this.stop = requireNonNull(stop, "stop is null");
    }

    @Override
    public void run() {
        try {
            ledger.heartbeatRun(runId);
        } catch (RuntimeException e) {
            LOG.warn("run {}: the driver's heartbeat failed: {}", runId, e.getMessage());
        } catch (Error e) {
            LOG.error("run {}: the driver's heartbeat hit an Error; failing the run and stopping its Spark job", runId,
                    e);
            try {
                ledger.failRun(runId, new FailRun(RunStatus.EXTRACTING, RunStatus.FAILED_EXTRACT, "EXTRACT",
                        e.getClass().getSimpleName(),
                        Messages.fit("the Spark driver hit " + e + " (its log has the stack trace)")));
            } catch (RuntimeException refused) {
                // RUN_STATUS_MISMATCH: extraction had ended (the beats matter only while it runs), or the ledger is
                // out of reach; the Spark job is stopped all the same.
                LOG.warn("run {}: failing it after the driver's Error was refused: {}", runId, refused.getMessage());
            }
            stop.run();
            throw e;
        }
    }
}

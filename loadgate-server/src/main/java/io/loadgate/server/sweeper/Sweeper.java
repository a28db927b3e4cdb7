package io.loadgate.server.sweeper;

import static java.util.Objects.requireNonNull;

import io.loadgate.ledger.sweeper.Sweep;
import io.loadgate.ledger.sweeper.SweepReport;
import io.loadgate.ledger.sweeper.SweepThresholds;
import io.loadgate.server.config.DispatchConfig;
import io.loadgate.server.config.RecoveryConfig;
import io.loadgate.server.dispatch.Dispatcher;
import io.loadgate.server.dispatch.Waiter;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link Sweep} tick every {@code recovery.sweeper_interval}. Every process runs one; the tick's advisory
 * lock lets one act at a time. A failed tick is logged and the next one runs on schedule.
 */
public final class Sweeper implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Sweeper.class);
    /** Rows one rule takes per tick; the rest wait for the next tick. */
    public static final int BATCH = 500;

    private final Sweep sweep;
    private final SweepThresholds thresholds;
    private final Duration interval;
    private final Waiter waiter = new Waiter();
    private final Thread thread;
    private volatile boolean stopped;

    public Sweeper(Sweep sweep, SweepThresholds thresholds, Duration interval) {
        this.sweep = requireNonNull(sweep, "sweep is null");
        this.thresholds = requireNonNull(thresholds, "thresholds is null");
        this.interval = requireNonNull(interval, "interval is null");
        this.thread = new Thread(this::loop, "loadgate-sweeper");
        this.thread.setDaemon(true);
    }

    public static SweepThresholds thresholds(RecoveryConfig recovery, DispatchConfig dispatch) {
        return new SweepThresholds(recovery.stale(), recovery.runTimeout(), recovery.manifestTimeout(),
                recovery.validationStale(),
                recovery.publishStale(), Dispatcher.policy(dispatch), BATCH);
    }

    public Sweeper start() {
        thread.start();
        return this;
    }

    public SweepReport runOnce() {
        SweepReport report = sweep.tick(thresholds);
        if (report.changes() > 0 || !report.failedRules().isEmpty()) {
            LOG.info("sweeper tick: {}", report);
        }
        return report;
    }

    private void loop() {
        while (!stopped) {
            try {
                runOnce();
            } catch (Throwable t) {
                LOG.error("sweeper tick failed; next tick in {}", interval, t);
            }
            try {
                waiter.await(interval);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @Override
    public void close() {
        stopped = true;
        waiter.wake();
        try {
            thread.join(Duration.ofSeconds(30).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

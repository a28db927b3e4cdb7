package io.loadgate.worker.execution;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A step's heartbeat on a timer: one ledger call per beat, telling the ledger the step's owner is alive and learning
 * whether it still owns the work. The working thread polls {@link #lost} and {@link #checkAlive} as it goes.
 *
 * <p>A RuntimeException only skips a beat: a missed one is harmless until the ledger's stale window passes, and the
 * next may get through. An Error is kept for {@link #checkAlive} to throw on the working thread, which reports it as
 * the step's failure; thrown on in the timer's future alone it would only end the beats, and the work would go on
 * unbeaten until the sweeper gave it to another worker. It is rethrown here too, so that the timer runs this beat no
 * more: a JVM that throws an Error is not one to keep claiming the work.
 */
final class Beats implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Beats.class);

    /** One beat's ledger call: false when the ledger says the work is no longer this caller's. */
    @FunctionalInterface
    interface Beat {
        boolean stillOwned();
    }

    private final ScheduledFuture<?> task;
    private volatile boolean lost;
    private volatile Error failure;

    /** Beats every {@code interval} from one interval on; {@code what} names the work in the log. */
    Beats(ScheduledExecutorService timer, Duration interval, String what, Beat beat) {
        requireNonNull(what, "what is null");
        requireNonNull(beat, "beat is null");
        long millis = interval.toMillis();
        this.task = timer.scheduleWithFixedDelay(() -> beat(what, beat), millis, millis, TimeUnit.MILLISECONDS);
    }

    private void beat(String what, Beat beat) {
        try {
            if (!beat.stillOwned()) {
                lost = true;
            }
        } catch (RuntimeException e) {
            LOG.warn("heartbeat for {} failed: {}", what, e.getMessage());
        } catch (Error e) {
            LOG.error("heartbeat for {} hit an Error; the work stops", what, e);
            failure = e;
            throw e;
        }
    }

    /** Throws the Error a beat hit, if one did: the work these beats vouch for must stop. */
    void checkAlive() {
        Error e = failure;
        if (e != null) {
            throw e;
        }
    }

    /** True once the ledger has said the work is no longer this caller's. */
    boolean lost() {
        return lost;
    }

    @Override
    public void close() {
        task.cancel(false);
    }
}

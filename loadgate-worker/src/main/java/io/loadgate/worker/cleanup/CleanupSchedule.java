package io.loadgate.worker.cleanup;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link Cleaner} pass ({@link CleanupMode#DELETE}) every interval on a daemon thread of its own, so that a
 * worker cleans staged files as it goes and nobody needs a cron entry calling {@code loadgate cleanup}.
 *
 * <p>One thread that waits the interval after each pass ends means a schedule never runs two passes at once, and a
 * pass longer than the interval is not followed by a pile of late ones. Other processes may clean at the same
 * time: the Cleaner tolerates that (a file another cleaner deleted first counts as gone).
 *
 * <p>A pass that throws (the ledger unreachable, a surprise anywhere) is logged and counted, and the next pass runs
 * on schedule.
 */
public final class CleanupSchedule {
    private static final Logger LOG = LoggerFactory.getLogger(CleanupSchedule.class);

    private final Supplier<List<RunCleanup>> pass;
    private final Duration every;
    /** The interval as operators write it ("1h", "30m"): ISO-8601's PT1H30M without the PT, in lower case. */
    private final String everyText;
    private final CountDownLatch stop = new CountDownLatch(1);
    private final Thread thread;
    private final AtomicLong passes = new AtomicLong();
    private final AtomicLong failedPasses = new AtomicLong();
    private final AtomicLong deletedBytes = new AtomicLong();

    /** Counts since the schedule started: passes (those that threw included), passes that threw, bytes deleted. */
    public record Totals(long passes, long failedPasses, long deletedBytes) {
    }

    private CleanupSchedule(Supplier<List<RunCleanup>> pass, Duration every) {
        this.pass = requireNonNull(pass, "pass is null");
        this.every = requireNonNull(every, "every is null");
        if (every.isNegative() || every.isZero()) {
            throw new IllegalArgumentException("the cleanup interval must be positive, got " + every);
        }
        this.everyText = every.toString().substring(2).toLowerCase(Locale.ROOT);
        this.thread = new Thread(this::loop, "loadgate-cleanup");
        this.thread.setDaemon(true);
    }

    /** Starts the schedule; the first pass runs right away. */
    public static CleanupSchedule start(Cleaner cleaner, Duration every) {
        requireNonNull(cleaner, "cleaner is null");
        return start(() -> cleaner.clean(CleanupMode.DELETE), every);
    }

    /** The seam for tests: any pass, on the same thread and schedule. */
    static CleanupSchedule start(Supplier<List<RunCleanup>> pass, Duration every) {
        CleanupSchedule schedule = new CleanupSchedule(pass, every);
        schedule.thread.start();
        return schedule;
    }

    public Totals totals() {
        return new Totals(passes.get(), failedPasses.get(), deletedBytes.get());
    }

    /**
     * Starts no further pass, and waits at most {@code wait} for a running one to end. A running pass is never
     * interrupted: it may be inside a Hadoop file system client shared with the worker's steps, and Hadoop closes
     * an interrupted thread's connection under every user of it. A pass still running when the JVM exits dies
     * with it, which is safe: the run it was cleaning stays a candidate, and the next pass (here or in another
     * process) deletes what is left and records it. May be called again, e.g. first with no wait to stop the
     * schedule at once, then with one to let a running pass end.
     *
     * @return whether the schedule's thread has ended
     */
    public boolean stop(Duration wait) {
        requireNonNull(wait, "wait is null");
        stop.countDown();
        try {
            thread.join(Math.max(1, wait.toMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return !thread.isAlive();
    }

    private void loop() {
        // The first pass runs at start rather than one interval later: a worker restarted more often than the
        // interval (deploys, autoscaling) would otherwise never clean.
        do {
            runPass();
        } while (!awaitStop());
    }

    private boolean awaitStop() {
        try {
            return stop.await(every.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }

    private void runPass() {
        long number = passes.incrementAndGet();
        try {
            List<RunCleanup> reports = pass.get();
            long files = 0;
            long bytes = 0;
            int cleaned = 0;
            int skipped = 0;
            int failed = 0;
            for (RunCleanup report : reports) {
                switch (report.outcome()) {
                    // A pass deletes, so DRY_RUN does not come back; it would mean the same: done with the run.
                    case CLEANED, DRY_RUN -> cleaned++;
                    case SKIPPED -> skipped++;
                    case FAILED -> failed++;
                }
                // A failed run's report still lists what it deleted before failing: those files are gone.
                files += report.deleted().size();
                bytes += report.deletedBytes();
            }
            deletedBytes.addAndGet(bytes);
            LOG.info("cleanup pass {}: {} run(s) cleaned, {} skipped, {} failed; deleted {} file(s), {} bytes; "
                    + "next in {}", number, cleaned, skipped, failed, files, bytes, everyText);
        } catch (Throwable t) {
            failedPasses.incrementAndGet();
            // One line per pass: a ledger down for hours must not fill the log with stack traces.
            LOG.warn("cleanup pass {} failed; next in {}: {}", number, everyText, describe(t));
            LOG.debug("cleanup pass {} failed", number, t);
        }
    }

    private static String describe(Throwable t) {
        String message = t.getMessage() == null || t.getMessage().isBlank() ? "" : ": " + t.getMessage().strip();
        return t.getClass().getSimpleName() + message.lines().findFirst().orElse("");
    }
}

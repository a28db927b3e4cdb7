package io.loadgate.cli;

import io.loadgate.api.DispatchStatus;
import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunStatus;
import io.loadgate.server.config.Durations;
import io.loadgate.worker.submit.RunFollower;
import java.io.PrintStream;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

/**
 * Shows a run's progress: a bar per stage redrawn in place on a terminal, one plain line per change otherwise (for
 * logs and CI, where cursor movement would be noise).
 */
final class ProgressDisplay implements RunFollower.Listener {
    private static final int WIDTH = 30;
    private static final String[] STAGES = {"extract", "validate", "publish", "target"};

    private final PrintStream out;
    private final boolean terminal;
    private boolean drawn;

    ProgressDisplay(PrintStream out, boolean terminal) {
        this.out = out;
        this.terminal = terminal;
    }

    static ProgressDisplay forStdout() {
        return new ProgressDisplay(System.out, stdoutIsTerminal());
    }

    /** Whether cursor movement would reach a person: a console (stdin and stdout a terminal) that is not "dumb". */
    static boolean stdoutIsTerminal() {
        return System.console() != null && System.getenv("TERM") != null && !"dumb".equals(System.getenv("TERM"));
    }

    @Override
    public void changed(RunView run) {
        if (!terminal) {
            out.println(LocalTime.now().format(DateTimeFormatter.ofPattern("HH:mm:ss")) + " " + run.status() + "  "
                    + partitions(run) + "  " + String.format("%,d", run.progressRows()) + " / "
                    + String.format("%,d", run.sourceCount() == null ? 0 : run.sourceCount()) + " rows");
            return;
        }
        if (drawn) {
            out.print("\033[" + STAGES.length + "A");
        }
        int reached = stage(run.status());
        for (int i = 0; i < STAGES.length; i++) {
            double done = i < reached ? 1 : i > reached ? 0 : fraction(run, i);
            String detail = i == 0 ? partitions(run) + "  " + String.format("%,d", run.progressRows()) + " rows"
                    : i == reached ? run.status().name() : i < reached ? "done" : "";
            out.print("\r\033[K" + String.format("%-9s", STAGES[i]) + bar(done) + "  " + detail + "\n");
        }
        out.flush();
        drawn = true;
    }

    @Override
    public void noWorker(RunView run, Duration waited) {
        long waiting = run.dispatches().stream().filter(d -> d.status() == DispatchStatus.PENDING).count();
        out.println("No worker has taken run " + run.runId() + "'s " + waiting + " waiting step(s) in "
                + Durations.format(waited.truncatedTo(ChronoUnit.SECONDS)) + ": is a 'loadgate worker' leasing from"
                + " this ledger, with a free thread? Still waiting; loadgate monitor lists the run.");
        // The bars go on below the line rather than over it.
        drawn = false;
    }

    private static String partitions(RunView run) {
        long expected = run.expectedPartitionCount() == null ? 0 : run.expectedPartitionCount();
        return run.successPartitionCount() + "/" + expected + " partitions";
    }

    // Rows by progressRows, which counts the rows read of partitions not yet reported: a partition reports its chunks
    // only when it is completely written, so extractedCount alone would sit at 0 through a large partition.
    private static double fraction(RunView run, int stage) {
        if (stage == 0 && run.sourceCount() != null && run.sourceCount() > 0) {
            return Math.min(1.0, (double) run.progressRows() / run.sourceCount());
        }
        return run.status().isTerminal() ? 1 : 0.5;
    }

    /** Which stage a status belongs to; a failed run stays at the stage it failed in. */
    private static int stage(RunStatus status) {
        return switch (status) {
            case CREATED, EXTRACTING, FAILED_MANIFEST, FAILED_EXTRACT, FAILED_SNAPSHOT_EXPIRED, TIMED_OUT,
                    CANCELLED -> 0;
            case EXTRACTED_VALIDATED, STAGE_VALIDATING, FAILED_STAGE_VALIDATION -> 1;
            case STAGING_VALIDATED, PUBLISHING, PUBLISH_UNKNOWN, FAILED_PUBLISH -> 2;
            case PUBLISHED, FAILED_TARGET_VALIDATION -> 3;
            case SUCCESS -> STAGES.length;
        };
    }

    private static String bar(double done) {
        int filled = (int) Math.round(done * WIDTH);
        return "[" + "#".repeat(filled) + "-".repeat(WIDTH - filled) + "] " + String.format("%3d%%", (int) (done * 100));
    }
}

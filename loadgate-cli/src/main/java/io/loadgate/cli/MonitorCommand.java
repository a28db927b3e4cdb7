package io.loadgate.cli;

import io.loadgate.api.OperatorApi.MonitorSummary;
import io.loadgate.worker.ledger.LedgerCallException;
import io.loadgate.worker.ledger.LedgerClient;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "monitor", mixinStandardHelpOptions = true,
        description = {"Shows what needs an operator (publish-unknown runs, dead dispatches, failed runs of the last "
                + "24 hours, each with the command to run) and the active runs, redrawn in place every interval.",
                "When stdout is not a terminal, or with --once, prints one snapshot and exits. Reads only: uses the "
                        + "viewer token, or the worker token when the token file has no viewer line."},
        footer = "Exit codes (one snapshot): 0 shown, 1 the ledger refused, 2 bad input, 3 the ledger is unreachable.")
final class MonitorCommand implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(MonitorCommand.class);
    private static final String HOME_AND_CLEAR = "\033[H\033[2J";
    private static final String HIDE_CURSOR = "\033[?25l";
    private static final String SHOW_CURSOR = "\033[0m\033[?25h";
    /** Entries a live screen shows; a snapshot shows all. Enough to see the worst at once on a 50-line terminal. */
    private static final int LIVE_ATTENTION = 5;
    private static final int LIVE_ACTIVE = 12;

    @Spec
    CommandSpec spec;

    @Mixin
    LedgerOptions ledger;

    @Option(names = "--interval", paramLabel = "SECONDS", defaultValue = "5",
            description = "seconds between redraws, 1..3600 (default: ${DEFAULT-VALUE})")
    int interval;

    @Option(names = "--once", description = "print one snapshot and exit, even on a terminal")
    boolean once;

    @Option(names = "--width", paramLabel = "N", description = "the terminal's width in columns, 60..300 (default:"
            + " $COLUMNS when set, else 80; narrower values count as 60)")
    Integer width;

    private final Object drawing = new Object();
    private final CountDownLatch stop = new CountDownLatch(1);
    private boolean stopped;

    @Override
    public void run() {
        if (interval < 1 || interval > 3600) {
            throw new CliException("--interval must be between 1 and 3600 seconds, got " + interval,
                    LedgerOptions.EXIT_USAGE);
        }
        if (width != null && width < 1) {
            throw new CliException("--width must be a number of columns, got " + width, LedgerOptions.EXIT_USAGE);
        }
        int columns = width(width, System.getenv("COLUMNS"));
        LedgerClient client = ledger.client(LedgerOptions.Role.READER);
        PrintWriter out = spec.commandLine().getOut();
        if (once || !ProgressDisplay.stdoutIsTerminal()) {
            snapshot(client, out, columns);
        } else {
            live(client, out, columns);
        }
    }

    /**
     * The screen's width: {@code --width}, else {@code COLUMNS} (which shells set but export only sometimes; without
     * a subprocess or a terminal library it is all there is to ask), else 80. Clamped to what the layout handles;
     * a {@code COLUMNS} that is not a number is ignored. Read once: a resized terminal keeps the width it started with.
     */
    static int width(Integer option, String columnsVariable) {
        int wanted = MonitorScreen.DEFAULT_WIDTH;
        if (option != null) {
            wanted = option;
        } else if (columnsVariable != null && columnsVariable.strip().matches("\\d{1,6}")) {
            wanted = Integer.parseInt(columnsVariable.strip());
        }
        return Math.max(MonitorScreen.MIN_WIDTH, Math.min(MonitorScreen.MAX_WIDTH, wanted));
    }

    private void snapshot(LedgerClient client, PrintWriter out, int columns) {
        MonitorSummary summary = ledger.call(client, LedgerClient::monitorSummary);
        if (ledger.json) {
            out.println(LedgerOptions.toJson(summary.fields()));
        } else {
            var state = new MonitorScreen.State(ledger.ledgerUrl(), ZonedDateTime.now(),
                    MonitorScreen.Summary.from(summary.fields()), Instant.now(), null);
            MonitorScreen.render(state, MonitorScreen.Layout.snapshot(columns, commandLedger())).forEach(out::println);
        }
        out.flush();
    }

    /** Redraws until Ctrl-C; the JVM's shutdown hook gives the cursor back, since SIGINT never returns here. */
    private void live(LedgerClient client, PrintWriter out, int columns) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            synchronized (drawing) {
                stopped = true;
                out.print(SHOW_CURSOR);
                out.println();
                out.flush();
            }
            stop.countDown();
        }, "monitor-restore-terminal"));
        var layout = new MonitorScreen.Layout(columns, true, LIVE_ATTENTION, LIVE_ACTIVE, commandLedger(),
                "every " + interval + "s; Ctrl-C quits; all entries: loadgate monitor --once");
        MonitorScreen.Summary last = null;
        Instant lastAt = null;
        synchronized (drawing) {
            out.print(HIDE_CURSOR);
        }
        while (stop.getCount() > 0) {
            String problem = null;
            // One bad pass (the ledger down, a surprise in its answer) must not end the watch: show it and go on.
            try {
                last = MonitorScreen.Summary.from(client.monitorSummary().fields());
                lastAt = Instant.now();
            } catch (LedgerCallException e) {
                problem = problem(e);
            } catch (RuntimeException e) {
                LOG.debug("monitor pass failed", e);
                problem = CliErrors.oneLine(e);
            }
            List<String> lines = MonitorScreen.render(
                    new MonitorScreen.State(ledger.ledgerUrl(), ZonedDateTime.now(), last, lastAt, problem), layout);
            synchronized (drawing) {
                if (stopped) {
                    return;
                }
                out.print(HOME_AND_CLEAR);
                lines.forEach(out::println);
                out.flush();
            }
            try {
                stop.await(interval, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private String problem(LedgerCallException e) {
        if (e.isUnreachable()) {
            return "UNREACHABLE (" + e.ledgerMessage() + ")";
        }
        if (e.status() == 503) {
            return "its DATABASE IS DOWN (503 " + e.code() + ")";
        }
        return "refused: " + ledger.explain(e).getMessage();
    }

    /** The commands shown name the ledger only when it is not the default one. */
    private String commandLedger() {
        return ledger.ledgerGiven() && !LedgerOptions.DEFAULT_LEDGER.equals(ledger.ledgerUrl()) ? ledger.ledgerUrl()
                : null;
    }
}

package io.loadgate.cli;

import io.loadgate.api.OperatorApi.MonitorSummary;
import io.loadgate.worker.ledger.LedgerClient;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "monitor", mixinStandardHelpOptions = true,
        description = {"Shows what needs an operator (publish-unknown runs, dead dispatches, failed runs of the last "
                + "24 hours, each with the command to run) and the active runs, redrawn in place every interval.",
                "On a terminal: Up/Down selects an entry or a run; Enter shows the run in detail (Esc: back); r resolves "
                        + "it (PUBLISH_UNKNOWN), s resends its dead dispatch, c cancels it, each with a confirmation "
                        + "(and a reason); l loads a failed key (or, stale data, a key typed) again: confirmed, it starts "
                        + "'loadgate load' of the job spec the ledger keeps with the run, in the background with this "
                        + "environment and the token file's worker token, spec and log under $LOADGATE_HOME/monitor/ "
                        + "(declined, its command is printed on quit); g refreshes; q quits. Acting needs the operator "
                        + "token in the token file.",
                "When stdout is not a terminal, or with --once, prints one snapshot and exits. Reads only: uses the "
                        + "viewer token, or the worker token when the token file has no viewer line."},
        footer = "Exit codes (one snapshot): 0 shown, 1 the ledger refused, 2 bad input, 3 the ledger is unreachable.")
final class MonitorCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Mixin
    LedgerOptions ledger;

    @Option(names = "--interval", paramLabel = "SECONDS", defaultValue = "5",
            description = "seconds between redraws, 1..3600 (default: ${DEFAULT-VALUE})")
    int interval;

    @Option(names = "--once", description = "print one snapshot and exit, even on a terminal")
    boolean once;

    @Option(names = "--width", paramLabel = "N", description = "a snapshot's width in columns, 60..300 (default:"
            + " $COLUMNS when set, else 80; narrower values count as 60); a live monitor follows the terminal's size")
    Integer width;

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
            MonitorTerminal.Quit quit = new MonitorTerminal(ledger, client,
                    () -> ledger.client(LedgerOptions.Role.OPERATOR), Duration.ofSeconds(interval), commandLedger())
                    .run();
            if (!quit.started().isEmpty()) {
                out.println("Loads started from the monitor (one still running goes on; its log says how it ended):");
                quit.started().forEach(line -> out.println("  " + line));
            }
            if (!quit.declined().isEmpty()) {
                out.println("Loads not started from the monitor; run them where the job file is, its path for <JOB.yaml>:");
                quit.declined().forEach(command -> out.println("  " + command));
            }
            out.flush();
        }
    }

    /**
     * The screen's width: {@code --width}, else {@code COLUMNS} (which shells set but export only sometimes; without
     * a subprocess or a terminal library it is all there is to ask), else 80. Clamped to what the layout handles;
     * a {@code COLUMNS} that is not a number is ignored. For a snapshot only: the live monitor asks the terminal.
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
        ledger.print(out, summary.fields(), screen -> {
            var state = new MonitorScreen.State(ledger.ledgerUrl(), ZonedDateTime.now(),
                    MonitorScreen.Summary.from(summary.fields()), Instant.now(), null);
            MonitorScreen.render(state, MonitorScreen.Layout.snapshot(columns, commandLedger()))
                    .forEach(screen::println);
        });
    }

    /** The commands shown name the ledger only when it is not the default one. */
    private String commandLedger() {
        return ledger.ledgerGiven() && !LedgerOptions.DEFAULT_LEDGER.equals(ledger.ledgerUrl()) ? ledger.ledgerUrl()
                : null;
    }
}

package io.loadgate.cli;

import static java.util.Objects.requireNonNull;

import com.googlecode.lanterna.SGR;
import com.googlecode.lanterna.TerminalSize;
import com.googlecode.lanterna.TextColor;
import com.googlecode.lanterna.graphics.TextGraphics;
import com.googlecode.lanterna.input.KeyStroke;
import com.googlecode.lanterna.input.KeyType;
import com.googlecode.lanterna.screen.Screen;
import com.googlecode.lanterna.terminal.DefaultTerminalFactory;
import io.loadgate.api.OperatorApi.Cancel;
import io.loadgate.api.OperatorApi.Resent;
import io.loadgate.api.OperatorApi.Resolution;
import io.loadgate.api.OperatorApi.Resolve;
import io.loadgate.api.RunApi.RunChange;
import io.loadgate.api.RunId;
import io.loadgate.worker.ledger.LedgerCallException;
import io.loadgate.worker.ledger.LedgerClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live {@code loadgate monitor} on a terminal: the {@link MonitorScreen} laid out at the terminal's own size
 * (followed on resize), a selection over the attention entries and active runs, and the operator's actions on the
 * selected one (resolve, resend, cancel), each confirmed, through the same ledger calls as the commands.
 */
final class MonitorTerminal {
    private static final Logger LOG = LoggerFactory.getLogger(MonitorTerminal.class);
    static final String KEYS = "Up/Down select  r resolve  s resend  c cancel  g refresh  q quit";

    private enum Action { RESOLVE, RESEND, CANCEL }

    /** Where a started action is: choosing the outcome (resolve only), typing the reason, confirming. */
    private enum Step { NONE, OUTCOME, REASON, CONFIRM }

    private final LedgerOptions ledger;
    private final LedgerClient reader;
    private final Supplier<LedgerClient> operator;
    private final Duration interval;
    private final String commandLedger;

    private MonitorScreen.Summary summary;
    private Instant summaryAt;
    private String problem;
    private MonitorScreen.Rendered rendered;
    private int selected;
    private int top;
    private String message = "";
    private Step step = Step.NONE;
    private Action action;
    private MonitorScreen.Target target;
    private Resolution resolution;
    private final StringBuilder reason = new StringBuilder();
    private LedgerClient operatorClient;

    MonitorTerminal(LedgerOptions ledger, LedgerClient reader, Supplier<LedgerClient> operator, Duration interval,
                    String commandLedger) {
        this.ledger = requireNonNull(ledger, "ledger is null");
        this.reader = requireNonNull(reader, "reader is null");
        this.operator = requireNonNull(operator, "operator is null");
        this.interval = requireNonNull(interval, "interval is null");
        this.commandLedger = commandLedger;
    }

    /** Until {@code q}, or Ctrl-C (Lanterna exits the JVM on it) or a signal: the hook gives the terminal back then. */
    void run() {
        try (Screen screen = new DefaultTerminalFactory().setForceTextTerminal(true).createScreen()) {
            Thread restore = new Thread(() -> {
                try {
                    screen.stopScreen();
                } catch (IOException | RuntimeException e) {
                    // the JVM is going; nothing left to tell
                }
            }, "monitor-restore-terminal");
            Runtime.getRuntime().addShutdownHook(restore);
            try {
                watch(screen);
            } finally {
                Runtime.getRuntime().removeShutdownHook(restore);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void watch(Screen screen) throws IOException, InterruptedException {
        screen.startScreen();
        screen.setCursorPosition(null);
        refresh();
        draw(screen);
        Instant next = Instant.now().plus(interval);
        while (true) {
            KeyStroke key = screen.pollInput();
            if (key != null) {
                if (!handle(key)) {
                    return;
                }
                if (Instant.now().isAfter(next) && step == Step.NONE) {
                    refresh();
                    next = Instant.now().plus(interval);
                }
                draw(screen);
            } else if (screen.doResizeIfNecessary() != null) {
                draw(screen);
            } else if (Instant.now().isAfter(next) && step == Step.NONE) {
                // No refresh while a prompt is open: the entry it acts on must not move under it.
                refresh();
                next = Instant.now().plus(interval);
                draw(screen);
            } else {
                Thread.sleep(50);
            }
        }
    }

    private void refresh() {
        // One bad pass (the ledger down, a surprise in its answer) must not end the watch: show it and go on.
        try {
            summary = MonitorScreen.Summary.from(reader.monitorSummary().fields());
            summaryAt = Instant.now();
            problem = null;
        } catch (LedgerCallException e) {
            problem = problem(e);
        } catch (RuntimeException e) {
            LOG.debug("monitor pass failed", e);
            problem = CliErrors.oneLine(e);
        }
    }

    /** False to quit. */
    private boolean handle(KeyStroke key) {
        if (key.getKeyType() == KeyType.EOF) {
            return false;
        }
        switch (step) {
            case NONE -> {
                return browse(key);
            }
            case OUTCOME -> outcome(key);
            case REASON -> reason(key);
            case CONFIRM -> confirm(key);
        }
        return true;
    }

    private boolean browse(KeyStroke key) {
        List<MonitorScreen.Target> targets = rendered == null ? List.of() : rendered.targets();
        switch (key.getKeyType()) {
            case ArrowUp -> {
                selected = Math.max(0, selected - 1);
                message = "";
            }
            case ArrowDown -> {
                selected = Math.min(Math.max(0, targets.size() - 1), selected + 1);
                message = "";
            }
            case Character -> {
                char c = key.getCharacter();
                if (c == 'q') {
                    return false;
                }
                if (c == 'g') {
                    refresh();
                    message = "";
                } else if (c == 'r' || c == 's' || c == 'c') {
                    start(c == 'r' ? Action.RESOLVE : c == 's' ? Action.RESEND : Action.CANCEL, targets);
                }
            }
            default -> {
                // other keys do nothing
            }
        }
        return true;
    }

    private void start(Action wanted, List<MonitorScreen.Target> targets) {
        if (targets.isEmpty()) {
            message = "nothing selected";
            return;
        }
        MonitorScreen.Target t = targets.get(Math.min(selected, targets.size() - 1));
        MonitorScreen.Attention a = t.attention();
        switch (wanted) {
            case RESOLVE -> {
                if (a == null || a.kind() != MonitorScreen.Kind.PUBLISH_UNKNOWN) {
                    message = "resolve is for a PUBLISH_UNKNOWN run; this is " + t.status();
                    return;
                }
                step = Step.OUTCOME;
            }
            case RESEND -> {
                if (a == null || a.kind() != MonitorScreen.Kind.DEAD_DISPATCH || a.dispatchId() == null) {
                    message = "resend is for a dead dispatch";
                    return;
                }
                step = Step.CONFIRM;
            }
            case CANCEL -> step = Step.REASON;
        }
        action = wanted;
        target = t;
        resolution = null;
        reason.setLength(0);
        message = "";
    }

    private void outcome(KeyStroke key) {
        if (key.getKeyType() == KeyType.Escape) {
            back("not resolved");
        } else if (key.getKeyType() == KeyType.Character && (key.getCharacter() == 'p' || key.getCharacter() == 'f')) {
            resolution = key.getCharacter() == 'p' ? Resolution.PUBLISHED : Resolution.FAILED_PUBLISH;
            step = Step.REASON;
        }
    }

    private void reason(KeyStroke key) {
        switch (key.getKeyType()) {
            case Escape -> back("not done");
            case Backspace -> reason.setLength(Math.max(0, reason.length() - 1));
            case Character -> reason.append(key.getCharacter());
            case Enter -> {
                int min = action == Action.RESOLVE ? Resolve.MIN_REASON : Cancel.MIN_REASON;
                if (reason.toString().strip().length() < min) {
                    message = "the reason must be at least " + min + " characters";
                } else {
                    message = "";
                    step = Step.CONFIRM;
                }
            }
            default -> {
                // other keys do nothing
            }
        }
    }

    private void confirm(KeyStroke key) {
        if (key.getKeyType() == KeyType.Character && key.getCharacter() == 'y') {
            message = act();
            step = Step.NONE;
            refresh();
        } else if (key.getKeyType() == KeyType.Character || key.getKeyType() == KeyType.Escape
                || key.getKeyType() == KeyType.Enter) {
            back("not done");
        }
    }

    private void back(String why) {
        step = Step.NONE;
        message = why;
    }

    /** The action's result line, as the matching command prints it, or why it did not happen. */
    private String act() {
        RunId run = RunId.of(target.runId());
        String why = reason.toString().strip();
        try {
            return switch (action) {
                case RESOLVE -> {
                    RunChange change = call(c -> c.resolvePublishUnknown(run, new Resolve(resolution, why)));
                    yield ResolveCommand.result(run, change);
                }
                case RESEND -> {
                    Resent resent = call(c -> c.resendDispatch(run, UUID.fromString(target.attention().dispatchId())));
                    yield DispatchCommand.Resend.result(run, resent);
                }
                case CANCEL -> {
                    RunChange change = call(c -> c.cancelRun(run, new Cancel(why)));
                    yield CancelCommand.result(run, change);
                }
            };
        } catch (CliException e) {
            return "not done: " + e.getMessage();
        }
    }

    private <T> T call(Function<LedgerClient, T> call) {
        if (operatorClient == null) {
            // Only acting needs the operator token: a viewer watches without one.
            operatorClient = operator.get();
        }
        return ledger.call(operatorClient, call);
    }

    private void draw(Screen screen) throws IOException {
        TerminalSize size = screen.getTerminalSize();
        int width = Math.max(MonitorScreen.MIN_WIDTH, Math.min(MonitorScreen.MAX_WIDTH, size.getColumns()));
        rendered = MonitorScreen.renderTargets(new MonitorScreen.State(ledger.ledgerUrl(), ZonedDateTime.now(),
                summary, summaryAt, problem), new MonitorScreen.Layout(width, false, 0, 0, commandLedger, null));
        List<String> lines = rendered.lines();
        List<MonitorScreen.Target> targets = rendered.targets();
        selected = Math.max(0, Math.min(selected, targets.size() - 1));
        // The last two rows: the prompt or the result line, then the keys.
        int body = Math.max(1, size.getRows() - 2);
        int from = -1;
        int to = -1;
        if (!targets.isEmpty()) {
            from = targets.get(selected).line();
            to = selected + 1 < targets.size() ? targets.get(selected + 1).line() : lines.size();
            for (int i = from; i < to; i++) {
                if (lines.get(i).isBlank()) {
                    to = i;
                    break;
                }
            }
            if (from < top || to > top + body) {
                top = Math.max(0, Math.min(from, to - body));
            }
        }
        top = Math.max(0, Math.min(top, Math.max(0, lines.size() - body)));
        screen.clear();
        TextGraphics g = screen.newTextGraphics();
        for (int row = 0; row < body && top + row < lines.size(); row++) {
            int i = top + row;
            String line = lines.get(i);
            g.setForegroundColor(line.startsWith("! ") ? TextColor.ANSI.RED
                    : line.startsWith("x ") ? TextColor.ANSI.YELLOW : TextColor.ANSI.DEFAULT);
            if (i >= from && i < to) {
                g.enableModifiers(SGR.REVERSE);
                g.putString(0, row, String.format("%-" + (width - 1) + "s", line));
                g.disableModifiers(SGR.REVERSE);
            } else {
                g.putString(0, row, line);
            }
        }
        g.setForegroundColor(TextColor.ANSI.DEFAULT);
        g.enableModifiers(SGR.BOLD);
        g.putString(0, size.getRows() - 2, Table.fit(prompt(), width - 1));
        g.disableModifiers(SGR.BOLD);
        g.putString(0, size.getRows() - 1, Table.fit(KEYS + "  (every " + interval.toSeconds() + "s)", width - 1));
        screen.refresh(Screen.RefreshType.COMPLETE);
    }

    private String prompt() {
        return switch (step) {
            case NONE -> message.isEmpty() ? selection() : message;
            case OUTCOME -> "Resolve run " + target.runId() + " as: p PUBLISHED, f FAILED_PUBLISH (Esc: back)";
            case REASON -> "Reason (Enter, Esc: back): " + reason;
            // The question first: a narrow screen cuts the line's end, never the y/n.
            case CONFIRM -> switch (action) {
                case RESOLVE -> "Resolve as " + resolution + "? y/n  run " + target.runId();
                case RESEND -> "Resend? y/n  dispatch " + target.attention().dispatchId() + " of run "
                        + target.runId();
                case CANCEL -> "Cancel? y/n  run " + target.runId();
            };
        };
    }

    /** Said in words too: the reverse video is lost on some terminals, and an action must not hit the wrong run. */
    private String selection() {
        if (rendered == null || rendered.targets().isEmpty()) {
            return "";
        }
        MonitorScreen.Target t = rendered.targets().get(selected);
        MonitorScreen.Attention a = t.attention();
        if (a == null) {
            return "selected: active run " + t.runId() + " (" + t.status() + ")";
        }
        // The run first: on a narrow screen the line is cut at its end.
        return "selected: " + a.kind() + " run " + t.runId() + (a.dispatchId() == null ? ""
                : " dispatch " + a.dispatchId());
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
}

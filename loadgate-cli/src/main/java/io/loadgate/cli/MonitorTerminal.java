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
import io.loadgate.server.config.ConfigLoader;
import io.loadgate.worker.execution.RunContexts;
import io.loadgate.worker.job.JobSpecException;
import io.loadgate.worker.ledger.LedgerCallException;
import io.loadgate.worker.ledger.LedgerClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live {@code loadgate monitor} on a terminal: the {@link MonitorScreen} laid out at the terminal's own size
 * (followed on resize), a selection over the attention entries and active runs, the selected run in detail (Enter),
 * and the operator's actions on it (resolve, resend, cancel), each confirmed, through the same ledger calls as the
 * commands. "Load again", confirmed, starts {@code loadgate load} of the job spec the ledger keeps with every run (see
 * {@link MonitorLoad}); declined, it leaves the command to run by hand.
 */
final class MonitorTerminal {
    private static final Logger LOG = LoggerFactory.getLogger(MonitorTerminal.class);
    static final String KEYS = "Up/Down select  Enter detail  r resolve  s resend  c cancel  l load again  g refresh"
            + "  q quit";
    static final String DETAIL_KEYS = "Up/Down scroll  Esc back  r resolve  s resend  c cancel  l load again"
            + "  g refresh  q quit";
    /** How many of a run's last events its detail shows. */
    static final int DETAIL_EVENTS = 15;

    private enum Action { RESOLVE, RESEND, CANCEL }

    /**
     * Where a started action is: choosing the outcome (resolve only), typing the reason, confirming; or, for a load
     * again, typing the business key (stale data names none) and confirming it with its command shown.
     */
    private enum Step { NONE, OUTCOME, REASON, CONFIRM, KEY, LOAD_AGAIN }

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
    /** The run shown in detail, null on the list. */
    private MonitorScreen.Target detailOf;
    private RunDetail detail;
    private String detailProblem;
    private int detailTop;
    /** The load commands declined, printed again once the terminal is given back, where they can be copied. */
    private final List<String> loadCommands = new ArrayList<>();
    /** The business key of the load again being confirmed. */
    private String loadKey;
    /** The loads started from here, polled at each refresh until each has ended and said so. */
    private final List<MonitorLoad> loads = new ArrayList<>();

    /** One line each: the commands to run by hand, and the loads started (which outlive the monitor). */
    record Quit(List<String> declined, List<String> started) {
        Quit {
            declined = List.copyOf(declined);
            started = List.copyOf(started);
        }
    }

    MonitorTerminal(LedgerOptions ledger, LedgerClient reader, Supplier<LedgerClient> operator, Duration interval,
                    String commandLedger) {
        this.ledger = requireNonNull(ledger, "ledger is null");
        this.reader = requireNonNull(reader, "reader is null");
        this.operator = requireNonNull(operator, "operator is null");
        this.interval = requireNonNull(interval, "interval is null");
        this.commandLedger = commandLedger;
    }

    /**
     * Until {@code q}, or Ctrl-C (Lanterna exits the JVM on it) or a signal: the hook gives the terminal back then.
     * Returns, for the caller to print, the load commands the operator declined and the loads started here.
     */
    Quit run() {
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
        return new Quit(loadCommands, loads.stream().map(MonitorLoad::started).toList());
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
        for (MonitorLoad load : loads) {
            String ended = load.endedOnce();
            if (ended != null) {
                message = ended;
            }
        }
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
        if (detailOf != null) {
            refreshDetail();
        }
    }

    private void refreshDetail() {
        try {
            detail = RunDetail.read(ledger, reader, RunId.of(detailOf.runId()), DETAIL_EVENTS);
            detailProblem = null;
        } catch (CliException e) {
            detailProblem = e.getMessage();
        } catch (RuntimeException e) {
            LOG.debug("reading the run failed", e);
            detailProblem = CliErrors.oneLine(e);
        }
    }

    /** False to quit. */
    private boolean handle(KeyStroke key) {
        if (key.getKeyType() == KeyType.EOF) {
            return false;
        }
        switch (step) {
            case NONE -> {
                return detailOf == null ? browse(key) : detail(key);
            }
            case OUTCOME -> outcome(key);
            case REASON -> reason(key);
            case CONFIRM -> confirm(key);
            case KEY -> loadKey(key);
            case LOAD_AGAIN -> confirmLoad(key);
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
            case Enter -> {
                if (targets.isEmpty()) {
                    message = "nothing selected";
                } else {
                    detailOf = targets.get(Math.min(selected, targets.size() - 1));
                    detail = null;
                    detailTop = 0;
                    message = "";
                    refreshDetail();
                }
            }
            case Character -> {
                return character(key.getCharacter(), targets.isEmpty() ? null
                        : targets.get(Math.min(selected, targets.size() - 1)));
            }
            default -> {
                // other keys do nothing
            }
        }
        return true;
    }

    /** The run in detail: scroll, back to the list, or act on the run shown. */
    private boolean detail(KeyStroke key) {
        switch (key.getKeyType()) {
            case Escape, Backspace -> {
                detailOf = null;
                detail = null;
                message = "";
            }
            case ArrowUp -> detailTop = Math.max(0, detailTop - 1);
            case ArrowDown -> detailTop++;
            case PageUp -> detailTop = Math.max(0, detailTop - 10);
            case PageDown -> detailTop += 10;
            case Character -> {
                return character(key.getCharacter(), detailOf);
            }
            default -> {
                // other keys do nothing
            }
        }
        return true;
    }

    /** A letter key on the list or in the detail, acting on {@code t} (null: nothing selected). False to quit. */
    private boolean character(char c, MonitorScreen.Target t) {
        switch (c) {
            case 'q' -> {
                return false;
            }
            case 'g' -> {
                refresh();
                message = "";
            }
            case 'r' -> start(Action.RESOLVE, t);
            case 's' -> start(Action.RESEND, t);
            case 'c' -> start(Action.CANCEL, t);
            case 'l' -> loadAgain(t);
            default -> {
                // other keys do nothing
            }
        }
        return true;
    }

    /**
     * The ledger's fix of a failed run or of stale data, a {@code loadgate run} of the job: asks for the key when the
     * entry names none (stale data), then for a confirmation.
     */
    private void loadAgain(MonitorScreen.Target t) {
        if (t == null) {
            message = "nothing selected";
            return;
        }
        MonitorScreen.Attention a = t.attention();
        if (a == null || a.fix() == null || !a.fix().startsWith("loadgate run ")) {
            message = "load again is for a failed run or stale data; this is " + t.status();
            return;
        }
        target = t;
        message = "";
        reason.setLength(0);
        if (a.kind() == MonitorScreen.Kind.STALE_DATA) {
            loadKey = null;
            step = Step.KEY;
        } else {
            loadKey = a.businessKey();
            step = Step.LOAD_AGAIN;
        }
    }

    /** The key typed goes where a reason does: one prompt is open at a time. */
    private void loadKey(KeyStroke key) {
        switch (key.getKeyType()) {
            case Escape -> back("not started");
            case Backspace -> reason.setLength(Math.max(0, reason.length() - 1));
            case Character -> reason.append(key.getCharacter());
            case Enter -> {
                if (reason.toString().isBlank()) {
                    message = "type the business key to load";
                } else {
                    loadKey = reason.toString().strip();
                    message = "";
                    step = Step.LOAD_AGAIN;
                }
            }
            default -> {
                // other keys do nothing
            }
        }
    }

    private void confirmLoad(KeyStroke key) {
        if (key.getKeyType() == KeyType.Character && key.getCharacter() == 'y') {
            message = startLoad();
            step = Step.NONE;
            refresh();
        } else if (key.getKeyType() == KeyType.Character || key.getKeyType() == KeyType.Escape
                || key.getKeyType() == KeyType.Enter) {
            // One line, never wrapped: the copy printed after the monitor ends must paste as it is.
            String command = MonitorScreen.commandLines(loadWords(), commandLedger, Integer.MAX_VALUE).get(0).strip();
            if (!loadCommands.contains(command)) {
                loadCommands.add(command);
            }
            back("not started");
        }
    }

    /** The command an operator would run by hand, the job file's path left to fill in. */
    private List<String> loadWords() {
        return List.of("loadgate", "run", "<" + target.attention().jobKey() + ".yaml>", "--business-key", loadKey);
    }

    /**
     * Starts the load of the job as the entry's run had it (a failure's own run; for stale data the job's last
     * successful run): its pid and log at once, its end at a later refresh.
     */
    private String startLoad() {
        MonitorScreen.Attention a = target.attention();
        try {
            // The operator's token: a viewer reads runs without their job spec.
            String yaml = RunContexts.jobSpecText(ledger.call(operator.get(), c -> c.getRun(RunId.of(a.runId()))));
            MonitorLoad load = MonitorLoad.start(ConfigLoader.home(System.getenv()).resolve("monitor"), a.jobKey(),
                    loadKey, yaml, List.of("--ledger", ledger.ledgerUrl(), "--token-file",
                            ledger.tokenFile().toAbsolutePath().toString()));
            loads.add(load);
            return load.started();
        } catch (CliException | JobSpecException e) {
            return "not started: " + e.getMessage();
        } catch (IOException | UncheckedIOException e) {
            return "not started: " + CliErrors.oneLine(e);
        }
    }

    private void start(Action wanted, MonitorScreen.Target t) {
        if (t == null) {
            message = "nothing selected";
            return;
        }
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
        List<MonitorScreen.Target> targets = rendered.targets();
        selected = Math.max(0, Math.min(selected, targets.size() - 1));
        // The last two rows: the prompt or the result line, then the keys.
        int body = Math.max(1, size.getRows() - 2);
        List<String> lines;
        int from = -1;
        int to = -1;
        int first;
        if (step == Step.LOAD_AGAIN || step == Step.KEY) {
            lines = loadAgainLines(width - 1);
            first = 0;
        } else if (detailOf != null) {
            lines = detailLines(width - 1);
            detailTop = Math.max(0, Math.min(detailTop, Math.max(0, lines.size() - body)));
            first = detailTop;
        } else {
            lines = rendered.lines();
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
            first = top;
        }
        screen.clear();
        TextGraphics g = screen.newTextGraphics();
        for (int row = 0; row < body && first + row < lines.size(); row++) {
            int i = first + row;
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
        String keys = detailOf != null && step != Step.LOAD_AGAIN && step != Step.KEY ? DETAIL_KEYS : KEYS;
        g.putString(0, size.getRows() - 1, Table.fit(keys + "  (every " + interval.toSeconds() + "s)", width - 1));
        screen.refresh(Screen.RefreshType.COMPLETE);
    }

    private List<String> detailLines(int columns) {
        List<String> lines = new ArrayList<>();
        lines.add(Table.fit("RUN DETAIL  " + detailOf.runId() + "  (Esc: back to the list)", columns));
        if (detailProblem != null) {
            lines.add(Table.fit("! " + detailProblem, columns));
        }
        lines.add("");
        if (detail != null) {
            detail.lines(columns).forEach(line -> lines.add(Table.fit(line, columns)));
        }
        return lines;
    }

    private List<String> loadAgainLines(int columns) {
        MonitorScreen.Attention a = target.attention();
        List<String> lines = new ArrayList<>();
        lines.add(Table.fit("LOAD AGAIN  " + a.jobKey() + " / " + (loadKey == null ? "?" : loadKey), columns));
        lines.add("  run " + a.runId() + "  (" + a.status() + ")");
        lines.add("");
        // Short lines: they fit the narrowest screen the monitor draws.
        lines.add("  y starts a load of this key with the job spec that");
        lines.add("  run had (the ledger keeps it), in the background,");
        lines.add("  its spec and log under $LOADGATE_HOME/monitor/.");
        if (loadKey != null) {
            lines.add("  n starts nothing: to run it yourself, where the job");
            lines.add("  file is, with its path in place of <" + a.jobKey() + ".yaml>:");
            lines.add("");
            lines.addAll(MonitorScreen.commandLines(loadWords(), commandLedger, columns));
            lines.add("");
            lines.add("  The monitor prints it again when it quits, to copy.");
        }
        return lines;
    }

    private String prompt() {
        return switch (step) {
            case NONE -> !message.isEmpty() ? message
                    : detailOf != null ? "detail of run " + detailOf.runId() : selection();
            case KEY -> "Business key to load for " + target.attention().jobKey() + " (Enter, Esc: back): " + reason;
            // The question first: a narrow screen cuts the line's end, never the y/n.
            case LOAD_AGAIN -> "Start a load of " + target.attention().jobKey() + " / " + loadKey + "? y/n";
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

package io.loadgate.cli;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * One screen of {@code loadgate monitor}, laid out for a terminal of a given width: the header, the counts, what
 * needs an operator (with the exact command to run), then the active runs. Pure: the command fetches, this only lays
 * out. A wider terminal gives long keys, reasons and errors more room; prose wraps; the commands are never cut.
 */
final class MonitorScreen {
    static final int MIN_WIDTH = 60;
    static final int MAX_WIDTH = 300;
    static final int DEFAULT_WIDTH = 80;

    private static final String RED = "\033[1;31m";
    private static final String YELLOW = "\033[33m";
    private static final String GREEN = "\033[32m";
    private static final String BOLD = "\033[1m";
    private static final String RESET = "\033[0m";
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss xxx");

    /** What needs an operator, as the ledger's {@code attention} entries say. */
    enum Kind {
        PUBLISH_UNKNOWN,
        DEAD_DISPATCH,
        NO_WORKER,
        STUCK_RUN,
        FAILED_RUN,
        STALE_DATA,
        /** Last: a failure a later SUCCESS of its key loaded over needs nobody, it is only on record. */
        SUPERSEDED_FAILURE
    }

    record Attention(Kind kind, String runId, String jobKey, String businessKey, String status, Instant since,
                     String reason, String dispatchId, String dispatchType, String errorStage, String errorCode,
                     String errorMessage, String fix) {
        Attention {
            requireNonNull(kind, "kind is null");
            requireNonNull(runId, "runId is null");
        }
    }

    record ActiveRun(String runId, String jobKey, String businessKey, String status, long partitionsDone,
                     Long partitions, long rowsExtracted, Long rows, Instant startedAt) {
        ActiveRun {
            requireNonNull(runId, "runId is null");
        }
    }

    /** The ledger's {@code GET /v1/monitor/summary}, typed. */
    record Summary(Map<String, Long> runsByStatus, Map<String, Long> dispatchesByStatus, List<Attention> attention,
                   List<ActiveRun> activeRuns) {
        Summary {
            // Kept in the ledger's order (by name), which Map.copyOf would lose.
            runsByStatus = Collections.unmodifiableMap(new LinkedHashMap<>(runsByStatus));
            dispatchesByStatus = Collections.unmodifiableMap(new LinkedHashMap<>(dispatchesByStatus));
            attention = List.copyOf(attention);
            activeRuns = List.copyOf(activeRuns);
        }

        static Summary from(Map<String, Object> json) {
            List<Attention> attention = new ArrayList<>();
            for (Map<String, Object> a : objects(json.get("attention"))) {
                attention.add(new Attention(kind(a), text(a, "runId"), text(a, "jobKey"), text(a, "businessKey"),
                        text(a, "status"), instant(a, "since"), text(a, "reason"), text(a, "dispatchId"),
                        text(a, "dispatchType"), text(a, "errorStage"), text(a, "errorCode"),
                        text(a, "errorMessage"), text(a, "fix")));
            }
            List<ActiveRun> active = new ArrayList<>();
            for (Map<String, Object> r : objects(json.get("activeRuns"))) {
                Long done = number(r, "successPartitionCount");
                Long extracted = number(r, r.containsKey("progressRows") ? "progressRows" : "extractedCount");
                active.add(new ActiveRun(text(r, "runId"), text(r, "jobKey"), text(r, "businessKey"),
                        text(r, "status"), done == null ? 0 : done, number(r, "expectedPartitionCount"),
                        extracted == null ? 0 : extracted, number(r, "sourceCount"), instant(r, "startedAt")));
            }
            return new Summary(counts(json.get("runsByStatus")), counts(json.get("dispatchesByStatus")), attention,
                    active);
        }

        /** A ledger from before {@code kind} existed still names a publish-unknown run by its status. */
        private static Kind kind(Map<String, Object> a) {
            String kind = text(a, "kind");
            if (kind != null) {
                try {
                    return Kind.valueOf(kind);
                } catch (IllegalArgumentException e) {
                    // a kind this client does not know: shown as a failed run, with the ledger's reason
                }
            }
            if ("PUBLISH_UNKNOWN".equals(text(a, "status"))) {
                return Kind.PUBLISH_UNKNOWN;
            }
            return text(a, "dispatchId") != null ? Kind.DEAD_DISPATCH : Kind.FAILED_RUN;
        }
    }

    /** What the command knows when it draws: the last summary it got, and what went wrong since, if anything. */
    record State(String ledgerUrl, ZonedDateTime now, Summary summary, Instant summaryAt, String problem) {
        State {
            requireNonNull(ledgerUrl, "ledgerUrl is null");
            requireNonNull(now, "now is null");
        }
    }

    /**
     * How to draw: the terminal's width in columns, colours on a terminal; entry limits keep a live screen to one
     * page (0 means no limit).
     */
    record Layout(int width, boolean color, int maxAttention, int maxActive, String commandLedger, String footer) {
        Layout {
            if (width < MIN_WIDTH || width > MAX_WIDTH) {
                throw new IllegalArgumentException("width must be between " + MIN_WIDTH + " and " + MAX_WIDTH
                        + ", got " + width);
            }
        }

        static Layout snapshot(int width, String commandLedger) {
            return new Layout(width, false, 0, 0, commandLedger, null);
        }

        /** Columns a line may fill: one less than the width, since some terminals wrap a line that fills the last. */
        int columns() {
            return width - 1;
        }
    }

    /** What a live monitor lets the operator select: an attention entry or an active run, and its first line. */
    record Target(int line, Attention attention, ActiveRun run) {
        Target {
            if ((attention == null) == (run == null)) {
                throw new IllegalArgumentException("a target is an attention entry or a run");
            }
        }

        String runId() {
            return attention != null ? attention.runId() : run.runId();
        }

        String status() {
            return attention != null ? attention.status() : run.status();
        }
    }

    /** A screen's lines with the selectable entries on them, in the order they are drawn. */
    record Rendered(List<String> lines, List<Target> targets) {
        Rendered {
            lines = List.copyOf(lines);
            targets = List.copyOf(targets);
        }
    }

    private final Layout layout;
    private final int columns;
    private final List<String> lines = new ArrayList<>();
    private final List<Target> targets = new ArrayList<>();

    private MonitorScreen(Layout layout) {
        this.layout = requireNonNull(layout, "layout is null");
        this.columns = layout.columns();
    }

    static List<String> render(State state, Layout layout) {
        return renderTargets(state, layout).lines();
    }

    static Rendered renderTargets(State state, Layout layout) {
        MonitorScreen screen = new MonitorScreen(layout);
        screen.draw(state);
        return new Rendered(screen.lines, screen.targets);
    }

    private void draw(State state) {
        header(state);
        Summary summary = state.summary();
        if (summary == null) {
            return;
        }
        Instant now = state.now().toInstant();
        add("");
        items("runs       ", ordered(summary.runsByStatus()));
        items("dispatches ", ordered(summary.dispatchesByStatus()));
        add("");
        attention(summary.attention(), now);
        add("");
        active(summary.activeRuns(), now);
        if (layout.footer() != null) {
            add("");
            wrapped(layout.footer());
        }
    }

    private void header(State state) {
        add(Table.fit("LOADGATE MONITOR  " + state.now().format(CLOCK) + "  " + state.ledgerUrl(), columns));
        if (state.problem() == null) {
            add("ledger: reachable", GREEN);
            return;
        }
        add(Table.fit("ledger: " + state.problem(), columns), RED);
        if (state.summary() != null && state.summaryAt() != null) {
            wrapped("the figures below are from " + state.summaryAt().atZone(state.now().getZone()).format(CLOCK)
                    + " (" + age(Duration.between(state.summaryAt(), state.now().toInstant())) + " ago)", YELLOW);
        }
    }

    /** A label and "NAME n" items, wrapped under the label when they do not fit on one line. */
    private void items(String label, List<String> items) {
        String indent = " ".repeat(label.length());
        StringBuilder line = new StringBuilder(label);
        if (items.isEmpty()) {
            line.append("none");
        }
        boolean first = true;
        for (String item : items) {
            if (!first && line.length() + 2 + item.length() > columns) {
                add(line.toString());
                line = new StringBuilder(indent);
                first = true;
            }
            line.append(first ? "" : "  ").append(item);
            first = false;
        }
        add(line.toString());
    }

    private void attention(List<Attention> all, Instant now) {
        // The ledger orders by age; an operator needs the blocking kinds first: a publish-unknown run blocks its key
        // until someone resolves it, a dead dispatch stalls a run, a failed run only wants a new run.
        List<Attention> entries = all.stream().sorted(Comparator.comparing(Attention::kind)).toList();
        if (entries.isEmpty()) {
            add("ATTENTION: nothing needs an operator", GREEN);
            return;
        }
        long publishUnknown = entries.stream().filter(a -> a.kind() == Kind.PUBLISH_UNKNOWN).count();
        long dead = entries.stream().filter(a -> a.kind() == Kind.DEAD_DISPATCH).count();
        long noWorker = entries.stream().filter(a -> a.kind() == Kind.NO_WORKER).count();
        long stuck = entries.stream().filter(a -> a.kind() == Kind.STUCK_RUN).count();
        long stale = entries.stream().filter(a -> a.kind() == Kind.STALE_DATA).count();
        long superseded = entries.stream().filter(a -> a.kind() == Kind.SUPERSEDED_FAILURE).count();
        long failed = entries.size() - publishUnknown - dead - noWorker - stuck - stale - superseded;
        if (superseded == entries.size()) {
            add("ATTENTION: nothing needs an operator", GREEN);
        } else {
            wrapped("ATTENTION: " + publishUnknown + " publish unknown, " + dead + " dead dispatches, "
                    + (noWorker == 0 ? "" : noWorker + " without a worker, ") + (stuck == 0 ? "" : stuck + " stuck, ") + failed
                    + " failed in 24 h" + (stale == 0 ? "" : ", " + stale + " job(s) with stale data"), RED);
        }
        int shown = layout.maxAttention() > 0 ? Math.min(layout.maxAttention(), entries.size()) : entries.size();
        for (Attention a : entries.subList(0, shown)) {
            add("");
            targets.add(new Target(lines.size(), a, null));
            switch (a.kind()) {
                case PUBLISH_UNKNOWN -> publishUnknown(a, now);
                case DEAD_DISPATCH -> deadDispatch(a, now);
                case NO_WORKER -> noWorker(a, now);
                case STUCK_RUN -> stuck(a, now);
                case FAILED_RUN -> failedRun(a, now);
                case STALE_DATA -> staleData(a, now);
                case SUPERSEDED_FAILURE -> add(Table.fit("- " + a.status() + " " + since(a, now) + " ago  " + key(a)
                        + "  loaded over since: nothing to do", columns));
            }
        }
        if (shown < entries.size()) {
            add("");
            wrapped("... and " + (entries.size() - shown) + " more: loadgate monitor --once | less", YELLOW);
        }
    }

    // Each entry's first line puts the age before the job and key: a long key is cut, never the age.
    private void publishUnknown(Attention a, Instant now) {
        add(Table.fit("! PUBLISH_UNKNOWN  for " + since(a, now) + "  " + key(a), columns), RED);
        add("  run " + a.runId());
        wrapped("  The publish outcome is unknown; the run blocks its key until resolved.");
        wrapped("  Look in the target for a snapshot whose summary has loadgate.run-id = run.");
        add("  Found:");
        command(List.of("loadgate", "resolve", a.runId(), "--as PUBLISHED",
                "--reason \"snapshot <id> carries the run id\""));
        wrapped("  Not there, and the publishing process is gone:");
        command(List.of("loadgate", "resolve", a.runId(), "--as FAILED_PUBLISH",
                "--reason \"no snapshot carries the run id\""));
    }

    private void deadDispatch(Attention a, Instant now) {
        String type = a.dispatchType() == null ? "" : a.dispatchType() + "  ";
        add(Table.fit("! DEAD DISPATCH  for " + since(a, now) + "  " + type + key(a), columns), RED);
        add("  run " + a.runId() + "  (" + a.status() + ")");
        if (a.dispatchId() == null) {
            // An older ledger names the dispatch only in its reason text.
            add(Table.fit("  " + a.reason(), columns));
            command(List.of("loadgate", "runs", "show", a.runId()));
            return;
        }
        add("  dispatch " + a.dispatchId());
        add(Table.fit("  last error: " + (a.errorMessage() == null ? "-" : oneLine(a.errorMessage())), columns));
        add("  Fix the receiver, then deliver it again:");
        command(List.of("loadgate", "dispatch", "resend", a.runId(), a.dispatchId()));
        // Before publishing, a stalled run can also be given up; from PUBLISHED on the ledger refuses a cancel.
        if (BEFORE_PUBLISHING.contains(a.status())) {
            add("  Or give the run up, which frees its key:");
            command(List.of("loadgate", "cancel", a.runId(), "--reason \"<why>\""));
        }
    }

    private void noWorker(Attention a, Instant now) {
        add(Table.fit("! NO WORKER  for " + since(a, now) + "  " + key(a), columns), RED);
        add("  run " + a.runId() + "  (" + a.status() + ")");
        add(Table.fit("  " + a.reason() + ": is a worker leasing from this ledger, with a free thread?", columns));
        add("  Start one (a worker token):");
        command(List.of("loadgate", "worker", "--token-file F"));
        if (BEFORE_PUBLISHING.contains(a.status())) {
            add("  Or give the run up, which frees its key:");
            command(List.of("loadgate", "cancel", a.runId(), "--reason \"<why>\""));
        }
    }

    /** The run states a cancel is allowed from (the ledger decides; this only chooses the hint). */
    private static final Set<String> BEFORE_PUBLISHING = Set.of("CREATED", "EXTRACTING", "EXTRACTED_VALIDATED",
            "STAGE_VALIDATING", "STAGING_VALIDATED");

    private void failedRun(Attention a, Instant now) {
        add(Table.fit("x " + a.status() + "  " + since(a, now) + " ago  " + key(a), columns), YELLOW);
        String error = (a.errorStage() == null ? "" : a.errorStage() + " ")
                + (a.errorCode() == null ? "" : a.errorCode() + ": ")
                + (a.errorMessage() == null ? "" : oneLine(a.errorMessage()));
        add(Table.fit("  " + (error.isBlank() ? a.reason() : error), columns));
        if (a.fix() == null) {
            command(List.of("loadgate", "runs", "show", a.runId()));
        } else {
            add("  Load the key again once the cause is fixed:");
            command(words(a.fix()));
        }
    }

    /** The ledger's fix as words, so that a narrow screen wraps it between words rather than cutting it. */
    static List<String> words(String command) {
        return List.of(command.split(" "));
    }

    private void stuck(Attention a, Instant now) {
        add(Table.fit("! STUCK  for " + since(a, now) + "  " + key(a), columns), RED);
        add("  run " + a.runId());
        wrapped("  " + a.reason());
        command(words(a.fix() == null ? "loadgate runs show " + a.runId() : a.fix()));
    }

    private void staleData(Attention a, Instant now) {
        add(Table.fit("x STALE DATA  " + a.jobKey(), columns), YELLOW);
        wrapped("  " + a.reason());
        if (a.fix() != null) {
            command(words(a.fix()));
        }
    }

    private void active(List<ActiveRun> runs, Instant now) {
        if (runs.isEmpty()) {
            add("ACTIVE RUNS: none", BOLD);
            return;
        }
        add("ACTIVE RUNS: " + runs.size() + " (oldest first)", BOLD);
        int shown = layout.maxActive() > 0 ? Math.min(layout.maxActive(), runs.size()) : runs.size();
        // Only the text columns are cut; the counts and the age are short by design. At 80 columns a long job key
        // is cut to 15 before a key of 10 or a status of 19 (EXTRACTED_VALIDATED) is; a wider screen gives the
        // room to the job key.
        Table table = new Table("JOB", "KEY", "STATUS", "PARTS", "ROWS", "AGE").fitWidth(columns, 15, 10, 19, 0, 0, 0);
        for (ActiveRun run : runs.subList(0, shown)) {
            table.row(run.jobKey(), run.businessKey(), run.status(),
                    run.partitionsDone() + "/" + (run.partitions() == null ? "-" : run.partitions()),
                    compact(run.rowsExtracted()) + "/" + (run.rows() == null ? "-" : compact(run.rows())),
                    run.startedAt() == null ? null : age(Duration.between(run.startedAt(), now)));
        }
        // The table's first line is its header; then one line per run, in order.
        for (int i = 0; i < shown; i++) {
            targets.add(new Target(lines.size() + 1 + i, null, runs.get(i)));
        }
        table.lines().forEach(this::add);
        if (shown < runs.size()) {
            add("... and " + (runs.size() - shown) + " more: loadgate runs list", YELLOW);
        }
    }

    /**
     * A command an operator copies: never cut, wrapped with a shell continuation so that it pastes as one command.
     * Each word stays whole; an option and its value stay on one line unless together they do not fit one. A single
     * word longer than a line (a very long ledger URL on a narrow screen) overflows: cut, the command would be wrong.
     */
    private void command(List<String> words) {
        commandLines(words, layout.commandLedger(), columns).forEach(line -> add(line, BOLD));
    }

    /** {@link #command}'s lines, for a screen of {@code columns} usable columns. */
    static List<String> commandLines(List<String> words, String commandLedger, int columns) {
        List<String> all = new ArrayList<>(words);
        if (commandLedger != null) {
            all.add("--ledger " + commandLedger);
        }
        List<String> lines = new ArrayList<>();
        String indent = "    ";
        String continued = "      ";
        // Room for a word on a continuation line, before the continuation's " \\".
        int room = columns - continued.length() - 2;
        List<String> pieces = new ArrayList<>();
        for (String word : all) {
            if (word.length() > room && word.startsWith("--") && word.indexOf(' ') > 0) {
                pieces.add(word.substring(0, word.indexOf(' ')));
                pieces.add(word.substring(word.indexOf(' ') + 1));
            } else {
                pieces.add(word);
            }
        }
        StringBuilder line = new StringBuilder(indent);
        boolean first = true;
        for (String word : pieces) {
            if (!first && line.length() + 1 + word.length() + 2 > columns) {
                lines.add(line + " \\");
                line = new StringBuilder(continued);
                first = true;
            }
            line.append(first ? "" : " ").append(word);
            first = false;
        }
        lines.add(line.toString());
        return lines;
    }

    /**
     * Prose, wrapped at spaces to the screen's width under its own indent. A word longer than a line (a key, a URL)
     * is cut, as a cell is.
     */
    private void wrapped(String text) {
        wrappedLines(text).forEach(this::add);
    }

    private void wrapped(String text, String color) {
        wrappedLines(text).forEach(line -> add(line, color));
    }

    private List<String> wrappedLines(String text) {
        String indent = text.substring(0, text.length() - text.stripLeading().length());
        List<String> result = new ArrayList<>();
        StringBuilder line = new StringBuilder(indent);
        for (String word : text.strip().split(" +")) {
            if (line.length() > indent.length() && line.length() + 1 + word.length() > columns) {
                result.add(Table.fit(line.toString(), columns));
                line = new StringBuilder(indent);
            }
            line.append(line.length() > indent.length() ? " " : "").append(word);
        }
        result.add(Table.fit(line.toString(), columns));
        return result;
    }

    private void add(String line) {
        lines.add(line);
    }

    private void add(String line, String color) {
        lines.add(layout.color() ? color + line + RESET : line);
    }

    private static String key(Attention a) {
        return a.jobKey() + " / " + a.businessKey();
    }

    private static String since(Attention a, Instant now) {
        return a.since() == null ? "?" : age(Duration.between(a.since(), now));
    }

    /** "NAME n" items in the order the ledger sent them (it sorts by name). */
    private static List<String> ordered(Map<String, Long> counts) {
        return counts.entrySet().stream().map(e -> e.getKey() + " " + e.getValue()).toList();
    }

    static String age(Duration duration) {
        long s = Math.max(0, duration.getSeconds());
        if (s < 60) {
            return s + "s";
        }
        if (s < 3600) {
            return s / 60 + "m";
        }
        if (s < 86_400) {
            return s / 3600 + "h" + String.format("%02d", s % 3600 / 60) + "m";
        }
        return s / 86_400 + "d" + String.format("%02d", s % 86_400 / 3600) + "h";
    }

    /** A row count in at most five characters: 999, 12.3k, 1.2M, 4.0G. */
    static String compact(long n) {
        if (n < 1000) {
            return Long.toString(n);
        }
        String[] units = {"k", "M", "G", "T", "P"};
        double value = n;
        int unit = -1;
        while (value >= 999.95 && unit < units.length - 1) {
            value /= 1000;
            unit++;
        }
        return value < 100 ? String.format(Locale.ROOT, "%.1f%s", value, units[unit]) : String.format(Locale.ROOT, "%.0f%s", value, units[unit]);
    }

    private static String oneLine(String text) {
        return text.strip().replaceAll("\\s+", " ");
    }

    private static List<Map<String, Object>> objects(Object value) {
        List<Map<String, Object>> objects = new ArrayList<>();
        if (value instanceof List<?> list) {
            for (Object item : list) {
                if (item instanceof Map<?, ?> map) {
                    Map<String, Object> copy = new LinkedHashMap<>();
                    map.forEach((k, v) -> copy.put(String.valueOf(k), v));
                    objects.add(copy);
                }
            }
        }
        return objects;
    }

    private static Map<String, Long> counts(Object value) {
        Map<String, Long> counts = new LinkedHashMap<>();
        if (value instanceof Map<?, ?> map) {
            map.forEach((k, v) -> {
                if (v instanceof Number n) {
                    counts.put(String.valueOf(k), n.longValue());
                }
            });
        }
        return counts;
    }

    private static String text(Map<String, Object> map, String key) {
        Object value = map.get(key);
        return value == null ? null : value.toString();
    }

    private static Long number(Map<String, Object> map, String key) {
        return map.get(key) instanceof Number n ? n.longValue() : null;
    }

    private static Instant instant(Map<String, Object> map, String key) {
        String text = text(map, key);
        try {
            return text == null ? null : Instant.parse(text);
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}

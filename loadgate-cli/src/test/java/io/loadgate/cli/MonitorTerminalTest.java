package io.loadgate.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.loadgate.server.testing.Runs;
import io.loadgate.server.testing.TestLedger;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The live {@code loadgate monitor} in a real terminal: a detached tmux session runs the CLI as a child process (as
 * bin/loadgate starts it) against a real ledger; keys go in with {@code send-keys}, the screen comes back with
 * {@code capture-pane}.
 */
class MonitorTerminalTest {
    private static final Path TMUX = Path.of("/usr/bin/tmux");
    private static final Duration WAIT = Duration.ofSeconds(20);
    /** A whole load in a child JVM, on a machine the other sessions share. */
    private static final Duration LOAD = Duration.ofMinutes(3);

    private static TestLedger ledger;
    private static Path socket;

    @TempDir
    static Path dir;

    @BeforeAll
    static void start() {
        if (!Files.isExecutable(TMUX)) {
            System.out.println("MonitorTerminalTest skipped: " + TMUX + " is not installed");
        }
        Assumptions.assumeTrue(Files.isExecutable(TMUX), TMUX + " is not installed");
        ledger = new TestLedger();
        // A server of its own, its socket in the test's directory: the test neither sees nor touches anyone's tmux
        // sessions, and leaves nothing behind.
        socket = dir.resolve("tmux.sock");
    }

    @AfterAll
    static void stop() throws Exception {
        if (socket != null) {
            tmux("kill-server");
        }
        if (ledger != null) {
            ledger.close();
        }
    }

    @Test
    void resolvesAPublishUnknownRunFromTheMonitorAtTheTerminalsWidth() throws Exception {
        String job = "TMON_" + UUID.randomUUID().toString().substring(0, 8).toUpperCase();
        String run = createRun(job, "2026-11-28");
        // Getting to PUBLISH_UNKNOWN through the API takes a whole load; the monitor only reads the row.
        ledger.execute("UPDATE loadgate.load_run SET status = 'PUBLISH_UNKNOWN', status_changed_at = now() - "
                + "interval '2 hours' WHERE run_id = '" + run + "'");
        Path err = monitor("mon", 160, "viewer=" + ledger.viewerToken + "\noperator=" + ledger.operatorToken);
        String oneLine = "    loadgate resolve " + run + " --as PUBLISHED --reason \"snapshot <id> carries the run"
                + " id\" --ledger " + ledger.baseUrl();

        // 160 columns: the command fits on one line, nothing is wider than the pane.
        String wide = screen(s -> s.contains(oneLine), err);
        System.out.println("--- the monitor at 160 columns\n" + wide);
        assertThat(wide).contains("! PUBLISH_UNKNOWN  for 2h00m  " + job + " / 2026-11-28", MonitorTerminal.KEYS);
        assertThat(wide.lines()).allSatisfy(line -> assertThat(line.stripTrailing().length()).isLessThan(160));

        // 80 columns: the monitor follows the resize; the same command wraps with a shell continuation.
        tmux("resize-window", "-t", "mon", "-x", "80", "-y", "40");
        String narrow = screen(s -> !s.contains(oneLine) && s.contains("    loadgate resolve " + run), err);
        System.out.println("--- the monitor at 80 columns\n" + narrow);
        assertThat(narrow.lines()).as(narrow).allSatisfy(line ->
                assertThat(line.stripTrailing().length()).as(line).isLessThanOrEqualTo(79));
        assertThat(narrow.lines()).anySatisfy(line -> assertThat(line).contains("loadgate resolve " + run)
                .endsWith(" \\"));

        // Select it, resolve it as published with a reason, confirm: it leaves the attention list.
        select("mon", "selected: PUBLISH_UNKNOWN run " + run, err);
        tmux("send-keys", "-t", "mon", "r");
        screen(s -> s.contains("Resolve run " + run + " as: p PUBLISHED"), err);
        tmux("send-keys", "-t", "mon", "p");
        screen(s -> s.contains("Reason (Enter, Esc: back):"), err);
        tmux("send-keys", "-t", "mon", "-l", "snapshot 7 carries the run id");
        tmux("send-keys", "-t", "mon", "Enter");
        screen(s -> s.contains("Resolve as PUBLISHED? y/n  run " + run), err);
        tmux("send-keys", "-t", "mon", "y");
        String after = screen(s -> s.contains("Run " + run + " is now PUBLISHED."), err);
        System.out.println("--- after resolving\n" + after);
        // Whatever else the other test left in the list, this run is out of it.
        assertThat(after).doesNotContain("! PUBLISH_UNKNOWN", "1 publish unknown", "loadgate resolve " + run);
        assertThat(ledger.count("SELECT count(*) FROM loadgate.load_run WHERE status = 'PUBLISHED' AND run_id = '"
                + run + "'")).isEqualTo(1);

        // q quits: the pane's process ends, and with it the session.
        tmux("send-keys", "-t", "mon", "q");
        await().atMost(WAIT).until(() -> tmux("has-session", "-t", "mon").exit() != 0);
        assertThat(Files.readString(err)).isEmpty();
    }

    @Test
    void resendsADeadDispatchAndCancelsAnActiveRunAndSaysWhyItCannotResolveIt() throws Exception {
        String job = "TMON_" + UUID.randomUUID().toString().substring(0, 8).toUpperCase();
        // An extracting run whose first extract dispatch the receiver refused for good.
        Map<String, Object> extracting = Runs.create(job, "2026-11-30");
        extracting.put("executor", "worker");
        String extractingRun = ledger.post("/v1/runs", extracting).text("runId");
        var manifest = ledger.post("/v1/runs/" + extractingRun + "/manifest", Runs.manifest(10, 20));
        assertThat(manifest.status()).as(manifest.toString()).isEqualTo(200);
        String dead = ledger.get("/v1/runs/" + extractingRun).body().get("dispatches").get(0).get("dispatchId")
                .asText();
        ledger.execute("UPDATE loadgate.load_dispatch SET status = 'DEAD', last_error = 'receiver answered 403' "
                + "WHERE dispatch_id = '" + dead + "'");
        String run = createRun(job, "2026-11-29");
        Path err = monitor("cancel", 100, "viewer=" + ledger.viewerToken + "\noperator=" + ledger.operatorToken);
        screen("cancel", s -> s.contains(job), err);

        select("cancel", "selected: DEAD_DISPATCH run " + extractingRun, err);
        tmux("send-keys", "-t", "cancel", "s");
        screen("cancel", s -> s.contains("Resend? y/n  dispatch " + dead + " of run"), err);
        tmux("send-keys", "-t", "cancel", "y");
        // The resend command's own line, cut at this 100-column pane's end.
        screen("cancel", s -> s.contains("Dispatch " + dead + " of run " + extractingRun + " is PENDI"), err);
        assertThat(ledger.count("SELECT count(*) FROM loadgate.load_dispatch WHERE status = 'DEAD' AND dispatch_id = '"
                + dead + "'")).isZero();

        select("cancel", "selected: active run " + run + " (CREATED)", err);
        tmux("send-keys", "-t", "cancel", "r");
        screen("cancel", s -> s.contains("resolve is for a PUBLISH_UNKNOWN run; this is CREATED"), err);
        tmux("send-keys", "-t", "cancel", "c");
        screen("cancel", s -> s.contains("Reason (Enter, Esc: back):"), err);
        tmux("send-keys", "-t", "cancel", "-l", "wrong day");
        tmux("send-keys", "-t", "cancel", "Enter");
        screen("cancel", s -> s.contains("Cancel? y/n  run " + run), err);
        tmux("send-keys", "-t", "cancel", "y");
        String after = screen("cancel", s -> s.contains("Run " + run + " is now CANCELLED."), err);
        assertThat(after).as("out of the active runs").doesNotContain("2026-11-29");
        assertThat(ledger.count("SELECT count(*) FROM loadgate.load_run WHERE status = 'CANCELLED' AND run_id = '"
                + run + "'")).isEqualTo(1);
        // Ctrl-C ends it too (the terminal given back by the shutdown hook), without a word on stderr.
        tmux("send-keys", "-t", "cancel", "C-c");
        await().atMost(WAIT).until(() -> tmux("has-session", "-t", "cancel").exit() != 0);
        assertThat(Files.readString(err)).isEmpty();
    }

    @Test
    void showsARunInDetailWithItsMetricsSideBySideScrollsAndGoesBack() throws Exception {
        String job = "TMON_" + UUID.randomUUID().toString().substring(0, 8).toUpperCase();
        // A published run whose target counted two rows fewer than the source and the stage: TARGET fails.
        String run = Runs.stagingValidated(ledger, job, "2026-11-26");
        UUID token = Runs.publishing(ledger, run);
        assertThat(ledger.post("/v1/runs/" + run + "/publish/result", Map.of("publishToken", token.toString(),
                "outcome", "PUBLISHED", "targetRef", "snapshot-1")).status()).isEqualTo(200);
        Map<String, Object> metric = new java.util.LinkedHashMap<>(Map.of("metricName", "STAGE_COUNT",
                "expectedValue", "30", "actualValue", "28", "result", "FAIL", "details", Map.of()));
        metric.put("tolerance", null);
        var recorded = ledger.post("/v1/runs/" + run + "/validations", Map.of("stage", "TARGET", "queryVersion", "v1",
                "metrics", List.of(metric)));
        assertThat(recorded.status()).as(recorded.toString()).isEqualTo(200);
        Path err = monitor("detail", 120, "viewer=" + ledger.viewerToken);
        screen("detail", s -> s.contains(job), err);

        select("detail", "selected: active run " + run + " (PUBLISHED)", err);
        tmux("send-keys", "-t", "detail", "Enter");
        String shown = screen("detail", s -> s.contains("Metrics (source / staged / target)"), err);
        System.out.println("--- a run in detail\n" + shown);
        assertThat(shown).contains("RUN DETAIL  " + run, "status        PUBLISHED", "detail of run " + run,
                MonitorTerminal.DETAIL_KEYS.substring(0, 40));
        // One row per metric: the source, the stage's count and the target's, and the ledger's verdict.
        assertThat(shown.lines()).anySatisfy(line -> assertThat(line).matches("STAGE_COUNT +30 +30 +28 +TARGET FAIL *"));
        assertThat(shown.lines()).anySatisfy(line -> assertThat(line).matches("rows \\(run\\) +30 .*"));
        assertThat(shown.lines()).allSatisfy(line -> assertThat(line.stripTrailing().length()).isLessThan(120));

        // The partitions, dispatches and events are further down: the view scrolls to them.
        for (int i = 0; i < 3; i++) {
            tmux("send-keys", "-t", "detail", "PageDown");
        }
        String lower = screen("detail", s -> s.contains("Events (last "), err);
        assertThat(lower).contains("Partitions (1)", "Dispatches (", "RUN_STATUS", "STAGING_VALIDATED -> PUBLISHING");
        assertThat(lower.lines()).anySatisfy(line -> assertThat(line).startsWith("0000").contains("SUCCESS"));

        // Esc: back to the list, the same run still selected; a load again is not for a run still under way.
        tmux("send-keys", "-t", "detail", "Escape");
        String list = screen("detail", s -> s.contains("selected: active run " + run), err);
        assertThat(list).doesNotContain("RUN DETAIL");
        tmux("send-keys", "-t", "detail", "l");
        screen("detail", s -> s.contains("load again is for a failed run or stale data; this is PUBLISHED"), err);
        tmux("send-keys", "-t", "detail", "q");
        await().atMost(WAIT).until(() -> tmux("has-session", "-t", "detail").exit() != 0);
        assertThat(Files.readString(err)).isEmpty();
    }

    @Test
    void loadAgainStartsALoadOfTheJobSpecTheLedgerKeepsOnlyOnceConfirmed() throws Exception {
        try (JobFixture fixture = new JobFixture(Files.createDirectories(dir.resolve("fixture")))) {
            String job = "TMON_" + UUID.randomUUID().toString().substring(0, 8).toUpperCase();
            Path jobFile = fixture.job(job, "again_days");
            // A day the source has no rows for: the load fails (EMPTY_SOURCE_BLOCKED), its job spec in the ledger.
            var refused = fixture.run("load", jobFile.toString(), "--business-key", "2026-11-26");
            assertThat(refused.exit()).as(refused.toString()).isEqualTo(10);
            String failed = fixture.ledger.get("/v1/runs?jobKey=" + job).body().get(0).get("runId").asText();
            try (Connection c = fixture.source.connect(); Statement s = c.createStatement()) {
                s.execute("INSERT INTO sales SELECT g, g / 4.0, 'x' || g, DATE '2026-11-26' FROM"
                        + " generate_series(100001, 100700) g");
            }
            // The job file is gone: the monitor loads the spec the ledger keeps, not a file it would have to find.
            Files.delete(jobFile);
            Path err = monitor("again", 200, fixture.ledger.baseUrl(), fixture.tokens);
            String command = "loadgate run <" + job + ".yaml> --business-key 2026-11-26 --ledger "
                    + fixture.ledger.baseUrl();
            screen("again", s -> s.contains(job), err);

            // n: the confirmation shows the command to run by hand, and starts nothing.
            select("again", "selected: FAILED_RUN run " + failed, err);
            tmux("send-keys", "-t", "again", "l");
            String shown = screen("again", s -> s.contains("Start a load of " + job + " / 2026-11-26? y/n"), err);
            System.out.println("--- load again, confirming\n" + shown);
            assertThat(shown).contains("LOAD AGAIN  " + job + " / 2026-11-26", "    " + command,
                    "y starts a load of this key", "place of <" + job + ".yaml>:");
            tmux("send-keys", "-t", "again", "n");
            screen("again", s -> s.contains("not started"), err);
            Path monitorDir = dir.resolve("home").resolve("monitor");
            assertThat(Files.exists(monitorDir) ? Files.list(monitorDir).filter(f -> f.getFileName().toString()
                    .startsWith(job)).toList() : List.of()).as("nothing written").isEmpty();
            assertThat(fixture.runs(job)).isEqualTo(1);

            // y: a load of the run's spec starts in the background; the monitor says its pid and log, then its end.
            select("again", "selected: FAILED_RUN run " + failed, err);
            tmux("send-keys", "-t", "again", "l");
            screen("again", s -> s.contains("Start a load of " + job + " / 2026-11-26? y/n"), err);
            tmux("send-keys", "-t", "again", "y");
            String started = screen("again", s -> s.contains("Load of " + job + " / 2026-11-26 started: pid "), err);
            System.out.println("--- load again, started\n" + started);
            String ended = screen("again", LOAD, s -> s.contains("Load of " + job + " / 2026-11-26 (pid "), err);
            System.out.println("--- load again, ended\n" + ended);
            var runs = fixture.ledger.get("/v1/runs?jobKey=" + job).body();
            assertThat(runs).hasSize(2);
            String loaded = runs.get(0).get("runId").asText().equals(failed) ? runs.get(1).get("runId").asText()
                    : runs.get(0).get("runId").asText();
            assertThat(fixture.ledger.get("/v1/runs/" + loaded).text("status")).isEqualTo("SUCCESS");
            assertThat(fixture.ledger.get("/v1/runs/" + loaded).text("businessKey")).isEqualTo("2026-11-26");
            // The status line names the child's exit and its run's summary, cut at the pane's end.
            assertThat(ended).contains(") ended, exit 0: Run " + loaded + "  SUCCESS  (loaded, validated");
            assertThat(fixture.rowsByDay("again_days")).isEqualTo(Map.of("2026-11-26", 700L));
            List<Path> files = Files.list(monitorDir).filter(f -> f.getFileName().toString().startsWith(job))
                    .sorted().toList();
            assertThat(files).hasSize(2);
            Path log = files.get(0);
            Path spec = files.get(1);
            assertThat(log.toString()).endsWith(".log");
            assertThat(started).contains(log.getFileName().toString());
            assertThat(Files.readString(spec)).isEqualTo(fixture.ledger.get("/v1/runs/" + failed).body()
                    .get("parameters").get("jobSpec").asText());
            assertThat(Files.getPosixFilePermissions(spec)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
            assertThat(Files.getPosixFilePermissions(log)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
            assertThat(Files.readString(log)).contains("SUCCESS");

            // Once the terminal is given back, the load started and the declined command are printed there.
            tmux("set-option", "-t", "again", "remain-on-exit", "on");
            tmux("send-keys", "-t", "again", "q");
            String after = screen("again", s -> s.contains("Loads not started from the monitor"), err);
            assertThat(after).contains("Loads started from the monitor", "\n  " + command,
                    "\n  Load of " + job + " / 2026-11-26 started: pid ", ", log " + log + "\n");
            tmux("kill-session", "-t", "again");
            assertThat(Files.readString(err)).isEmpty();
        }
    }

    private static String createRun(String job, String businessKey) {
        Map<String, Object> body = Runs.create(job, businessKey);
        body.put("executor", "http");
        var created = ledger.post("/v1/runs", body);
        assertThat(created.status()).as(created.toString()).isEqualTo(200);
        return created.text("runId");
    }

    /** Moves the selection down until the status line names {@code wanted}; the other test's runs may come first. */
    private static void select(String session, String wanted, Path err) throws Exception {
        for (int i = 0; i < 20; i++) {
            // Only the status line starts with "selected: ". Each key is given time to be drawn (up to 2 s on a busy
            // machine) before the next, so that the selection cannot move past the wanted item unseen.
            for (int look = 0; look < 10; look++) {
                if (tmux("capture-pane", "-p", "-t", session).out().lines().anyMatch(l -> l.startsWith(wanted))) {
                    return;
                }
                Thread.sleep(200);
            }
            tmux("send-keys", "-t", session, "Down");
        }
        throw new AssertionError("never selected " + wanted + ":\n" + screen(session, s -> true, err));
    }

    /** Starts the live monitor in a detached tmux session of that width; returns the file its stderr goes to. */
    private static Path monitor(String session, int width, String tokenLines) throws Exception {
        return monitor(session, width, ledger.baseUrl(), Files.writeString(dir.resolve(session + ".tokens"),
                tokenLines + "\n"));
    }

    private static Path monitor(String session, int width, String ledgerUrl, Path tokens) throws Exception {
        Path err = dir.resolve(session + ".err");
        Path script = Files.writeString(dir.resolve(session + ".sh"), String.join(" ", "exec env -i",
                "PATH=\"$PATH\" HOME=\"$HOME\" TERM=\"$TERM\"", "LOADGATE_HOME=" + quoted(dir.resolve("home")),
                quoted(Path.of(System.getProperty("java.home"), "bin", "java")), "-cp",
                quoted(System.getProperty("java.class.path")), Main.class.getName(), "monitor", "--ledger",
                ledgerUrl, "--token-file", quoted(tokens), "--interval", "2", "2>" + quoted(err)) + "\n");
        assertThat(tmux("new-session", "-d", "-s", session, "-x", Integer.toString(width), "-y", "40",
                "sh " + quoted(script)).exit()).isZero();
        return err;
    }

    /** The pane's text once it satisfies {@code ready}. */
    private static String screen(java.util.function.Predicate<String> ready, Path err) {
        return screen("mon", ready, err);
    }

    private static String screen(String session, java.util.function.Predicate<String> ready, Path err) {
        return screen(session, WAIT, ready, err);
    }

    private static String screen(String session, Duration wait, java.util.function.Predicate<String> ready, Path err) {
        String[] last = {""};
        try {
            await().atMost(wait).pollInterval(Duration.ofMillis(200)).until(() -> {
                // Ready and the same as the capture before: a pane captured while the monitor draws it is half old.
                String previous = last[0];
                last[0] = tmux("capture-pane", "-p", "-t", session).out();
                return ready.test(last[0]) && last[0].equals(previous);
            });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("the screen never got there:\n" + last[0] + "\n--- stderr\n" + read(err), e);
        }
        return last[0];
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            return e.toString();
        }
    }

    private record Result(int exit, String out) {
    }

    private static Result tmux(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(TMUX.toString(), "-S", socket.toString(), "-f", "/dev/null"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("tmux did not answer: " + command);
        }
        return new Result(p.exitValue(), out);
    }

    private static String quoted(Object text) {
        return "'" + text.toString().replace("'", "'\\''") + "'";
    }
}

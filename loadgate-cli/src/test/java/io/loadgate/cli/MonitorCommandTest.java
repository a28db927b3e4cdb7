package io.loadgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.server.testing.Runs;
import io.loadgate.server.testing.TestLedger;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code loadgate monitor} against a real ledger holding a publish-unknown run, a dead dispatch and a failed run. */
class MonitorCommandTest {
    private static TestLedger ledger;
    private static Path viewerTokens;
    private static Path operatorTokens;
    private static String publishUnknownRun;
    private static String extractingRun;
    private static String deadDispatch;
    private static String failedRun;
    private static String job;

    @TempDir
    static Path dir;

    @BeforeAll
    static void start() throws IOException {
        ledger = new TestLedger();
        viewerTokens = Files.writeString(dir.resolve("viewer"), "viewer=" + ledger.viewerToken + "\n");
        operatorTokens = Files.writeString(dir.resolve("operator"), "operator=" + ledger.operatorToken + "\n");
        job = "MON_" + UUID.randomUUID().toString().substring(0, 8).toUpperCase();

        // A run stuck in PUBLISH_UNKNOWN for two hours. Getting there through the API takes a whole load; the
        // monitor only reads the row, so SQL puts it there.
        publishUnknownRun = create(job, "2026-11-28", "http");
        ledger.execute("UPDATE loadgate.load_run SET status = 'PUBLISH_UNKNOWN', status_changed_at = now() - "
                + "interval '2 hours' WHERE run_id = '" + publishUnknownRun + "'");

        // An extracting run whose first extract dispatch the receiver refused for good.
        extractingRun = create(job, "2026-11-29", "worker");
        var manifest = ledger.post("/v1/runs/" + extractingRun + "/manifest", Runs.manifest(10, 20));
        assertThat(manifest.status()).as(manifest.toString()).isEqualTo(200);
        deadDispatch = ledger.get("/v1/runs/" + extractingRun).body().get("dispatches").get(0).get("dispatchId")
                .asText();
        ledger.execute("UPDATE loadgate.load_dispatch SET status = 'DEAD', last_error = 'receiver answered 403: "
                + "token expired' WHERE dispatch_id = '" + deadDispatch + "'");

        failedRun = create(job, "2026-11-30", "http");
        var failed = ledger.post("/v1/runs/" + failedRun + "/fail", Map.of("expectedStatus", "CREATED",
                "failStatus", "FAILED_MANIFEST", "errorStage", "MANIFEST", "errorCode", "SOURCE_UNREACHABLE",
                "message", "connection to db:5432 refused"));
        assertThat(failed.status()).as(failed.toString()).isEqualTo(200);
    }

    @AfterAll
    static void stop() {
        ledger.close();
    }

    private static String create(String jobKey, String businessKey, String executor) {
        Map<String, Object> body = Runs.create(jobKey, businessKey);
        body.put("executor", executor);
        var created = ledger.post("/v1/runs", body);
        assertThat(created.status()).as(created.toString()).isEqualTo(200);
        return created.text("runId");
    }

    private static OperatorCommandsTest.Result monitor(String... extra) {
        List<String> args = new ArrayList<>(List.of("monitor", "--ledger", ledger.baseUrl(), "--token-file",
                viewerTokens.toString()));
        args.addAll(List.of(extra));
        return OperatorCommandsTest.run(args.toArray(String[]::new));
    }

    /** The commands the screen shows, each joined back from its shell continuation lines. */
    static List<String> commands(String screen) {
        List<String> commands = new ArrayList<>();
        StringBuilder current = null;
        for (String line : screen.lines().toList()) {
            String text = line.strip();
            if (current == null && text.startsWith("loadgate ")) {
                current = new StringBuilder();
            }
            if (current != null) {
                boolean continues = text.endsWith(" \\");
                current.append(current.length() == 0 ? "" : " ")
                        .append(continues ? text.substring(0, text.length() - 2) : text);
                if (!continues) {
                    commands.add(current.toString());
                    current = null;
                }
            }
        }
        return commands;
    }

    /** A shown command as arguments, the way a shell would split it (double quotes only). */
    static List<String> words(String command) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean quoted = false;
        for (char c : command.toCharArray()) {
            if (c == '"') {
                quoted = !quoted;
            } else if (c == ' ' && !quoted) {
                if (word.length() > 0) {
                    words.add(word.toString());
                    word.setLength(0);
                }
            } else {
                word.append(c);
            }
        }
        if (word.length() > 0) {
            words.add(word.toString());
        }
        return words;
    }

    @Test
    void onceShowsTheAttentionListFirstWithTheCommandsToRun() {
        // The width given, so that a COLUMNS exported by whoever runs the tests does not change the layout.
        var result = monitor("--once", "--width", "80");

        assertThat(result.exit()).as(result.toString()).isZero();
        assertThat(result.err()).as(result.toString()).isEmpty();
        String out = result.out();
        assertThat(out.lines()).as("fits an 80-column terminal:\n" + out).allSatisfy(line ->
                assertThat(line.length()).as(line).isLessThanOrEqualTo(79));
        assertThat(out).startsWith("LOADGATE MONITOR  ").contains(ledger.baseUrl(),"ledger: reachable",
                "PUBLISH_UNKNOWN 1", "DEAD 1", "FAILED_MANIFEST 1");
        assertThat(out).contains("ATTENTION: 1 publish unknown, 1 dead dispatches, 1 failed in 24 h");

        int attention = out.indexOf("ATTENTION:");
        int publishUnknown = out.indexOf("! PUBLISH_UNKNOWN  for 2h00m  " + job + " / 2026-11-28");
        int dead = out.indexOf("s  EXTRACT_PARTITION  " + job + " / 2026-11-29");
        int failed = out.indexOf("s ago  " + job + " / 2026-11-30");
        int active = out.indexOf("ACTIVE RUNS: 2");
        assertThat(out).contains("! DEAD DISPATCH  for ", "x FAILED_MANIFEST  ");
        assertThat(List.of(attention, publishUnknown, dead, failed, active)).as(out)
                .doesNotContain(-1).isSorted();
        assertThat(out).contains("  last error: receiver answered 403: token expired",
                "  MANIFEST SOURCE_UNREACHABLE: connection to db:5432 refused");
        assertThat(out.substring(active)).contains(job, "EXTRACTING", "0/2", "0/30", "PUBLISH_UNKNOWN");

        String url = ledger.baseUrl();
        assertThat(commands(out)).as(out).containsExactly(
                "loadgate resolve " + publishUnknownRun + " --as PUBLISHED --reason \"snapshot <id> carries the run id\""
                        + " --ledger " + url,
                "loadgate resolve " + publishUnknownRun + " --as FAILED_PUBLISH"
                        + " --reason \"no snapshot carries the run id\" --ledger " + url,
                "loadgate dispatch resend " + extractingRun + " " + deadDispatch + " --ledger " + url,
                "loadgate cancel " + extractingRun + " --reason \"<why>\" --ledger " + url,
                // A failure no SUCCESS loaded over since: its fix is loading the key again (the ledger's fix).
                "loadgate run <" + job + ".yaml> --business-key 2026-11-30 --ledger " + url);
    }

    @Test
    void widthUsesAWideTerminalAndRefusesNonsense() {
        var wide = monitor("--once", "--width", "200");

        assertThat(wide.exit()).as(wide.toString()).isZero();
        assertThat(wide.out().lines()).allSatisfy(line -> assertThat(line.length()).as(line).isLessThan(200));
        assertThat(wide.out().lines()).as("the resend command on one line:\n" + wide.out())
                .contains("    loadgate dispatch resend " + extractingRun + " " + deadDispatch + " --ledger "
                        + ledger.baseUrl());

        var zero = monitor("--once", "--width", "0");
        assertThat(zero.exit()).as(zero.toString()).isEqualTo(2);
        assertThat(zero.err()).contains("--width");
    }

    @Test
    void theShownResendCommandRunsAsPrinted() {
        String resend = commands(monitor("--once").out()).stream().filter(c -> c.contains(" resend ")).findFirst()
                .orElseThrow();
        List<String> args = new ArrayList<>(words(resend).subList(1, words(resend).size()));
        args.addAll(List.of("--token-file", operatorTokens.toString()));

        var result = OperatorCommandsTest.run(args.toArray(String[]::new));
        assertThat(result.exit()).as(result.toString()).isZero();
        assertThat(result.out()).isEqualTo("Dispatch " + deadDispatch + " of run " + extractingRun + " is PENDING again.\n");
        assertThat(ledger.count("SELECT count(*) FROM loadgate.load_dispatch WHERE status = 'DEAD' AND dispatch_id = '"
                + deadDispatch + "'")).isZero();
        // Back to DEAD for the other tests, which expect it.
        ledger.execute("UPDATE loadgate.load_dispatch SET status = 'DEAD' WHERE dispatch_id = '" + deadDispatch + "'");
    }

    @Test
    void withoutATerminalItPrintsOneSnapshotAndExits() {
        // Under the test runner stdout is no terminal: no --once needed, and no cursor movement in the output.
        var result = monitor("--interval", "1");

        assertThat(result.exit()).as(result.toString()).isZero();
        assertThat(result.out()).startsWith("LOADGATE MONITOR  ").doesNotContain("\033[");
    }

    @Test
    void aWorkerTokenFileAlsoReads() throws IOException {
        Path workerOnly = Files.writeString(dir.resolve("worker"), "worker=" + ledger.workerToken + "\n");
        var result = OperatorCommandsTest.run("monitor", "--once", "--ledger", ledger.baseUrl(), "--token-file",
                workerOnly.toString(), "--json");

        assertThat(result.exit()).as(result.toString()).isZero();
        assertThat(OperatorCommandsTest.json(result.out()).get("attention")).hasSize(3);
    }

    @Test
    void anUnreachableLedgerIsOneLineAndExitThree() throws IOException {
        int port = OperatorCommandsTest.closedPort();
        var result = OperatorCommandsTest.run("monitor", "--once", "--ledger", "http://127.0.0.1:" + port,
                "--token-file", viewerTokens.toString());

        assertThat(result.exit()).as(result.toString()).isEqualTo(3);
        assertThat(result.errLines()).singleElement().asString()
                .startsWith("loadgate: cannot reach the ledger at http://127.0.0.1:" + port);
        assertThat(result.out()).isEmpty();
    }

    @Test
    void badOptionsAreExitTwo() {
        var result = monitor("--interval", "0");

        assertThat(result.exit()).as(result.toString()).isEqualTo(2);
        assertThat(result.errLines()).containsExactly("loadgate: --interval must be between 1 and 3600 seconds, got 0");
    }
}

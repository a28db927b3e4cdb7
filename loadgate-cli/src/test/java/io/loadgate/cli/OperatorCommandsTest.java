package io.loadgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.loadgate.server.testing.Runs;
import io.loadgate.server.testing.TestLedger;
import io.loadgate.worker.ledger.HttpLedgerClient;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code loadgate runs|resolve|cancel|dispatch} through {@link Main#run} against a real ledger on loopback. */
class OperatorCommandsTest {
    private static TestLedger ledger;
    private static Path tokens;

    @TempDir
    static Path dir;

    @BeforeAll
    static void start() throws IOException {
        ledger = new TestLedger();
        tokens = Files.writeString(dir.resolve("tokens"),
                "worker=" + ledger.workerToken + "\noperator=" + ledger.operatorToken + "\n");
    }

    @AfterAll
    static void stop() {
        ledger.close();
    }

    record Result(int exit, String out, String err) {
        List<String> errLines() {
            return err.lines().toList();
        }

        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    /** Runs the command with stdout and stderr captured. Tests run one at a time, so swapping them is safe. */
    static Result run(String... args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        var stdout = new ByteArrayOutputStream();
        var stderr = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(stdout, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(stderr, true, StandardCharsets.UTF_8));
            int exit = Main.run(args);
            return new Result(exit, stdout.toString(StandardCharsets.UTF_8), stderr.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
    }

    /** The command with {@code --ledger} and {@code --token-file} of the test ledger appended. */
    static Result ledgerRun(String... args) {
        return runOn(ledger, tokens, args);
    }

    /** The command with {@code --ledger} of {@code ledger} and {@code --token-file tokens} appended. */
    static Result runOn(TestLedger ledger, Path tokens, String... args) {
        List<String> all = new ArrayList<>(Arrays.asList(args));
        all.addAll(List.of("--ledger", ledger.baseUrl(), "--token-file", tokens.toString()));
        return run(all.toArray(String[]::new));
    }

    static String job() {
        return "CLI_" + UUID.randomUUID().toString().substring(0, 8).toUpperCase();
    }

    static String create(String job, String businessKey) {
        var created = ledger.post("/v1/runs", Runs.create(job, businessKey));
        assertThat(created.status()).as(created.toString()).isEqualTo(200);
        return created.text("runId");
    }

    static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    static JsonNode json(String text) throws IOException {
        return HttpLedgerClient.JSON.readTree(text);
    }

    @Test
    void runsListPrintsAnAlignedTable() {
        String job = job();
        String first = create(job, "2026-11-01");
        String second = create(job, "2026-11-02");

        var result = ledgerRun("runs", "list", "--job", job);
        assertThat(result.exit()).as(result.toString()).isZero();
        List<String> lines = result.out().lines().toList();
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).startsWith("RUN_ID").contains("JOB", "BUSINESS_KEY", "STATUS", "PARTITIONS", "STARTED");
        assertThat(lines.get(1)).as("newest first").startsWith(second);
        assertThat(lines.get(2)).startsWith(first).contains(job, "2026-11-01", "CREATED");
        int statusColumn = lines.get(0).indexOf("STATUS");
        assertThat(lines.subList(1, 3)).allSatisfy(line -> assertThat(line.substring(statusColumn)).startsWith("CREATED"));
        assertThat(result.err()).isEmpty();
    }

    @Test
    void runsListFiltersAndPrintsJson() throws IOException {
        String job = job();
        create(job, "A");
        create(job, "B");

        var json = ledgerRun("runs", "list", "--job", job, "--business-key", "B", "--status", "CREATED", "--json");
        assertThat(json.exit()).as(json.toString()).isZero();
        JsonNode runs = json(json.out());
        assertThat(runs.isArray()).isTrue();
        assertThat(runs).hasSize(1);
        assertThat(runs.get(0).get("businessKey").asText()).isEqualTo("B");

        var limited = ledgerRun("runs", "list", "--job", job, "--limit", "1", "--json");
        assertThat(json(limited.out())).hasSize(1);

        var none = ledgerRun("runs", "list", "--job", job, "--status", "SUCCESS");
        assertThat(none.exit()).isZero();
        assertThat(none.out()).isEqualTo("No runs.\n");
    }

    @Test
    void runsShowPrintsTheRunPartitionsDispatchesAndEvents() throws IOException {
        Map<String, Object> body = Runs.create(job(), "2026-11-30");
        body.put("executor", "worker");
        String runId = ledger.post("/v1/runs", body).text("runId");
        assertThat(ledger.post("/v1/runs/" + runId + "/manifest", Runs.manifest(10, 0, 5)).status()).isEqualTo(200);
        UUID token = UUID.randomUUID();
        ledger.post("/v1/runs/" + runId + "/partitions/0000/claim", Runs.claim(token));
        ledger.post("/v1/runs/" + runId + "/partitions/0000/heartbeat", Map.of("claimToken", token.toString(),
                "rowsRead", 7));

        var result = ledgerRun("runs", "show", runId);
        assertThat(result.exit()).as(result.toString()).isZero();
        assertThat(result.out()).contains("run           " + runId, "status        EXTRACTING", "Partitions (3)",
                "Dispatches (2)", "EXTRACT_PARTITION", "Events (last ");
        List<List<String>> partitions = result.out().lines()
                .filter(l -> l.matches("(PARTITION|[0-9]{4}) .*"))
                .map(l -> List.of(l.trim().split(" {2,}"))).toList();
        assertThat(partitions).as(result.out()).hasSize(4);
        assertThat(partitions.get(0)).startsWith("PARTITION", "STATUS", "EXPECTED", "READ", "ACTUAL");
        assertThat(partitions.get(1)).as("the running partition's rows read").startsWith("0000", "RUNNING", "10", "7");
        assertThat(partitions.get(2)).as("an empty partition is done").startsWith("0001", "SUCCESS", "0", "-");
        assertThat(partitions.get(3)).startsWith("0002", "PENDING", "5", "-", "-");

        var json = ledgerRun("runs", "show", runId, "--json", "--events", "2");
        JsonNode shown = json(json.out());
        assertThat(shown.get("run").get("runId").asText()).isEqualTo(runId);
        assertThat(shown.get("run").get("partitions")).hasSize(3);
        assertThat(shown.get("events")).hasSize(2);
    }

    @Test
    void runsShowOfAnUnknownRunIsOneLineAndExitOne() {
        String unknown = UUID.randomUUID().toString();
        var result = ledgerRun("runs", "show", unknown);

        assertThat(result.exit()).as(result.toString()).isEqualTo(1);
        assertThat(result.errLines()).containsExactly("loadgate: run " + unknown + " does not exist (404 RUN_NOT_FOUND)");
        assertThat(result.out()).isEmpty();
    }

    @Test
    void badInputIsExitTwoBeforeAnyCall() throws IOException {
        // The ledger URL points at a closed port: an attempted call would say so, and exit 3.
        String nowhere = "http://127.0.0.1:" + closedPort();
        String run = UUID.randomUUID().toString();

        var shortReason = run("resolve", run, "--as", "PUBLISHED", "--reason", "ok ", "--ledger", nowhere,
                "--token-file", tokens.toString());
        assertThat(shortReason.exit()).as(shortReason.toString()).isEqualTo(2);
        assertThat(shortReason.errLines()).containsExactly("loadgate: --reason must be at least 5 characters, got 'ok '");

        var notUuid = run("runs", "show", "not-a-run", "--ledger", nowhere);
        assertThat(notUuid.exit()).isEqualTo(2);
        assertThat(notUuid.errLines()).containsExactly("loadgate: RUN_ID must be a UUID, got 'not-a-run'");

        var badDispatch = run("dispatch", "resend", run, "xyz", "--ledger", nowhere);
        assertThat(badDispatch.exit()).isEqualTo(2);
        assertThat(badDispatch.err()).contains("DISPATCH_ID must be a UUID");

        var badLimit = run("runs", "list", "--limit", "0", "--ledger", nowhere);
        assertThat(badLimit.exit()).isEqualTo(2);
        assertThat(badLimit.errLines()).containsExactly("loadgate: --limit must be between 1 and 1000, got 0");

        var badOutcome = run("resolve", run, "--as", "MAYBE", "--reason", "looked at it", "--ledger", nowhere);
        assertThat(badOutcome.exit()).isEqualTo(2);
        assertThat(badOutcome.err()).startsWith("loadgate: ").contains("MAYBE");

        var missingAs = run("resolve", run, "--reason", "looked at it", "--ledger", nowhere);
        assertThat(missingAs.exit()).isEqualTo(2);
        assertThat(missingAs.err()).contains("--as");

        var badStatus = run("runs", "list", "--status", "DONE", "--ledger", nowhere);
        assertThat(badStatus.exit()).isEqualTo(2);

        var badUrl = run("runs", "list", "--ledger", "ftp://x", "--token-file", tokens.toString());
        assertThat(badUrl.exit()).isEqualTo(2);
        assertThat(badUrl.errLines()).singleElement().asString().startsWith("loadgate: --ledger: ledger URL must be");
    }

    @Test
    void cancelStopsARunOnceSaysSoAgainAndRefusesAnEndedRun() throws IOException {
        String job = job();
        String runId = create(job, "2026-11-30");

        var cancelled = ledgerRun("cancel", runId, "--reason", "submitted the wrong job");
        assertThat(cancelled.exit()).as(cancelled.toString()).isZero();
        assertThat(cancelled.out()).isEqualTo("Run " + runId + " is now CANCELLED.\n");
        assertThat(ledger.get("/v1/runs/" + runId).text("status")).isEqualTo("CANCELLED");

        var again = ledgerRun("cancel", runId, "--reason", "submitted the wrong job", "--json");
        assertThat(again.exit()).as(again.toString()).isZero();
        assertThat(json(again.out()).get("changed").asBoolean()).isFalse();
        assertThat(create(job, "2026-11-30")).as("the key is free for a new run").isNotEqualTo(runId);

        String failed = create(job(), "2026-11-30");
        ledger.post("/v1/runs/" + failed + "/fail", Map.of("expectedStatus", "CREATED", "failStatus",
                "FAILED_MANIFEST", "errorStage", "MANIFEST", "errorCode", "X", "message", "broken"));
        var refused = ledgerRun("cancel", failed, "--reason", "too late for this");
        assertThat(refused.exit()).as(refused.toString()).isEqualTo(1);
        assertThat(refused.errLines()).singleElement().asString().startsWith("loadgate: run " + failed)
                .contains("already ended as FAILED_MANIFEST", "(409 RUN_STATUS_MISMATCH)");

        var shortReason = ledgerRun("cancel", runId, "--reason", "oops");
        assertThat(shortReason.exit()).isEqualTo(2);
        assertThat(shortReason.errLines()).containsExactly("loadgate: --reason must be at least 5 characters, got 'oops'");
        var notUuid = ledgerRun("cancel", "run-1", "--reason", "wrong job");
        assertThat(notUuid.exit()).isEqualTo(2);
        assertThat(notUuid.errLines()).containsExactly("loadgate: RUN_ID must be a UUID, got 'run-1'");
        assertThat(ledgerRun("cancel", runId).exit()).as("--reason is required").isEqualTo(2);

        int port = closedPort();
        var unreachable = run("cancel", runId, "--reason", "wrong job", "--ledger", "http://127.0.0.1:" + port,
                "--token-file", tokens.toString());
        assertThat(unreachable.exit()).as(unreachable.toString()).isEqualTo(3);
        assertThat(unreachable.errLines()).singleElement().asString()
                .startsWith("loadgate: cannot reach the ledger at http://127.0.0.1:" + port);
    }

    @Test
    void anUnreachableLedgerIsOneClearLineAndExitThree() throws IOException {
        int port = closedPort();
        var result = run("runs", "list", "--ledger", "http://127.0.0.1:" + port, "--token-file", tokens.toString());

        assertThat(result.exit()).as(result.toString()).isEqualTo(3);
        assertThat(result.errLines()).singleElement().asString()
                .startsWith("loadgate: cannot reach the ledger at http://127.0.0.1:" + port)
                .contains("connection refused", "is it running?");
    }

    @Test
    void tokenProblemsAreOneLine() throws IOException {
        var missing = run("runs", "list", "--ledger", ledger.baseUrl(), "--token-file", dir.resolve("nope").toString());
        assertThat(missing.exit()).isEqualTo(2);
        assertThat(missing.errLines()).containsExactly("loadgate: no worker token: token file " + dir.resolve("nope")
                + " does not exist (use --token-file)");

        Path workerOnly = Files.writeString(dir.resolve("worker-only"), "worker=" + ledger.workerToken + "\n");
        var noOperator = run("dispatch", "resend", UUID.randomUUID().toString(), UUID.randomUUID().toString(),
                "--ledger", ledger.baseUrl(), "--token-file", workerOnly.toString());
        assertThat(noOperator.exit()).isEqualTo(2);
        assertThat(noOperator.err()).contains("has no operator= line");

        Path wrong = Files.writeString(dir.resolve("wrong"), "lg_wrong\n");
        var refused = run("runs", "list", "--ledger", ledger.baseUrl(), "--token-file", wrong.toString());
        assertThat(refused.exit()).isEqualTo(1);
        assertThat(refused.errLines()).containsExactly("loadgate: the ledger refused the token from " + wrong
                + " (401 UNAUTHENTICATED)");
    }

    @Test
    void resolvingARunThatIsNotPublishUnknownIsRefused() {
        String runId = create(job(), "K");
        var result = ledgerRun("resolve", runId, "--as", "FAILED_PUBLISH", "--reason", "target table checked");

        assertThat(result.exit()).as(result.toString()).isEqualTo(1);
        assertThat(result.errLines()).singleElement().asString().startsWith("loadgate: ").matches(".*\\((404|409) [A-Z0-9_]+\\)$");
    }

    /** The ledger answers resolve and resend only once issue 3 lands; a stub stands in for the success answers. */
    @Test
    void resolveAndResendUseTheOperatorTokenAndSayWhatChanged() throws IOException {
        UUID run = UUID.randomUUID();
        UUID dispatch = UUID.randomUUID();
        List<String> seen = new CopyOnWriteArrayList<>();
        HttpServer stub = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        stub.createContext("/", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            seen.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath() + " "
                    + exchange.getRequestHeaders().getFirst("Authorization") + " " + body);
            String answer = exchange.getRequestURI().getPath().endsWith("/resolve")
                    ? "{\"runId\":\"" + run + "\",\"runStatus\":\"PUBLISHED\",\"changed\":true}"
                    : "{\"dispatchId\":\"" + dispatch + "\",\"status\":\"PENDING\"}";
            byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        stub.start();
        try {
            String url = "http://127.0.0.1:" + stub.getAddress().getPort();
            var resolved = run("resolve", run.toString(), "--as", "PUBLISHED", "--reason", "  snapshot 42 is in the table ",
                    "--ledger", url, "--token-file", tokens.toString());
            assertThat(resolved.exit()).as(resolved.toString()).isZero();
            assertThat(resolved.out()).isEqualTo("Run " + run + " is now PUBLISHED.\n");

            var resent = run("dispatch", "resend", run.toString(), dispatch.toString(), "--ledger", url,
                    "--token-file", tokens.toString(), "--json");
            assertThat(resent.exit()).as(resent.toString()).isZero();
            assertThat(json(resent.out()).get("status").asText()).isEqualTo("PENDING");

            assertThat(seen).containsExactly(
                    "POST /v1/runs/" + run + "/publish-unknown/resolve Bearer " + ledger.operatorToken
                            + " {\"resolution\":\"PUBLISHED\",\"reason\":\"snapshot 42 is in the table\"}",
                    "POST /v1/runs/" + run + "/dispatches/" + dispatch + "/resend Bearer " + ledger.operatorToken + " {}");
        } finally {
            stub.stop(0);
        }
    }
}

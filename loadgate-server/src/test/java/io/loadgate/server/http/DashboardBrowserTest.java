package io.loadgate.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.loadgate.server.testing.Runs;
import io.loadgate.server.testing.TestLedger;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard in a real browser: headless Chromium, driven over the DevTools protocol, loads the page (so the
 * CSP hashes let its script run), takes a viewer token and shows a seeded publish-unknown run in the attention list.
 * Skipped where no Chromium is installed ({@code apt-get install -y chromium}).
 */
class DashboardBrowserTest {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static TestLedger ledger;

    @TempDir
    static Path profile;

    @BeforeAll
    static void start() {
        assumeTrue(Files.isExecutable(CHROMIUM), "no Chromium at " + CHROMIUM);
        ledger = new TestLedger();
    }

    @AfterAll
    static void stop() {
        if (ledger != null) {
            ledger.close();
        }
    }

    @Test
    void aViewerSeesThePublishUnknownRunWithItsCommandsAndDataStaysText() throws Exception {
        String job = "DASH_" + Long.toHexString(System.nanoTime()).toUpperCase();
        String stuck = ledger.post("/v1/runs", Runs.create(job, "2026-11-28")).text("runId");
        ledger.execute("UPDATE loadgate.load_run SET status = 'PUBLISH_UNKNOWN', status_changed_at = now() - "
                + "interval '3 hours' WHERE run_id = '" + stuck + "'");
        String failed = ledger.post("/v1/runs", Runs.create(job, "2026-11-29")).text("runId");
        String hostile = "<img src=x onerror=\"document.title='owned'\"> refused";
        assertThat(ledger.post("/v1/runs/" + failed + "/fail", Map.of("expectedStatus", "CREATED",
                "failStatus", "FAILED_MANIFEST", "errorCode", "SOURCE_DOWN", "message", hostile)).status())
                .isEqualTo(200);

        try (Browser browser = Browser.start(profile)) {
            browser.call("Page.enable", Map.of());
            browser.call("Page.navigate", Map.of("url", ledger.baseUrl() + "/dashboard"));
            // The login form is hidden until the script shows it: visible means the CSP let the script run.
            await().atMost(20, TimeUnit.SECONDS).untilAsserted(() -> assertThat(browser.eval(
                    "document.readyState === 'complete' && !document.getElementById('login').hidden"))
                    .as("the page's script ran").isEqualTo("true"));

            browser.eval("document.getElementById('token').value = " + js(ledger.viewerToken) + ";"
                    + " document.getElementById('login-form').requestSubmit(); 'sent'");
            await().atMost(20, TimeUnit.SECONDS).untilAsserted(() -> assertThat(
                    browser.eval("document.getElementById('attention').textContent"))
                    .contains("PUBLISH UNKNOWN", job + " / 2026-11-28", "for 3h00m",
                            "loadgate resolve " + stuck + " --as PUBLISHED --reason",
                            "loadgate resolve " + stuck + " --as FAILED_PUBLISH --reason",
                            "--ledger " + ledger.baseUrl()));
            assertThat(browser.eval("document.querySelector('#attention .entry').dataset.runId"))
                    .as("publish-unknown comes first").isEqualTo(stuck);
            assertThat(browser.eval("document.getElementById('attention').textContent")).contains(hostile);
            assertThat(browser.eval("String(document.querySelectorAll('#attention img').length) + ' ' + document.title"))
                    .as("a message is shown as text, never run as markup").isEqualTo("0 Loadgate monitor");
            assertThat(browser.eval("location.href")).isEqualTo(ledger.baseUrl() + "/dashboard");

            // A click on the run shows its partitions, dispatches and events.
            browser.eval("document.querySelector('#attention .entry button.link').click(); 'clicked'");
            await().atMost(20, TimeUnit.SECONDS).untilAsserted(() -> assertThat(browser.eval(
                    "document.getElementById('detail').hidden ? '' : document.getElementById('detail').textContent"))
                    .contains("Run " + stuck, "Partitions (0)", "Dispatches (0)", "Events (the last 1)",
                            "RUN_STATUS", "→ CREATED"));

            // A token the ledger no longer accepts brings the prompt back at the next poll.
            browser.eval("sessionStorage.setItem('loadgate.dashboard.token', 'revoked'); 'set'");
            await().atMost(20, TimeUnit.SECONDS).untilAsserted(() -> assertThat(browser.eval(
                    "document.getElementById('login').hidden ? '' : document.getElementById('login-error').textContent"))
                    .contains("refused the token (401)"));
        }
    }

    @Test
    void chartsFromTheLedgerSearchAndTheCardsOfASupersededFailureAndAStuckRun() throws Exception {
        String job = "CHART_" + Long.toHexString(System.nanoTime()).toUpperCase();
        Runs.succeeded(ledger, job, "2026-12-01");
        String superseded = Runs.failedExtract(ledger, job, "2026-12-02");
        String reloaded = Runs.succeeded(ledger, job, "2026-12-02");
        String stuck = Runs.stagingValidated(ledger, job, "2026-12-03");
        Runs.publishing(ledger, stuck);
        // 45 minutes in PUBLISHING: past monitor.stuck_after (30 min), long before publish_stale (2 h).
        ledger.execute("UPDATE loadgate.load_run SET status_changed_at = now() - interval '45 minutes'"
                + " WHERE run_id = '" + stuck + "'");

        // A profile of its own: the other test's browser left its DevToolsActivePort in the shared one.
        try (Browser browser = Browser.start(Files.createDirectories(profile.resolve("charts")))) {
            browser.call("Page.enable", Map.of());
            browser.call("Emulation.setDeviceMetricsOverride", Map.of("width", 1280, "height", 2400,
                    "deviceScaleFactor", 1, "mobile", false));
            browser.call("Page.navigate", Map.of("url", ledger.baseUrl() + "/dashboard"));
            await().atMost(20, TimeUnit.SECONDS).untilAsserted(() -> assertThat(browser.eval(
                    "document.readyState === 'complete' && !document.getElementById('login').hidden"))
                    .isEqualTo("true"));
            assertThat(browser.eval("document.getElementById('login').textContent"))
                    .as("the prompt says where tokens live").contains("$LOADGATE_HOME/tokens", "loadgate token");
            browser.eval("document.getElementById('token').value = " + js(ledger.viewerToken) + ";"
                    + " document.getElementById('login-form').requestSubmit(); 'sent'");

            await().atMost(20, TimeUnit.SECONDS).untilAsserted(() -> assertThat(browser.eval(
                    "document.getElementById('attention').textContent")).contains("STUCK", "LOADED OVER"));
            String stuckCard = "document.querySelector('#attention .entry[data-run-id=\"" + stuck + "\"]')";
            assertThat(browser.eval(stuckCard + ".dataset.kind + ' ' + " + stuckCard + ".className"))
                    .isEqualTo("STUCK_RUN entry urgent");
            assertThat(browser.eval(stuckCard + ".querySelector('.cmd code').textContent"))
                    .as("the fix, as a command").isEqualTo("loadgate runs show " + stuck + " --ledger " + ledger.baseUrl());
            assertThat(browser.eval(stuckCard + ".textContent")).contains("PUBLISHING for", "threshold 00:30:00");
            String quiet = "document.querySelector('#attention .entry[data-run-id=\"" + superseded + "\"]')";
            assertThat(browser.eval(quiet + ".className + ' ' + " + quiet + ".querySelectorAll('.cmd').length"))
                    .as("a superseded failure is quiet and has nothing to run").isEqualTo("entry quiet 0");
            assertThat(browser.eval(quiet + ".textContent")).contains("LOADED OVER", reloaded);

            // The charts draw the ledger's history of this job: two SUCCESS runs of 30 rows and a failure, this hour.
            browser.eval("const s = document.getElementById('history-job'); s.value = " + js(job) + ";"
                    + " s.dispatchEvent(new Event('change')); 'chosen'");
            await().atMost(20, TimeUnit.SECONDS).untilAsserted(() -> assertThat(browser.eval(
                    "['chart-hour', 'chart-day'].map((id) => { const c = document.getElementById(id);"
                            + " return c.querySelectorAll('canvas').length + '/' + c.dataset.rowsRead; }).join(' ')"))
                    .isEqualTo("1/60 1/60"));
            assertThat(browser.eval("document.querySelector('#chart-hour .u-legend').textContent"))
                    .contains("read", "staged", "published", "rejected");
            assertThat(browser.eval("document.getElementById('history-rows').textContent"))
                    .contains("SUCCESS 2", "FAILED_EXTRACT 1", "0.00 %");

            // The search filters by parts of the job and key, and by status.
            browser.eval("document.getElementById('search-job').value = " + js(job.toLowerCase()) + ";"
                    + " document.getElementById('search-key').value = '12-02';"
                    + " document.getElementById('run-search').requestSubmit(); 'searched'");
            await().atMost(20, TimeUnit.SECONDS).untilAsserted(() -> assertThat(browser.eval(
                    "[...document.querySelectorAll('#run-rows tr')].map((r) => r.title).sort().join(' ')"))
                    .isEqualTo(String.join(" ", java.util.stream.Stream.of(superseded, reloaded).sorted().toList())));
            browser.eval("document.getElementById('search-status').value = 'SUCCESS';"
                    + " document.getElementById('run-search').requestSubmit(); 'searched'");
            await().atMost(20, TimeUnit.SECONDS).untilAsserted(() -> assertThat(browser.eval(
                    "[...document.querySelectorAll('#run-rows tr')].map((r) => r.title).join(' ')"))
                    .isEqualTo(reloaded));

            // A run's detail: its validations and its events' details as tables.
            browser.eval("document.querySelector('#run-rows tr').click(); 'clicked'");
            await().atMost(20, TimeUnit.SECONDS).untilAsserted(() -> assertThat(browser.eval(
                    "document.getElementById('metric-rows').textContent")).contains("STAGE_COUNT", "TARGET_COUNT"));
            assertThat(browser.eval("String(document.querySelectorAll('#event-rows table.kv').length > 0)"))
                    .isEqualTo("true");
            assertThat(browser.eval("String(document.getElementById('events').scrollWidth"
                    + " <= document.getElementById('detail').clientWidth)")).as("the events table fits").isEqualTo("true");

            String png = browser.call("Page.captureScreenshot", Map.of("format", "png", "captureBeyondViewport", true))
                    .get("data").asText();
            Path shots = Files.createDirectories(Path.of("target", "screenshots"));
            Files.write(shots.resolve("dashboard.png"), java.util.Base64.getDecoder().decode(png));
            assertThat(shots.resolve("dashboard.png")).isNotEmptyFile();
        }
    }

    private static String js(String text) {
        return Json.write(text);
    }

    /** Just enough of the Chrome DevTools protocol: call a method on the page, evaluate an expression. */
    private static final class Browser implements AutoCloseable {
        private final Process process;
        private final WebSocket socket;
        private final AtomicInteger ids = new AtomicInteger();
        private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();

        private Browser(Process process, WebSocket socket) {
            this.process = process;
            this.socket = socket;
        }

        static Browser start(Path profile) throws Exception {
            Process process = new ProcessBuilder(CHROMIUM.toString(), "--headless=new", "--no-sandbox",
                    "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--remote-allow-origins=*",
                    "--user-data-dir=" + profile, "--remote-debugging-port=0", "about:blank")
                    .redirectErrorStream(true).redirectOutput(profile.resolve("chromium.log").toFile()).start();
            try {
                Path portFile = profile.resolve("DevToolsActivePort");
                await().atMost(30, TimeUnit.SECONDS).until(() -> Files.exists(portFile)
                        && Files.readAllLines(portFile).size() >= 2);
                int port = Integer.parseInt(Files.readAllLines(portFile).get(0).strip());
                HttpClient http = HttpClient.newHttpClient();
                String pageSocket = await().atMost(10, TimeUnit.SECONDS).until(() -> {
                    var targets = Json.MAPPER.readTree(http.send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + port + "/json/list")).build(),
                            HttpResponse.BodyHandlers.ofString()).body());
                    for (JsonNode target : targets) {
                        if ("page".equals(target.path("type").asText())) {
                            return target.get("webSocketDebuggerUrl").asText();
                        }
                    }
                    return null;
                }, url -> url != null);
                Browser[] browser = new Browser[1];
                StringBuilder partial = new StringBuilder();
                WebSocket socket = http.newWebSocketBuilder().buildAsync(URI.create(pageSocket), new WebSocket.Listener() {
                    @Override
                    public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
                        partial.append(data);
                        if (last) {
                            browser[0].received(partial.toString());
                            partial.setLength(0);
                        }
                        ws.request(1);
                        return null;
                    }
                }).get(10, TimeUnit.SECONDS);
                browser[0] = new Browser(process, socket);
                return browser[0];
            } catch (Exception | Error e) {
                process.destroyForcibly();
                throw e;
            }
        }

        private void received(String text) {
            try {
                JsonNode message = Json.MAPPER.readTree(text);
                if (message.has("id")) {
                    CompletableFuture<JsonNode> reply = pending.remove(message.get("id").asInt());
                    if (reply != null) {
                        reply.complete(message);
                    }
                }
            } catch (IOException e) {
                throw new IllegalStateException("DevTools sent something that is not JSON: " + text, e);
            }
        }

        JsonNode call(String method, Map<String, Object> params) throws Exception {
            int id = ids.incrementAndGet();
            CompletableFuture<JsonNode> reply = new CompletableFuture<>();
            pending.put(id, reply);
            socket.sendText(Json.write(Map.of("id", id, "method", method, "params", params)), true)
                    .get(10, TimeUnit.SECONDS);
            JsonNode answer = reply.get(20, TimeUnit.SECONDS);
            assertThat(answer.has("error")).as(method + ": " + answer).isFalse();
            return answer.get("result");
        }

        /** The expression's value as a string; an exception in the page fails the test with its text. */
        String eval(String expression) throws Exception {
            JsonNode result = call("Runtime.evaluate", Map.of("expression", expression, "returnByValue", true));
            assertThat(result.has("exceptionDetails")).as(expression + ": " + result).isFalse();
            return result.path("result").path("value").asText();
        }

        @Override
        public void close() {
            socket.abort();
            process.destroy();
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
    }
}

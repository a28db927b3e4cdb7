package io.loadgate.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.server.testing.TestLedger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code GET /dashboard}: served without a token, locked down by its headers, and calling only real endpoints. */
class DashboardTest {
    @RegisterExtension
    static final TestLedger ledger = new TestLedger();

    private static String page() {
        var response = ledger.send("GET", "/dashboard", null, null);
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        return response.raw().body();
    }

    private static String block(String html, String tag) {
        Matcher m = Pattern.compile("<" + tag + ">(.*?)</" + tag + ">", Pattern.DOTALL).matcher(html);
        assertThat(m.find()).as("a <" + tag + "> block").isTrue();
        return m.group(1);
    }

    private static String sha256(String text) throws Exception {
        return "'sha256-" + Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-256")
                .digest(text.getBytes(StandardCharsets.UTF_8))) + "'";
    }

    @Test
    void thePageIsServedWithoutATokenWithItsSecurityHeaders() throws Exception {
        var response = ledger.send("GET", "/dashboard", null, null);

        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        var headers = response.raw().headers();
        assertThat(headers.firstValue("Content-Type").orElseThrow().replace(" ", "")).isEqualToIgnoringCase("text/html;charset=utf-8");
        assertThat(headers.firstValue("X-Content-Type-Options")).hasValue("nosniff");
        assertThat(headers.firstValue("Cache-Control")).hasValue("no-store");
        assertThat(headers.firstValue("X-Frame-Options")).hasValue("DENY");
        String html = response.raw().body();
        String policy = headers.firstValue("Content-Security-Policy").orElseThrow();
        assertThat(policy).as("only the page's own inline blocks run, and it talks only to its origin")
                .startsWith("default-src 'none'; connect-src 'self'; ")
                .contains("script-src 'self' " + sha256(block(html, "script")) + ";",
                        "style-src 'self' " + sha256(block(html, "style")) + ";", "frame-ancestors 'none'")
                .doesNotContain("unsafe-inline", "unsafe-eval", "*", "http:", "https:");
        assertThat(html).startsWith("<!doctype html>").contains("<title>Loadgate monitor</title>");
    }

    @Test
    void thePageLoadsNothingFromElsewhereAndInsertsDataOnlyAsText() {
        String html = page();

        assertThat(html).as("no external assets: CDNs are unreachable; the chart library is served by the ledger")
                .doesNotContain("http://", "https://", "@import", "url(", "style=\"");
        Matcher links = Pattern.compile("(?:src|href)=\"([^\"]*)\"").matcher(html);
        List<String> assets = new ArrayList<>();
        while (links.find()) {
            assets.add(links.group(1));
        }
        assertThat(assets).containsExactlyInAnyOrder("/dashboard/favicon.svg", "/dashboard/uPlot.min.css",
                "/dashboard/uPlot.min.js");
        for (String asset : assets) {
            var served = ledger.send("GET", asset, null, null);
            assertThat(served.status()).as(asset).isEqualTo(200);
            assertThat(served.raw().headers().firstValue("Content-Type").orElseThrow())
                    .containsAnyOf("svg", "css", "javascript");
        }
        assertThat(html).as("user data never becomes markup")
                .doesNotContain("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function");
        assertThat(html).as("the token goes in a header, kept per tab, never in a URL")
                .contains("sessionStorage", "'Authorization': 'Bearer ' + token")
                .doesNotContain("localStorage", "token=", "?token", "access_token");
    }

    @Test
    void everyApiPathThePageCallsIsARouteThatWantsAToken() {
        String html = page();
        List<String> paths = new ArrayList<>();
        Matcher m = Pattern.compile("'(/v1/[^']*)'").matcher(html);
        while (m.find()) {
            paths.add(m.group(1));
        }
        assertThat(paths).as("the page's API table").containsExactlyInAnyOrder("/v1/monitor/summary",
                "/v1/runs/{runId}", "/v1/runs/{runId}/events", "/v1/runs/{runId}/validations", "/v1/runs",
                "/v1/monitor/history");
        assertThat(html.split("/v1/", -1)).as("no /v1/ path outside that table").hasSize(paths.size() + 1);

        for (String path : paths) {
            String concrete = path.replace("{runId}", UUID.randomUUID().toString());
            var anonymous = ledger.send("GET", concrete, null, null);
            assertThat(anonymous.status()).as(concrete + ": " + anonymous).isEqualTo(401);
            assertThat(anonymous.code()).isEqualTo("UNAUTHENTICATED");
            var viewer = ledger.send("GET", concrete, null, ledger.viewerToken);
            assertThat(viewer.status()).as("a viewer may read " + concrete + ": " + viewer).isIn(200, 404);
            if (viewer.status() == 404) {
                assertThat(viewer.code()).as(viewer.toString()).isEqualTo("RUN_NOT_FOUND");
            }
        }
        // The check above means something: a path that is no route answers 404 even without a token.
        assertThat(ledger.send("GET", "/v1/no-such-thing", null, null).status()).isEqualTo(404);
    }

    @Test
    void thePageAndItsPolicyAreLoadedOnce() {
        var page = DashboardRoutes.load();
        assertThat(new String(page.html(), StandardCharsets.UTF_8)).isEqualTo(page());
        assertThat(ledger.send("GET", "/dashboard", null, null).raw().headers()
                .firstValue("Content-Security-Policy")).hasValue(page.contentSecurityPolicy());
    }
}

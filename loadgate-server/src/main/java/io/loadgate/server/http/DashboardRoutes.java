package io.loadgate.server.http;

import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code GET /dashboard}: the operator's page, one static HTML file with its style and script inline. The page holds
 * no data, so it needs no token; it asks the operator for one and calls the API with it, like any other client.
 */
final class DashboardRoutes {
    static final String PATH = "/dashboard";
    private static final String RESOURCE = "/dashboard/index.html";
    private static final Pattern STYLE = Pattern.compile("<style>(.*?)</style>", Pattern.DOTALL);
    private static final Pattern SCRIPT = Pattern.compile("<script>(.*?)</script>", Pattern.DOTALL);
    private static final String UPLOT = "/META-INF/resources/webjars/uplot/1.6.30/dist/";
    /**
     * The page's own files beside it: its icon and the chart library (uPlot, from its webjar), served from this
     * origin so that the policy needs no other host.
     */
    private static final Map<String, Asset> ASSETS = Map.of(
            PATH + "/favicon.svg", new Asset("/dashboard/favicon.svg", "image/svg+xml"),
            PATH + "/uPlot.min.js", new Asset(UPLOT + "uPlot.iife.min.js", "text/javascript; charset=utf-8"),
            PATH + "/uPlot.min.css", new Asset(UPLOT + "uPlot.min.css", "text/css; charset=utf-8"));

    /** A file of the class path and its content type. */
    private record Asset(String resource, String contentType) {
    }

    private DashboardRoutes() {
    }

    /** The page and the policy that lets exactly its own inline style and script run. */
    record Page(byte[] html, String contentSecurityPolicy) {
    }

    static void register(ApiServer.Routes routes) {
        Page page = load();
        routes.open(PATH, ctx -> serve(ctx, page));
        ASSETS.forEach((path, asset) -> {
            byte[] bytes = read(asset.resource());
            routes.open(path, ctx -> {
                ctx.header("X-Content-Type-Options", "nosniff");
                ctx.header("Cache-Control", "public, max-age=86400");
                ctx.contentType(asset.contentType()).result(bytes);
            });
        });
    }

    private static void serve(Context ctx, Page page) {
        ctx.header("Content-Security-Policy", page.contentSecurityPolicy());
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.header("X-Frame-Options", "DENY");
        ctx.header("Referrer-Policy", "no-referrer");
        ctx.header("Cache-Control", "no-store");
        ctx.contentType("text/html; charset=utf-8").result(page.html());
    }

    /**
     * Reads the page once. Its inline blocks are allowed by their SHA-256 hashes rather than by 'unsafe-inline':
     * should anything ever slip markup into the page, a script it brings does not run.
     */
    static Page load() {
        byte[] html = read(RESOURCE);
        String text = new String(html, StandardCharsets.UTF_8);
        // 'self' admits the chart library and its style sheet, served by this server (ASSETS).
        String policy = "default-src 'none'; connect-src 'self'; script-src 'self' " + hash(SCRIPT, text)
                + "; style-src 'self' " + hash(STYLE, text)
                + "; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
        return new Page(html, policy);
    }

    private static byte[] read(String resource) {
        try (InputStream in = DashboardRoutes.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("the dashboard file " + resource + " is missing from the class path");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the dashboard file " + resource, e);
        }
    }

    private static String hash(Pattern block, String html) {
        Matcher m = block.matcher(html);
        if (!m.find()) {
            throw new IllegalStateException("the dashboard page has no " + block.pattern() + " block");
        }
        String first = m.group(1);
        if (m.find()) {
            throw new IllegalStateException("the dashboard page has more than one " + block.pattern() + " block");
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(first.getBytes(StandardCharsets.UTF_8));
            return "'sha256-" + Base64.getEncoder().encodeToString(digest) + "'";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}

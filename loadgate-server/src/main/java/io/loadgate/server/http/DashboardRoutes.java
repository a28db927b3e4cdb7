package io.loadgate.server.http;

import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
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

    private DashboardRoutes() {
    }

    /** The page and the policy that lets exactly its own inline style and script run. */
    record Page(byte[] html, String contentSecurityPolicy) {
    }

    static void register(ApiServer.Routes routes) {
        Page page = load();
        routes.open(PATH, ctx -> serve(ctx, page));
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
        byte[] html;
        try (InputStream in = DashboardRoutes.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the dashboard page " + RESOURCE + " is missing from the class path");
            }
            html = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the dashboard page " + RESOURCE, e);
        }
        String text = new String(html, StandardCharsets.UTF_8);
        String policy = "default-src 'none'; connect-src 'self'; script-src " + hash(SCRIPT, text)
                + "; style-src " + hash(STYLE, text)
                + "; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
        return new Page(html, policy);
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

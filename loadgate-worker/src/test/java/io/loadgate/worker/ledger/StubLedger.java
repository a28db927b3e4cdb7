package io.loadgate.worker.ledger;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A hand-written HTTP endpoint on loopback that stands where the ledger would: it records every request and
 * answers by a script, so tests can see exactly what the client sent and how it treats answers a real ledger gives
 * only under failure (503, a dropped connection) or endpoints it does not have yet.
 */
final class StubLedger implements AutoCloseable {
    /** One recorded request. */
    record Request(String method, String path, String query, String body, String authorization, String requestId,
                   String idempotencyKey) {
        /** The request as a ledger without the Idempotency-Key extension would see it. */
        Request withoutIdempotencyKey() {
            return new Request(method, path, query, body, authorization, requestId, null);
        }
    }

    /** Decides the answer to the n-th request (1-based). */
    interface Script {
        void answer(int n, HttpExchange exchange, Request request) throws IOException;
    }

    final List<Request> requests = new CopyOnWriteArrayList<>();
    private final HttpServer server;

    StubLedger(Script script) {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        server.createContext("/", exchange -> {
            String body;
            try (InputStream in = exchange.getRequestBody()) {
                body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            Request request = new Request(exchange.getRequestMethod(), exchange.getRequestURI().getPath(),
                    exchange.getRequestURI().getRawQuery(), body,
                    exchange.getRequestHeaders().getFirst("Authorization"),
                    exchange.getRequestHeaders().getFirst("X-Request-Id"),
                    exchange.getRequestHeaders().getFirst("Idempotency-Key"));
            requests.add(request);
            try {
                script.answer(requests.size(), exchange, request);
            } finally {
                exchange.close();
            }
        });
        server.start();
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    static void json(HttpExchange exchange, int status, String json) throws IOException {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    static void error(HttpExchange exchange, int status, String code) throws IOException {
        json(exchange, status, "{\"code\":\"" + code + "\",\"message\":\"stub says " + code
                + "\",\"requestId\":\"stub-1\",\"details\":{}}");
    }

    /** Ends the exchange without an answer, as a ledger that died after reading the request would. */
    static void drop(HttpExchange exchange) {
        // Closing without response headers makes the server close the connection: the client reads nothing.
        exchange.close();
    }

    /** Forwards the request to a real ledger and returns its answer's status and body. */
    static HttpResponse<String> forward(URI ledger, Request request) throws IOException {
        HttpRequest.Builder forward = HttpRequest.newBuilder(URI.create(ledger + request.path()
                        + (request.query() == null ? "" : "?" + request.query())))
                .header("Authorization", request.authorization())
                .header("Content-Type", "application/json");
        if (request.idempotencyKey() != null) {
            forward.header("Idempotency-Key", request.idempotencyKey());
        }
        forward.method(request.method(), request.body().isEmpty() ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(request.body()));
        try {
            return HttpClient.newHttpClient().send(forward.build(), HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}

package io.loadgate.server.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.loadgate.server.http.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.function.ToIntFunction;

/** A real HTTP receiver on loopback standing in for a NiFi flow: records every request, answers what it is told. */
public final class Receiver implements AutoCloseable {
    /** One request as received. */
    public record Request(String path, String runIdHeader, String dispatchIdHeader, JsonNode body, long arrivedNanos) {
        public String dispatchId() {
            return body.get("dispatchId").asText();
        }
    }

    private final HttpServer server;
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private volatile ToIntFunction<Request> answer = request -> 202;

    public Receiver() {
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.setExecutor(Executors.newFixedThreadPool(8));
        server.createContext("/", this::handle);
        server.start();
    }

    /** The status each request gets from now on; the function may also act on the ledger first. */
    public Receiver answer(ToIntFunction<Request> answer) {
        this.answer = answer;
        return this;
    }

    public URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/control");
    }

    public List<Request> requests() {
        return List.copyOf(requests);
    }

    public long countFor(String dispatchId) {
        return requests.stream().filter(r -> r.dispatchId().equals(dispatchId)).count();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String text = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            Request request = new Request(exchange.getRequestURI().getPath(),
                    exchange.getRequestHeaders().getFirst("X-Run-Id"),
                    exchange.getRequestHeaders().getFirst("X-Dispatch-Id"), Json.MAPPER.readTree(text),
                    System.nanoTime());
            requests.add(request);
            int status;
            try {
                status = answer.applyAsInt(request);
            } catch (RuntimeException e) {
                status = 500;
            }
            exchange.sendResponseHeaders(status, -1);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}

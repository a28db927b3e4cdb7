package io.loadgate.worker.metrics;

import static java.util.Objects.requireNonNull;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * A worker's {@code GET /metrics} (Prometheus text) and {@code GET /healthz}, without authentication like the
 * ledger's: the numbers are counts and timings, no data. The JDK's server is enough for a scrape every few seconds
 * and adds no dependency to the worker.
 */
public final class MetricsServer implements AutoCloseable {
    private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

    private final HttpServer server;
    private final ExecutorService executor;

    private MetricsServer(HttpServer server, ExecutorService executor) {
        this.server = requireNonNull(server, "server is null");
        this.executor = requireNonNull(executor, "executor is null");
    }

    /**
     * Listens on {@code address} (port 0 picks a free one: see {@link #address()}).
     *
     * @param unhealthy why the worker cannot work, or empty while it can: {@code /healthz} answers 503 with it
     * @throws IOException when the address cannot be bound, e.g. the port is in use
     */
    public static MetricsServer start(PrometheusMeterRegistry registry, InetSocketAddress address,
                                      Supplier<Optional<String>> unhealthy) throws IOException {
        requireNonNull(registry, "registry is null");
        requireNonNull(address, "address is null");
        requireNonNull(unhealthy, "unhealthy is null");
        HttpServer server = HttpServer.create(address, 0);
        server.createContext("/", exchange -> {
            try (exchange) {
                answer(exchange, registry, unhealthy);
            }
        });
        // One daemon thread: a scrape must never keep the worker process alive, nor compete with steps for threads.
        ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "loadgate-worker-metrics");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.start();
        return new MetricsServer(server, executor);
    }

    private static void answer(HttpExchange exchange, PrometheusMeterRegistry registry,
                               Supplier<Optional<String>> unhealthy) throws IOException {
        String path = exchange.getRequestURI().getPath();
        if (!path.equals("/metrics") && !path.equals("/healthz")) {
            send(exchange, 404, "text/plain; charset=utf-8", "not found: GET /metrics or /healthz\n");
        } else if (!exchange.getRequestMethod().equals("GET")) {
            exchange.getResponseHeaders().set("Allow", "GET");
            send(exchange, 405, "text/plain; charset=utf-8", "only GET\n");
        } else if (path.equals("/metrics")) {
            send(exchange, 200, PROMETHEUS_TEXT, registry.scrape());
        } else {
            Optional<String> problem = unhealthy.get();
            if (problem.isPresent()) {
                send(exchange, 503, "text/plain; charset=utf-8", problem.get() + "\n");
            } else {
                send(exchange, 200, "text/plain; charset=utf-8", "ok");
            }
        }
    }

    private static void send(HttpExchange exchange, int status, String contentType, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    /** Where it listens, with the port actually bound. */
    public InetSocketAddress address() {
        return server.getAddress();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}

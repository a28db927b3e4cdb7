package io.loadgate.chaos;

import static java.util.Objects.requireNonNull;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

/**
 * An HTTP/1.1 proxy between Loadgate's workers and submitters and the ledger, which injects the network's faults on
 * the requests a scenario names: a request that never arrives, an answer lost after the ledger committed, a request
 * delivered twice, a network that goes dark (nothing answers for a while, then every connection is reset), and a
 * ledger host that refuses connections. A fault is armed for a number of matching requests and fires on them only.
 */
final class HttpFaultProxy implements AutoCloseable {
    enum Fault {
        /** The ledger never sees the request; the client's connection is reset. */
        DROP_REQUEST,
        /** The ledger handles the request; its answer is thrown away and the client's connection reset. */
        DROP_ANSWER,
        /**
         * The ledger receives the request twice, one after the other, and the client gets the second delivery's
         * answer: what a middlebox that lost the first answer and retried does.
         */
        DELIVER_TWICE
    }

    private record Rule(String method, Pattern path, Fault fault, AtomicInteger remaining) {
    }

    private record Request(String method, String target, Map<String, String> headers, byte[] body) {
        String path() {
            int query = target.indexOf('?');
            return query < 0 ? target : target.substring(0, query);
        }
    }

    private record Answer(int status, Map<String, List<String>> headers, byte[] body) {
    }

    // Hop-by-hop headers and the ones java.net.http sets itself.
    private static final Set<String> NOT_FORWARDED = Set.of("connection", "content-length", "expect", "host", "upgrade",
            "http2-settings", "keep-alive", "te", "transfer-encoding", "trailer", "proxy-connection");

    private final InetSocketAddress listenAddress;
    private final URI upstream;
    private final HttpClient client;
    private final ExecutorService threads = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "fault-proxy");
        thread.setDaemon(true);
        return thread;
    });
    private final List<Rule> rules = new CopyOnWriteArrayList<>();
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final List<String> fired = new CopyOnWriteArrayList<>();
    private volatile ServerSocket server;
    private volatile long darkUntilNanos = System.nanoTime();

    private HttpFaultProxy(int listenPort, int upstreamPort) throws IOException {
        this.upstream = URI.create("http://127.0.0.1:" + upstreamPort);
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2)).executor(threads).build();
        ServerSocket socket = bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), listenPort));
        this.listenAddress = (InetSocketAddress) socket.getLocalSocketAddress();
        accept(socket);
    }

    /** A proxy on a free loopback port in front of the ledger on {@code upstreamPort}. */
    static HttpFaultProxy start(int upstreamPort) throws IOException {
        return new HttpFaultProxy(0, upstreamPort);
    }

    int port() {
        return listenAddress.getPort();
    }

    /** Injects {@code fault} on the next {@code times} requests whose method and path match. */
    void arm(String method, String pathRegex, Fault fault, int times) {
        rules.add(new Rule(method, Pattern.compile(pathRegex), fault, new AtomicInteger(times)));
    }

    void disarm() {
        rules.clear();
    }

    /** Every fault that fired, in order, with the ledger's answer where there was one. */
    List<String> fired() {
        return List.copyOf(fired);
    }

    void clearFired() {
        fired.clear();
    }

    /**
     * The network drops everything for {@code duration}: requests and answers in flight vanish, new connections
     * are accepted and never answered; when it ends, every connection that was held is reset.
     */
    void goDark(Duration duration) {
        darkUntilNanos = System.nanoTime() + duration.toNanos();
        fired.add("DARK " + duration.toSeconds() + "s");
    }

    /** The ledger's host refuses connections (as when the ledger is down): the listening socket closes. */
    void refuseConnections() throws IOException {
        ServerSocket socket = server;
        server = null;
        if (socket != null) {
            socket.close();
        }
        resetAll();
    }

    void acceptConnections() throws IOException {
        if (server == null) {
            accept(bind(listenAddress));
        }
    }

    @Override
    public void close() throws IOException {
        refuseConnections();
        threads.shutdownNow();
    }

    private static ServerSocket bind(InetSocketAddress address) throws IOException {
        ServerSocket socket = new ServerSocket();
        socket.setReuseAddress(true);
        socket.bind(address, 200);
        return socket;
    }

    private void accept(ServerSocket socket) {
        server = socket;
        threads.execute(() -> {
            while (!socket.isClosed()) {
                try {
                    Socket connection = socket.accept();
                    open.add(connection);
                    threads.execute(() -> serve(connection));
                } catch (IOException e) {
                    return; // closed by refuseConnections or close
                }
            }
        });
    }

    private void serve(Socket socket) {
        try (socket) {
            InputStream in = new BufferedInputStream(socket.getInputStream());
            OutputStream out = socket.getOutputStream();
            while (true) {
                Request request = read(in);
                if (request == null) {
                    return;
                }
                if (holdWhileDark()) {
                    reset(socket);
                    return;
                }
                Fault fault = take(request);
                if (fault == Fault.DROP_REQUEST) {
                    fired.add("DROP_REQUEST " + request.method() + " " + request.path());
                    reset(socket);
                    return;
                }
                Answer answer;
                if (fault == Fault.DELIVER_TWICE) {
                    Answer first = forward(request);
                    answer = forward(request);
                    fired.add("DELIVER_TWICE " + request.method() + " " + request.path() + " -> " + first.status()
                            + ", then " + answer.status() + " (answered)");
                } else {
                    answer = forward(request);
                }
                // An answer that comes back while the network is dark is lost with it.
                if (holdWhileDark()) {
                    reset(socket);
                    return;
                }
                if (fault == Fault.DROP_ANSWER) {
                    fired.add("DROP_ANSWER " + request.method() + " " + request.path() + " -> " + answer.status());
                    reset(socket);
                    return;
                }
                write(out, answer);
            }
        } catch (IOException | RuntimeException e) {
            // The client or the ledger went away: so does this connection.
        } finally {
            open.remove(socket);
        }
    }

    private Fault take(Request request) {
        for (Rule rule : rules) {
            if (rule.method().equalsIgnoreCase(request.method()) && rule.path().matcher(request.path()).matches()
                    && rule.remaining().getAndDecrement() > 0) {
                return rule.fault();
            }
        }
        return null;
    }

    /** True when the network was dark: the caller was held until it came back and must now reset its connection. */
    private boolean holdWhileDark() {
        boolean wasDark = false;
        long left;
        while ((left = darkUntilNanos - System.nanoTime()) > 0) {
            wasDark = true;
            try {
                Thread.sleep(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return true;
            }
        }
        return wasDark;
    }

    private Answer forward(Request request) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(upstream.resolve(request.target()))
                .method(request.method(), request.body().length == 0 && !hasBody(request)
                        ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(request.body()));
        request.headers().forEach((name, value) -> {
            if (!NOT_FORWARDED.contains(name)) {
                builder.header(name, value);
            }
        });
        try {
            HttpResponse<byte[]> response = client.send(builder.build(), HttpResponse.BodyHandlers.ofByteArray());
            return new Answer(response.statusCode(), response.headers().map(), response.body());
        } catch (IOException e) {
            // The ledger is unreachable or reset us: the client sees its connection reset, as it would have.
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static boolean hasBody(Request request) {
        return request.headers().containsKey("content-length") || request.headers().containsKey("transfer-encoding");
    }

    private static void write(OutputStream out, Answer answer) throws IOException {
        StringBuilder head = new StringBuilder("HTTP/1.1 ").append(answer.status()).append(" X\r\n");
        answer.headers().forEach((name, values) -> {
            if (!NOT_FORWARDED.contains(name.toLowerCase(Locale.ROOT)) && !name.startsWith(":")) {
                values.forEach(value -> head.append(name).append(": ").append(value).append("\r\n"));
            }
        });
        head.append("Content-Length: ").append(answer.body().length).append("\r\n\r\n");
        out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
        out.write(answer.body());
        out.flush();
    }

    /** The next request on the connection, or null at its end. Bodies come with Content-Length or chunked. */
    private static Request read(InputStream in) throws IOException {
        String requestLine = line(in);
        while (requestLine != null && requestLine.isEmpty()) {
            requestLine = line(in);
        }
        if (requestLine == null) {
            return null;
        }
        String[] parts = requestLine.split(" ");
        if (parts.length != 3) {
            throw new IOException("not an HTTP request line: " + requestLine);
        }
        Map<String, String> headers = new LinkedHashMap<>();
        for (String header = line(in); header != null && !header.isEmpty(); header = line(in)) {
            int colon = header.indexOf(':');
            headers.put(header.substring(0, colon).trim().toLowerCase(Locale.ROOT), header.substring(colon + 1).trim());
        }
        byte[] body;
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            body = chunked(in);
        } else {
            body = in.readNBytes(Integer.parseInt(headers.getOrDefault("content-length", "0")));
        }
        return new Request(parts[0], parts[1], headers, body);
    }

    private static byte[] chunked(InputStream in) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            String size = requireNonNull(line(in), "chunked body ended early");
            int length = Integer.parseInt(size.split(";")[0].trim(), 16);
            if (length == 0) {
                while (!requireNonNull(line(in), "chunked body ended early").isEmpty()) {
                    // trailers: dropped
                }
                return body.toByteArray();
            }
            body.write(in.readNBytes(length));
            line(in);
        }
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != -1) {
            if (b == '\n') {
                byte[] text = bytes.toByteArray();
                int length = text.length > 0 && text[text.length - 1] == '\r' ? text.length - 1 : text.length;
                return new String(text, 0, length, StandardCharsets.ISO_8859_1);
            }
            bytes.write(b);
        }
        return bytes.size() == 0 ? null : bytes.toString(StandardCharsets.ISO_8859_1);
    }

    private void resetAll() {
        for (Socket socket : new ArrayList<>(open)) {
            reset(socket);
        }
    }

    /** Closes with RST, not FIN: the client sees "connection reset", as when a network path or a host dies. */
    private static void reset(Socket socket) {
        try {
            socket.setSoLinger(true, 0);
            socket.close();
        } catch (IOException e) {
            // already gone
        }
    }
}

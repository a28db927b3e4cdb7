package io.loadgate.worker.target.hive;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback TCP relay in front of HiveServer2's binary Thrift port that loses an answer for real: once a client's
 * requests have held each of {@code markers} but the last, in order (say the INSERT OVERWRITE's text, then
 * {@code GetQueryId}), the next request holding the last one ({@code GetOperationStatus}: the driver's wait for the
 * statement) is not forwarded, and both sockets are closed: the statement runs on, its client gone. Requests are
 * small, so a method name or a statement arrives in one read.
 */
final class CuttingProxy implements AutoCloseable {
    private final ServerSocket server;
    private final int target;
    private final List<String> markers;
    private final AtomicInteger seen = new AtomicInteger();
    private final AtomicBoolean cut = new AtomicBoolean();

    CuttingProxy(int target, List<String> markers) throws IOException {
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.target = target;
        this.markers = List.copyOf(markers);
        Thread accept = new Thread(this::accept, "cutting-proxy");
        accept.setDaemon(true);
        accept.start();
    }

    int port() {
        return server.getLocalPort();
    }

    boolean didCut() {
        return cut.get();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), target);
                relay(client, upstream, true);
                relay(upstream, client, false);
            } catch (IOException e) {
                return;
            }
        }
    }

    private void relay(Socket from, Socket to, boolean requests) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[64 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                    if (requests) {
                        String text = new String(buffer, 0, n, StandardCharsets.ISO_8859_1);
                        int next = seen.get();
                        if (next < markers.size() && text.contains(markers.get(next))) {
                            if (next == markers.size() - 1) {
                                cut.set(true);
                                seen.incrementAndGet();
                                from.close();
                                to.close();
                                return;
                            }
                            seen.incrementAndGet();
                        }
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // One side closed: the other follows.
            } finally {
                close(from);
                close(to);
            }
        }, "cutting-proxy-relay");
        thread.setDaemon(true);
        thread.start();
    }

    private static void close(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // Closed already.
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}

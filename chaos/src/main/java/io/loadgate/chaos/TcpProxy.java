package io.loadgate.chaos;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A byte-for-byte TCP proxy in front of the ledger's PostgreSQL, so that a scenario can make the database
 * unreachable for the ledger alone (the machine's PostgreSQL serves the source and the warehouse too): {@link #cut}
 * resets every connection and refuses new ones for a while.
 */
final class TcpProxy implements AutoCloseable {
    private final ServerSocket server;
    private final InetSocketAddress upstream;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final ExecutorService threads = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "tcp-proxy");
        thread.setDaemon(true);
        return thread;
    });
    private volatile long cutUntilNanos = System.nanoTime();

    TcpProxy(String upstreamHost, int upstreamPort) throws IOException {
        this.upstream = new InetSocketAddress(upstreamHost, upstreamPort);
        this.server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        threads.execute(this::acceptLoop);
    }

    int port() {
        return server.getLocalPort();
    }

    /** Resets every connection through the proxy and refuses (accepts and resets) new ones for {@code duration}. */
    void cut(Duration duration) {
        cutUntilNanos = System.nanoTime() + duration.toNanos();
        for (Socket socket : new ArrayList<>(open)) {
            reset(socket);
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        cut(Duration.ZERO);
        threads.shutdownNow();
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return;
            }
            if (System.nanoTime() - cutUntilNanos < 0) {
                reset(client);
                continue;
            }
            threads.execute(() -> connect(client));
        }
    }

    private void connect(Socket client) {
        Socket target = new Socket();
        try {
            target.connect(upstream, 2_000);
        } catch (IOException e) {
            reset(client);
            reset(target);
            return;
        }
        open.add(client);
        open.add(target);
        threads.execute(() -> pump(client, target));
        threads.execute(() -> pump(target, client));
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[64 * 1024];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            int n;
            while ((n = in.read(buffer)) >= 0) {
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // one side went away
        } finally {
            reset(from);
            reset(to);
        }
    }

    private void reset(Socket socket) {
        open.remove(socket);
        try {
            socket.setSoLinger(true, 0);
            socket.close();
        } catch (IOException e) {
            // already gone
        }
    }
}

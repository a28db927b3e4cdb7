package io.loadgate.ledger.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A TCP proxy on a loopback port in front of a server, which a test can {@link #cut}: every open connection is
 * closed and new ones are accepted and closed at once, as a database that went away would be seen, until
 * {@link #restore}. Or {@link #freeze} it: connections stay open but no byte passes, as a network that drops packets
 * would be seen. The server itself is never touched.
 */
public final class TcpProxy implements AutoCloseable {
    private static final Pattern JDBC_HOST_PORT = Pattern.compile("^(jdbc:[a-z]+://)([^/:]+):(\\d+)(/.*)$");
    /** PostgreSQL's CommandComplete tag of a COMMIT. */
    private static final byte[] COMMIT_COMPLETE = "COMMIT\0".getBytes(StandardCharsets.US_ASCII);

    private final InetSocketAddress target;
    private final ServerSocket listener;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final Set<Socket> parked = ConcurrentHashMap.newKeySet();
    private final Object thaw = new Object();
    private final AtomicInteger refused = new AtomicInteger();
    private final AtomicInteger commitAnswersLost = new AtomicInteger();
    /** While set, the bytes of the statement whose transaction's COMMIT answer is to be lost. */
    private volatile byte[] loseCommitAfter;
    private volatile boolean cut;
    private volatile boolean frozen;
    private volatile boolean closed;

    private TcpProxy(InetSocketAddress target) throws IOException {
        this.target = target;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "tcp-proxy-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** A proxy in front of the host and port of {@code jdbcUrl}; {@link #jdbcUrl} is the URL that goes through it. */
    public static TcpProxy inFrontOf(String jdbcUrl) {
        Matcher m = JDBC_HOST_PORT.matcher(jdbcUrl);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a jdbc:...://host:port/... URL: " + jdbcUrl);
        }
        try {
            return new TcpProxy(new InetSocketAddress(m.group(2), Integer.parseInt(m.group(3))));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code jdbcUrl} with its host and port replaced by the proxy's. */
    public String jdbcUrl(String jdbcUrl) {
        Matcher m = JDBC_HOST_PORT.matcher(jdbcUrl);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a jdbc:...://host:port/... URL: " + jdbcUrl);
        }
        return m.group(1) + "127.0.0.1:" + listener.getLocalPort() + m.group(4);
    }

    /** Closes every connection through the proxy and refuses new ones until {@link #restore}. */
    public void cut() {
        cut = true;
        open.forEach(TcpProxy::closeQuietly);
        open.clear();
    }

    /** Lets no byte through, either way, and leaves new connections unanswered, until {@link #restore}. */
    public void freeze() {
        frozen = true;
    }

    public void restore() {
        cut = false;
        synchronized (thaw) {
            frozen = false;
            thaw.notifyAll();
        }
        parked.forEach(TcpProxy::closeQuietly);
        parked.clear();
    }

    /**
     * Loses the answer to the next COMMIT of a transaction that sent {@code statement} (a piece of its SQL text):
     * the database commits, then the connection is closed before its "COMMIT" reaches the client, which cannot
     * tell whether the transaction landed (a network lost between the two). Once, on one connection; the others, and
     * the connections made after, pass. Only a statement sent as text (not yet a server-prepared statement, which the
     * driver makes of one it ran five times on a connection) is recognised.
     */
    public void loseCommitAnswerAfter(String statement) {
        loseCommitAfter = statement.getBytes(StandardCharsets.UTF_8);
    }

    /** How many COMMIT answers {@link #loseCommitAnswerAfter} lost. */
    public int commitAnswersLost() {
        return commitAnswersLost.get();
    }

    /** How many connections were closed on arrival while the proxy was cut. */
    public int refused() {
        return refused.get();
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return;
            }
            if (cut) {
                refused.incrementAndGet();
                closeQuietly(client);
                continue;
            }
            if (frozen) {
                parked.add(client);
                continue;
            }
            try {
                Socket server = new Socket();
                server.connect(target, 5_000);
                open.add(client);
                open.add(server);
                AtomicBoolean statementSent = new AtomicBoolean();
                pipe(client, server, (buffer, length) -> {
                    byte[] statement = loseCommitAfter;
                    if (statement != null && contains(buffer, length, statement)) {
                        statementSent.set(true);
                    }
                    return true;
                });
                pipe(server, client, (buffer, length) -> {
                    if (statementSent.get() && loseCommitAfter != null && contains(buffer, length, COMMIT_COMPLETE)) {
                        loseCommitAfter = null;
                        commitAnswersLost.incrementAndGet();
                        return false;
                    }
                    return true;
                });
            } catch (IOException e) {
                closeQuietly(client);
            }
        }
    }

    /** Copies {@code from} to {@code to} while {@code pass} allows each read; a refused read closes both. */
    private void pipe(Socket from, Socket to, BiPredicate<byte[], Integer> pass) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    awaitThaw();
                    if (!pass.test(buffer, n)) {
                        break;
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // the other side closed, or the proxy was cut
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
            }
        }, "tcp-proxy-pipe");
        thread.setDaemon(true);
        thread.start();
    }

    private static boolean contains(byte[] bytes, int length, byte[] part) {
        outer:
        for (int i = 0; i + part.length <= length; i++) {
            for (int j = 0; j < part.length; j++) {
                if (bytes[i + j] != part[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private void awaitThaw() throws IOException {
        synchronized (thaw) {
            while (frozen && !closed) {
                try {
                    thaw.wait(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while frozen", e);
                }
            }
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // closing is all that was asked
        }
    }

    @Override
    public void close() {
        closed = true;
        cut();
        restore();
        try {
            listener.close();
        } catch (IOException e) {
            // nothing more to release
        }
    }
}

package io.loadgate.server.dispatch;

import static java.util.Objects.requireNonNull;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * LISTENs on {@code loadgate_dispatch} over a dedicated connection (a pooled one would be handed back and lose its
 * LISTEN) and feeds the {@link NotificationHub}. When the connection drops (a failover, a terminated backend, a
 * network cut) it reconnects with a growing delay and then wakes every waiter, since notifications sent while it
 * was away are gone. An idle connection is probed now and then, because a silently dead socket never errors.
 */
public final class NotificationListener implements AutoCloseable {
    public static final String CHANNEL = "loadgate_dispatch";
    private static final Logger LOG = LoggerFactory.getLogger(NotificationListener.class);
    private static final int RECEIVE_MILLIS = 500;
    private static final Duration PROBE_AFTER = Duration.ofSeconds(10);
    private static final Duration MIN_RECONNECT = Duration.ofMillis(200);
    private static final Duration MAX_RECONNECT = Duration.ofSeconds(10);

    /** Opens the dedicated listening connection. */
    @FunctionalInterface
    public interface ConnectionSource {
        Connection open() throws SQLException;
    }

    private final ConnectionSource source;
    private final NotificationHub hub;
    private final Waiter stopWaiter = new Waiter();
    private final AtomicInteger connects = new AtomicInteger();
    private final Thread thread;
    private volatile boolean stopped;
    private volatile int backendPid = -1;

    private NotificationListener(ConnectionSource source, NotificationHub hub) {
        this.source = requireNonNull(source, "source is null");
        this.hub = requireNonNull(hub, "hub is null");
        this.thread = new Thread(this::run, "loadgate-notify-listener");
        this.thread.setDaemon(true);
    }

    public static NotificationListener start(ConnectionSource source, NotificationHub hub) {
        NotificationListener listener = new NotificationListener(source, hub);
        listener.thread.start();
        return listener;
    }

    /** How many times a listening connection was established (1 after start, more after reconnects). */
    public int connects() {
        return connects.get();
    }

    /** The PostgreSQL backend pid of the current listening connection, or -1 while disconnected. */
    public int backendPid() {
        return backendPid;
    }

    private void run() {
        Duration delay = MIN_RECONNECT;
        while (!stopped) {
            try (Connection connection = source.open()) {
                PGConnection pg = connection.unwrap(PGConnection.class);
                try (Statement statement = connection.createStatement()) {
                    statement.execute("LISTEN " + CHANNEL);
                }
                backendPid = pg.getBackendPID();
                connects.incrementAndGet();
                delay = MIN_RECONNECT;
                // Whatever was inserted while no one listened must be looked at now.
                hub.publishAll();
                receive(connection, pg);
            } catch (Throwable t) {
                backendPid = -1;
                if (stopped) {
                    break;
                }
                LOG.warn("notification listener lost its connection; reconnecting in {} ms: {}", delay.toMillis(),
                        t.toString());
                try {
                    stopWaiter.await(delay);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
                delay = delay.multipliedBy(2).compareTo(MAX_RECONNECT) > 0 ? MAX_RECONNECT : delay.multipliedBy(2);
            }
        }
        backendPid = -1;
    }

    private void receive(Connection connection, PGConnection pg) throws SQLException {
        long idleSince = System.nanoTime();
        while (!stopped) {
            PGNotification[] notifications = pg.getNotifications(RECEIVE_MILLIS);
            if (notifications != null && notifications.length > 0) {
                for (PGNotification notification : notifications) {
                    hub.publish(notification.getParameter());
                }
                idleSince = System.nanoTime();
            } else if (System.nanoTime() - idleSince > PROBE_AFTER.toNanos()) {
                try (Statement statement = connection.createStatement()) {
                    statement.execute("SELECT 1");
                }
                idleSince = System.nanoTime();
            }
        }
    }

    @Override
    public void close() {
        stopped = true;
        stopWaiter.wake();
        try {
            thread.join(Duration.ofSeconds(5).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

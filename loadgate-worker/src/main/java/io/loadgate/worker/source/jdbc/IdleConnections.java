package io.loadgate.worker.source.jdbc;

import static java.util.Objects.requireNonNull;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Source connections kept open between the partitions a process reads, so that the next partition of the same
 * source starts on a server process that is already there. A new PostgreSQL connection cost 16 ms on the bench's
 * machine and its first statements another 7 ms (the new server process loads its catalog caches), against 0.2 ms on
 * a connection that had run them before (bench/RESULTS.md, 2026-12-05).
 *
 * <p>Only a connection its user hands back as clean is kept: its transaction ended and its session reset (what that
 * takes is the source's business, {@link PostgresSnapshotSource}). One taken is checked with
 * {@link Connection#isValid} first, so a session the server ended meanwhile is replaced, never handed out. There is
 * no cap on how many are kept: a process keeps at most as many as it had in use at once, which its threads bound,
 * and each is closed after {@link #IDLE_TIMEOUT} unused.
 */
public final class IdleConnections implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(IdleConnections.class);
    /**
     * Long enough for the next partition of a load, or the next load of a busy worker, to find its connection; short
     * enough that a quiet worker does not hold server sessions for nothing.
     */
    public static final Duration IDLE_TIMEOUT = Duration.ofSeconds(30);
    private static final int VALID_SECONDS = 2;
    private static final IdleConnections NONE = new IdleConnections(Duration.ZERO, Clock.systemUTC());

    /**
     * Which connections are interchangeable: the same URL and the same connection properties, the user's password
     * among them (kept in memory only; {@link #toString} leaves the properties out).
     */
    public record Key(String url, Map<String, String> properties) {
        public Key {
            requireNonNull(url, "url is null");
            properties = Map.copyOf(properties);
        }

        static Key of(String url, Properties properties) {
            Map<String, String> copy = new HashMap<>();
            properties.stringPropertyNames().forEach(name -> copy.put(name, properties.getProperty(name)));
            return new Key(url, copy);
        }

        @Override
        public String toString() {
            return SourceConnections.masked(url);
        }
    }

    private record Idle(Connection connection, Instant since) {
    }

    private final Duration idleTimeout;
    private final Clock clock;
    private final Map<Key, Deque<Idle>> idle = new HashMap<>();
    private ScheduledThreadPoolExecutor evictor;
    private boolean evictionScheduled;
    private boolean closed;

    /** Keeps connections for {@code idleTimeout} unused; {@link Duration#ZERO} keeps none. */
    public IdleConnections(Duration idleTimeout, Clock clock) {
        this.idleTimeout = requireNonNull(idleTimeout, "idleTimeout is null");
        this.clock = requireNonNull(clock, "clock is null");
        if (idleTimeout.isNegative()) {
            throw new IllegalArgumentException("idleTimeout is negative");
        }
    }

    /** The process's pool: each connection kept for {@link #IDLE_TIMEOUT}. */
    public static IdleConnections forProcess() {
        return new IdleConnections(IDLE_TIMEOUT, Clock.systemUTC());
    }

    /** Keeps nothing: every connection taken is new and every one given back is closed (a one-off read). */
    public static IdleConnections none() {
        return NONE;
    }

    /** The most recently kept connection for {@code key} that still answers, else a new one from {@code open}. */
    Connection take(Key key, Supplier<Connection> open) {
        while (true) {
            Idle candidate;
            List<Connection> expired = new ArrayList<>();
            synchronized (this) {
                removeExpired(expired);
                Deque<Idle> kept = idle.get(key);
                candidate = kept == null ? null : kept.pollFirst();
            }
            expired.forEach(IdleConnections::closeQuietly);
            if (candidate == null) {
                return open.get();
            }
            if (answers(candidate.connection())) {
                return candidate.connection();
            }
            LOG.debug("a kept source connection to {} no longer answers; closed", key);
            closeQuietly(candidate.connection());
        }
    }

    /** Keeps {@code connection}, whose transaction has ended and whose session was reset, for the next {@link #take}. */
    void keep(Key key, Connection connection) {
        requireNonNull(connection, "connection is null");
        List<Connection> expired = new ArrayList<>();
        boolean kept = false;
        synchronized (this) {
            if (!closed && !idleTimeout.isZero()) {
                idle.computeIfAbsent(key, k -> new ArrayDeque<>()).addFirst(new Idle(connection, clock.instant()));
                kept = true;
                scheduleEviction(idleTimeout);
            }
            removeExpired(expired);
        }
        if (!kept) {
            closeQuietly(connection);
        }
        expired.forEach(IdleConnections::closeQuietly);
    }

    /** How many connections are kept now, for all keys. */
    synchronized int size() {
        return idle.values().stream().mapToInt(Deque::size).sum();
    }

    /** Closes what is kept; later connections given back are closed at once. */
    @Override
    public void close() {
        List<Connection> all = new ArrayList<>();
        ScheduledThreadPoolExecutor stopping;
        synchronized (this) {
            closed = true;
            idle.values().forEach(kept -> kept.forEach(i -> all.add(i.connection())));
            idle.clear();
            stopping = evictor;
            evictor = null;
        }
        if (stopping != null) {
            stopping.shutdownNow();
        }
        all.forEach(IdleConnections::closeQuietly);
    }

    /** Runs {@link #evict} after {@code delay}, unless it is due already; the thread ends when nothing is due. */
    private void scheduleEviction(Duration delay) {
        if (evictionScheduled) {
            return;
        }
        if (evictor == null) {
            evictor = new ScheduledThreadPoolExecutor(1, r -> {
                Thread thread = new Thread(r, "loadgate-idle-source-connections");
                thread.setDaemon(true);
                return thread;
            });
            evictor.setKeepAliveTime(1, TimeUnit.SECONDS);
            evictor.allowCoreThreadTimeOut(true);
        }
        evictionScheduled = true;
        evictor.schedule(this::evict, Math.max(1, delay.toMillis()), TimeUnit.MILLISECONDS);
    }

    private void evict() {
        List<Connection> expired = new ArrayList<>();
        synchronized (this) {
            evictionScheduled = false;
            removeExpired(expired);
            if (!closed && !idle.isEmpty()) {
                // When the connection kept longest is due.
                Instant oldest = idle.values().stream().map(kept -> kept.peekLast().since()).min(Instant::compareTo)
                        .orElseThrow();
                scheduleEviction(Duration.between(clock.instant(), oldest.plus(idleTimeout)));
            }
        }
        expired.forEach(IdleConnections::closeQuietly);
    }

    /** Moves the connections idle for the timeout or longer into {@code expired}, to be closed outside the lock. */
    private void removeExpired(List<Connection> expired) {
        Instant oldest = clock.instant().minus(idleTimeout);
        for (Iterator<Deque<Idle>> keys = idle.values().iterator(); keys.hasNext(); ) {
            Deque<Idle> kept = keys.next();
            // Newest first: the expired ones are at the end.
            while (!kept.isEmpty() && !kept.peekLast().since().isAfter(oldest)) {
                expired.add(kept.pollLast().connection());
            }
            if (kept.isEmpty()) {
                keys.remove();
            }
        }
    }

    private static boolean answers(Connection connection) {
        try {
            return connection.isValid(VALID_SECONDS);
        } catch (SQLException e) {
            return false;
        }
    }

    private static void closeQuietly(Connection connection) {
        try {
            connection.close();
        } catch (SQLException e) {
            LOG.debug("closing a kept source connection failed", e);
        }
    }
}

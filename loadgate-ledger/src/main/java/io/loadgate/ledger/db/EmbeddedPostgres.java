package io.loadgate.ledger.db;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The default ledger database: PostgreSQL 17 from zonky's linux-amd64 binaries, with its data directory kept
 * under {@code $LOADGATE_HOME/pg} so that runs survive a restart.
 */
public final class EmbeddedPostgres implements AutoCloseable {
    private static final long SHUTDOWN_GRACE_SECONDS = 10;

    private final io.zonky.test.db.postgres.embedded.EmbeddedPostgres postgres;
    private final java.util.concurrent.CountDownLatch closed = new java.util.concurrent.CountDownLatch(1);

    private EmbeddedPostgres(io.zonky.test.db.postgres.embedded.EmbeddedPostgres postgres) {
        this.postgres = postgres;
        // PostgreSQL must stop last, after the pools and listeners that use it, which the process's own shutdown
        // closes in order. Shutdown hooks run all at once, so this one waits for that before stopping it alone.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                if (!closed.await(SHUTDOWN_GRACE_SECONDS, java.util.concurrent.TimeUnit.SECONDS)) {
                    close();
                }
            } catch (InterruptedException e) {
                close();
            }
        }, "loadgate-embedded-postgres-stop"));
    }

    /** Whether a commit waits for its WAL to reach the disk. */
    public enum Durability {
        /** fsync and synchronous commit on: a decision the ledger answered survives an OS crash. */
        DURABLE,
        /** fsync and synchronous commit off: for tests only, whose databases are thrown away. */
        UNSAFE_FOR_TESTS
    }

    /** Starts a {@link Durability#DURABLE} server on {@code dataDirectory}; see {@link #start(Path, int, Durability)}. */
    public static EmbeddedPostgres start(Path dataDirectory, int port) {
        return start(dataDirectory, port, Durability.DURABLE);
    }

    /** Starts on {@code dataDirectory} (created when missing, kept on close); port 0 picks a free port. */
    public static EmbeddedPostgres start(Path dataDirectory, int port, Durability durability) {
        requireNonNull(dataDirectory, "dataDirectory is null");
        requireNonNull(durability, "durability is null");
        refuseIfInUse(dataDirectory);
        if (port > 0 && portTaken(port)) {
            // Else PostgreSQL fails to bind and the library waits for a server that never answers.
            throw new IllegalStateException("port " + port + " for the embedded PostgreSQL is taken by another"
                    + " program: stop it, or set database.embedded_port in $LOADGATE_HOME/loadgate.yaml (or"
                    + " LOADGATE_DATABASE__EMBEDDED_PORT; 0 = any free port)");
        }
        try {
            Files.createDirectories(dataDirectory);
            var builder = io.zonky.test.db.postgres.embedded.EmbeddedPostgres.builder()
                    .setDataDirectory(dataDirectory)
                    .setCleanDataDirectory(false)
                    .setRegisterShutdownHook(false)
                    .setServerConfig("max_connections", "200");
            // The library starts postgres with -F (no fsync) and synchronous_commit=off, its defaults for
            // throw-away test databases. A later -c overrides -F, so these two settings decide.
            String on = durability == Durability.DURABLE ? "on" : "off";
            builder.setServerConfig("fsync", on).setServerConfig("synchronous_commit", on);
            if (port > 0) {
                builder.setPort(port);
            }
            return new EmbeddedPostgres(builder.start());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the embedded PostgreSQL in " + dataDirectory
                    + ": " + e.getMessage(), e);
        }
    }

    /** Two processes on one data directory would corrupt it; PostgreSQL refuses too, but says it less plainly. */
    private static void refuseIfInUse(Path dataDirectory) {
        Path pidFile = dataDirectory.resolve("postmaster.pid");
        try {
            if (!Files.exists(pidFile)) {
                return;
            }
            String first = Files.readAllLines(pidFile).stream().findFirst().orElse("").trim();
            long pid = Long.parseLong(first);
            if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                // The pid file names PostgreSQL itself (pg_ctl detaches it from the Loadgate that started it):
                // killing it would strand whatever that Loadgate is doing, so the message says not to.
                throw new IllegalStateException("the embedded PostgreSQL in " + dataDirectory + " is in use by"
                        + " another Loadgate process (its PostgreSQL is pid " + pid + ": do not kill that one): stop"
                        + " that Loadgate, or talk to it with --ledger");
            }
        } catch (IOException | NumberFormatException e) {
            // An unreadable pid file is PostgreSQL's to judge.
        }
    }

    /** Whether something listens on {@code port} already (on any address: a wildcard bind fails then). */
    public static boolean portTaken(int port) {
        try (java.net.ServerSocket probe = new java.net.ServerSocket(port)) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    public int port() {
        return postgres.getPort();
    }

    public String jdbcUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port() + "/" + database;
    }

    public String user() {
        return "postgres";
    }

    /** Creates {@code database} unless it exists already. */
    public void ensureDatabase(String database) {
        if (!database.matches("[a-z_][a-z0-9_]*")) {
            throw new IllegalArgumentException("invalid database name: " + database);
        }
        try (Connection c = postgres.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            var rs = s.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + database + "'");
            if (!rs.next()) {
                s.execute("CREATE DATABASE " + database);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + database + ": " + e.getMessage(), e);
        }
    }

    @Override
    public synchronized void close() {
        if (closed.getCount() == 0) {
            return;
        }
        try {
            postgres.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            closed.countDown();
        }
    }
}

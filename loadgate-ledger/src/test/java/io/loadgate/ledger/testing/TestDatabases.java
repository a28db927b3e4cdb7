package io.loadgate.ledger.testing;

import io.loadgate.ledger.db.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A fresh, empty PostgreSQL database for a test: on the machine's server at 127.0.0.1:5432 when one answers
 * (trust auth, user postgres), else on an embedded PostgreSQL started once per JVM.
 *
 * <p>On the machine's server the databases would outlive the tests, so each name carries the JVM's pid: the JVM
 * drops its own at exit (a failed test too), and the first use in a JVM drops those of JVMs that died without
 * exiting (killed, out of memory). A database of a JVM that is alive is never touched: tests of other builds may
 * be using it.
 */
public final class TestDatabases {
    private static final String LOCAL_ADMIN_URL = "jdbc:postgresql://127.0.0.1:5432/postgres";
    static final String PREFIX = "lg_test_";
    private static final Pattern NAME = Pattern.compile(PREFIX + "([0-9]+)_[0-9a-f]{8}");
    private static final String LEGACY_OLDER_THAN_A_DAY = """
            SELECT datname FROM pg_database
            WHERE datname ~ '^lg_test_[0-9a-f]{12}$'
              AND (pg_stat_file('base/' || oid || '/PG_VERSION', true)).modification < now() - interval '1 day'
            """;
    private static final List<String> created = new ArrayList<>();
    private static Server server;

    private TestDatabases() {
    }

    /** A connection target for a new database of its own. */
    public record TestDatabase(String jdbcUrl, String user, String password, String name) {
        public Connection connect() throws SQLException {
            return DriverManager.getConnection(jdbcUrl, user, password);
        }
    }

    public static synchronized TestDatabase create() {
        Server s = server();
        String name = PREFIX + ProcessHandle.current().pid() + "_"
                + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        try (Connection c = DriverManager.getConnection(s.adminUrl, "postgres", "");
             Statement st = c.createStatement()) {
            st.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create test database: " + e.getMessage(), e);
        }
        created.add(name);
        return new TestDatabase(s.urlPrefix + name, "postgres", "", name);
    }

    private static Server server() {
        if (server != null) {
            return server;
        }
        if (!"true".equals(System.getenv("LOADGATE_TEST_EMBEDDED")) && localServerAnswers()) {
            server = new Server(LOCAL_ADMIN_URL, "jdbc:postgresql://127.0.0.1:5432/");
            Thread sweep = new Thread(TestDatabases::dropAbandoned, "lg-test-databases-sweep");
            sweep.setDaemon(true);
            sweep.start();
            Runtime.getRuntime().addShutdownHook(new Thread(TestDatabases::dropCreated, "lg-test-databases-drop"));
        } else {
            // The embedded server and its databases go with the JVM's temporary directory.
            try {
                Path dir = Files.createTempDirectory("loadgate-test-pg");
                EmbeddedPostgres pg = EmbeddedPostgres.start(dir, 0, EmbeddedPostgres.Durability.UNSAFE_FOR_TESTS);
                server = new Server(pg.jdbcUrl("postgres"), "jdbc:postgresql://127.0.0.1:" + pg.port() + "/");
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
        }
        return server;
    }

    /** Drops the test databases of JVMs that are no longer running; returns their names. */
    static List<String> dropAbandoned() {
        List<String> abandoned = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(server().adminUrl, "postgres", "");
             Statement st = c.createStatement();
             var rs = st.executeQuery("SELECT datname FROM pg_database WHERE datname LIKE 'lg\\_test\\_%'")) {
            while (rs.next()) {
                Matcher m = NAME.matcher(rs.getString(1));
                if (m.matches() && ProcessHandle.of(Long.parseLong(m.group(1))).isEmpty()) {
                    abandoned.add(rs.getString(1));
                }
            }
            // Names from before the pid was in them (lg_test_ and 12 hex digits) say nothing of their JVM, but no
            // test runs for a day: their directory's age tells.
            try (var old = st.executeQuery(LEGACY_OLDER_THAN_A_DAY)) {
                while (old.next()) {
                    abandoned.add(old.getString(1));
                }
            }
        } catch (SQLException e) {
            // Leftovers are a nuisance, not a test failure.
            System.err.println("could not list abandoned test databases: " + e.getMessage());
        }
        drop(abandoned, Duration.ofMinutes(5));
        return abandoned;
    }

    private static void dropCreated() {
        List<String> names;
        synchronized (TestDatabases.class) {
            names = List.copyOf(created);
        }
        // Surefire kills a JVM that has not exited 30 s after its tests. A DROP sent by then completes without us
        // (the server finishes a statement whose client went away); one not sent is the next test JVM's to drop.
        drop(names, Duration.ofSeconds(20));
    }

    /**
     * Drops the databases at once, each on its own connection: a DROP DATABASE waits for a checkpoint (seconds on
     * a busy server), and concurrent drops share one. FORCE, because pools the tests did not close still hold
     * connections.
     */
    private static void drop(List<String> names, Duration budget) {
        if (names.isEmpty()) {
            return;
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(names.size(), 32), r -> {
            Thread t = new Thread(r, "lg-test-database-drop");
            t.setDaemon(true);
            return t;
        });
        for (String name : names) {
            pool.execute(() -> {
                try (Connection c = DriverManager.getConnection(server.adminUrl, "postgres", "");
                     Statement st = c.createStatement()) {
                    st.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
                } catch (SQLException e) {
                    System.err.println("could not drop test database " + name + ": " + e.getMessage());
                }
            });
        }
        pool.shutdown();
        try {
            pool.awaitTermination(budget.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static boolean localServerAnswers() {
        DriverManager.setLoginTimeout(2);
        try (Connection c = DriverManager.getConnection(LOCAL_ADMIN_URL, "postgres", "")) {
            return c.isValid(2);
        } catch (SQLException e) {
            return false;
        }
    }

    private record Server(String adminUrl, String urlPrefix) {
    }
}

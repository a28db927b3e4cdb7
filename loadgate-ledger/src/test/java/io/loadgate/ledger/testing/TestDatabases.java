package io.loadgate.ledger.testing;

import io.loadgate.ledger.db.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
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
            dropAbandoned();
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
    static synchronized List<String> dropAbandoned() {
        List<String> dropped = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(server().adminUrl, "postgres", "");
             Statement st = c.createStatement()) {
            List<String> names = new ArrayList<>();
            try (var rs = st.executeQuery("SELECT datname FROM pg_database WHERE datname LIKE 'lg\\_test\\_%'")) {
                while (rs.next()) {
                    names.add(rs.getString(1));
                }
            }
            for (String name : names) {
                Matcher m = NAME.matcher(name);
                if (m.matches() && ProcessHandle.of(Long.parseLong(m.group(1))).isEmpty()) {
                    st.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
                    dropped.add(name);
                }
            }
        } catch (SQLException e) {
            // Leftovers are a nuisance, not a test failure.
            System.err.println("could not drop abandoned test databases: " + e.getMessage());
        }
        return dropped;
    }

    private static synchronized void dropCreated() {
        // FORCE: pools the tests did not close still hold connections at exit.
        try (Connection c = DriverManager.getConnection(server.adminUrl, "postgres", "");
             Statement st = c.createStatement()) {
            for (String name : created) {
                st.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            }
        } catch (SQLException e) {
            System.err.println("could not drop the test databases " + created + ": " + e.getMessage());
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

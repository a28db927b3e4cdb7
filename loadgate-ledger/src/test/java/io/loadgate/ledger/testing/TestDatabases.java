package io.loadgate.ledger.testing;

import io.loadgate.ledger.db.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * A fresh, empty PostgreSQL database for a test: on the machine's server at 127.0.0.1:5432 when one answers
 * (trust auth, user postgres), else on an embedded PostgreSQL started once per JVM.
 */
public final class TestDatabases {
    private static final String LOCAL_ADMIN_URL = "jdbc:postgresql://127.0.0.1:5432/postgres";
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
        String name = "lg_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try (Connection c = DriverManager.getConnection(s.adminUrl, "postgres", "");
             Statement st = c.createStatement()) {
            st.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create test database: " + e.getMessage(), e);
        }
        return new TestDatabase(s.urlPrefix + name, "postgres", "", name);
    }

    private static Server server() {
        if (server != null) {
            return server;
        }
        if (!"true".equals(System.getenv("LOADGATE_TEST_EMBEDDED")) && localServerAnswers()) {
            server = new Server(LOCAL_ADMIN_URL, "jdbc:postgresql://127.0.0.1:5432/");
        } else {
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

package io.loadgate.cli;

import io.loadgate.server.LoadgateHome;
import io.loadgate.server.config.ConfigException;
import io.loadgate.server.config.ConfigLoader;
import io.loadgate.server.config.LoadgateConfig;
import io.loadgate.worker.publish.CatalogConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The lakehouse catalog of the ledger on {@code $LOADGATE_HOME}: the default Iceberg catalog of a worker or submitter
 * beside that ledger, the one {@code loadgate run} publishes to without {@code --ledger}. With a configured database
 * it is that database (as {@link LocalLoadgate} has it); with the embedded one, its {@code lakehouse} database, found
 * through the port the running PostgreSQL writes to its pid file. Nothing when the home has no configuration, or its
 * embedded PostgreSQL is not running: then only {@code --catalog} or the job's {@code target.catalog} says where.
 */
final class HomeLakehouse {
    private static final String DATABASE = "lakehouse";
    // postmaster.pid: pid, data directory, start time, port, ... (PostgreSQL's documented layout, one per line).
    private static final int PID_LINE = 0;
    private static final int PORT_LINE = 3;

    private HomeLakehouse() {
    }

    static Optional<CatalogConfig> find(Map<String, String> environment, Path warehouse) {
        Path home = ConfigLoader.home(environment);
        Path configFile = new LoadgateHome(home).configFile();
        if (!Files.isRegularFile(configFile)) {
            return Optional.empty();
        }
        LoadgateConfig config;
        try {
            config = ConfigLoader.load(Optional.of(configFile), environment);
        } catch (ConfigException e) {
            throw new CliException(configFile + ": " + e.getMessage(), LedgerOptions.EXIT_USAGE);
        }
        if (config.database().url().isPresent()) {
            return Optional.of(CatalogConfig.jdbc(config.database().url().get(), config.database().user(),
                    config.database().password(), warehouse));
        }
        return embeddedPort(home.resolve("pg")).map(port -> {
            String server = "jdbc:postgresql://127.0.0.1:" + port + "/";
            ensureDatabase(server);
            return CatalogConfig.jdbc(server + DATABASE, "postgres", "", warehouse);
        });
    }

    /** The port of the embedded PostgreSQL running on {@code dataDirectory}, if one is. */
    private static Optional<Integer> embeddedPort(Path dataDirectory) {
        try {
            List<String> lines = Files.readAllLines(dataDirectory.resolve("postmaster.pid"));
            long pid = Long.parseLong(lines.get(PID_LINE).trim());
            if (!ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                return Optional.empty();
            }
            return Optional.of(Integer.parseInt(lines.get(PORT_LINE).trim()));
        } catch (IOException | RuntimeException e) {
            // No pid file (not running) or one being written: no lakehouse to default to right now.
            return Optional.empty();
        }
    }

    /** {@code loadgate run} without {@code --ledger} creates it too; whoever comes first does. */
    private static void ensureDatabase(String server) {
        try (Connection c = DriverManager.getConnection(server + "postgres", "postgres", "");
             Statement s = c.createStatement()) {
            var rs = s.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + DATABASE + "'");
            if (!rs.next()) {
                s.execute("CREATE DATABASE " + DATABASE);
            }
        } catch (SQLException e) {
            // Another process creating it at the same moment loses nothing; anything else shows at the catalog's open.
            org.slf4j.LoggerFactory.getLogger(HomeLakehouse.class).debug("cannot ensure the lakehouse database", e);
        }
    }
}

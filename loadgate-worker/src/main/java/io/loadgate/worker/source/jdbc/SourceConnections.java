package io.loadgate.worker.source.jdbc;

import io.loadgate.worker.job.SourceSpec;
import io.loadgate.worker.source.SourceException;
import io.loadgate.worker.source.SourceUnavailableException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Opening and closing source connections, and the one-line texts of their failures. */
public final class SourceConnections {
    private static final Logger LOG = LoggerFactory.getLogger(SourceConnections.class);

    private SourceConnections() {
    }

    /**
     * Connects with the spec's user and the password its variable holds ({@link io.loadgate.worker.job.JobSpecException}
     * when unset); {@code driverProperties} adds driver-specific settings such as timeouts.
     */
    static Connection open(SourceSpec source, Map<String, String> environment, Properties driverProperties) {
        return open(source, properties(source, environment, driverProperties));
    }

    /** What {@link #open} connects with: {@code driverProperties}, the spec's user and the password its variable holds. */
    static Properties properties(SourceSpec source, Map<String, String> environment, Properties driverProperties) {
        Properties properties = new Properties();
        properties.putAll(driverProperties);
        if (source.user() != null) {
            properties.setProperty("user", source.user());
        }
        String password = source.resolvePassword(environment);
        if (password != null) {
            properties.setProperty("password", password);
        }
        return properties;
    }

    /** Connects to the spec's URL with {@code properties} as {@link #properties} made them. */
    static Connection open(SourceSpec source, Properties properties) {
        try {
            return DriverManager.getConnection(JdbcUrls.forDriver(source.jdbcUrl()), properties);
        } catch (SQLException e) {
            String message = "cannot connect to " + masked(source.jdbcUrl()) + ": " + firstLine(e.getMessage());
            throw SourceUnavailableException.isUnavailable(e) ? new SourceUnavailableException(message, e)
                    : new SourceException(message, e);
        }
    }

    public static String masked(String jdbcUrl) {
        return jdbcUrl.replaceAll("(?i)(password=)[^&;]*", "$1***");
    }

    static String firstLine(String message) {
        if (message == null) {
            return "no message";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

    /**
     * Whether {@code address} is this host's: a loopback address, the wildcard, or one of its interfaces'. An IP
     * literal (as PostgreSQL prints one) needs no lookup; a name is looked up, and one that does not resolve is not.
     */
    static boolean isLocalAddress(String address) {
        try {
            InetAddress inet = InetAddress.getByName(address);
            return inet.isLoopbackAddress() || inet.isAnyLocalAddress() || NetworkInterface.getByInetAddress(inet) != null;
        } catch (IOException e) {
            return false;
        }
    }

    /** Rolls back and closes; a connection that is already broken only needs closing. */
    static void closeQuietly(Connection connection) {
        try {
            if (!connection.getAutoCommit()) {
                connection.rollback();
            }
        } catch (SQLException ignored) {
            // Broken already: closing below is all that is left to do.
        }
        try {
            connection.close();
        } catch (SQLException e) {
            LOG.debug("closing a source connection failed", e);
        }
    }
}

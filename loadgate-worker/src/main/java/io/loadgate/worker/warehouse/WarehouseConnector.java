package io.loadgate.worker.warehouse;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.job.WarehouseSpec;
import io.loadgate.worker.source.jdbc.JdbcUrls;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;

/**
 * Opens connections to a job's warehouse, in the dialect its URL names; one per publish or validation, which are
 * rare and long.
 */
public record WarehouseConnector(WarehouseDialect dialect, Opener opener) {
    public WarehouseConnector {
        requireNonNull(dialect, "dialect is null");
        requireNonNull(opener, "opener is null");
    }

    public static WarehouseConnector of(WarehouseSpec spec, Map<String, String> environment) {
        String password = spec.resolvePassword(environment);
        WarehouseDialect dialect = WarehouseDialect.of(spec.jdbcUrl());
        String url = JdbcUrls.forDriver(spec.jdbcUrl());
        return new WarehouseConnector(dialect, () -> DriverManager.getConnection(url, spec.user(), password));
    }

    /** A connection with the dialect's session settings applied. */
    public Connection connect() throws SQLException {
        Connection connection = opener.open();
        try {
            dialect.beginSession(connection);
        } catch (SQLException | RuntimeException e) {
            connection.close();
            throw e;
        }
        return connection;
    }

    @FunctionalInterface
    public interface Opener {
        Connection open() throws SQLException;
    }
}

package io.loadgate.worker.warehouse;

import io.loadgate.worker.job.WarehouseSpec;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;

/** Opens a connection to a job's warehouse; one per publish or validation, which are rare and long. */
@FunctionalInterface
public interface WarehouseConnector {
    Connection connect() throws SQLException;

    static WarehouseConnector of(WarehouseSpec spec, Map<String, String> environment) {
        String password = spec.resolvePassword(environment);
        return () -> DriverManager.getConnection(spec.jdbcUrl(), spec.user(), password);
    }
}

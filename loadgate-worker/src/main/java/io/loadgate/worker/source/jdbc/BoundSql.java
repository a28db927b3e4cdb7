package io.loadgate.worker.source.jdbc;

import static java.util.Objects.requireNonNull;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/** A statement and its parameters in the order of their {@code ?} markers. */
public record BoundSql(String sql, List<Object> parameters) {
    public BoundSql {
        requireNonNull(sql, "sql is null");
        parameters = List.copyOf(parameters);
    }

    PreparedStatement prepare(Connection connection) throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql);
        try {
            for (int i = 0; i < parameters.size(); i++) {
                statement.setObject(i + 1, parameters.get(i));
            }
            return statement;
        } catch (SQLException | RuntimeException e) {
            statement.close();
            throw e;
        }
    }
}

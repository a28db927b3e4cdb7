package io.loadgate.ledger.db;

import static java.util.Objects.requireNonNull;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * The ledger's only way into PostgreSQL: every decision runs inside {@link #inTransaction}, which retries the
 * whole transaction on deadlock (40P01) and serialization failure (40001), as the API contract requires.
 */
public final class Database {
    private static final int ATTEMPTS = 3;

    private final DataSource dataSource;

    public Database(DataSource dataSource) {
        this.dataSource = requireNonNull(dataSource, "dataSource is null");
    }

    public DataSource dataSource() {
        return dataSource;
    }

    public <T> T inTransaction(TransactionBody<T> body) {
        for (int attempt = 1; ; attempt++) {
            try (Connection connection = dataSource.getConnection()) {
                connection.setAutoCommit(false);
                try {
                    T result = body.run(new Tx(connection));
                    connection.commit();
                    return result;
                } catch (Throwable failure) {
                    rollbackQuietly(connection, failure);
                    throw failure;
                }
            } catch (SQLException e) {
                if (isRetryable(e) && attempt < ATTEMPTS) {
                    continue;
                }
                throw DatabaseException.from(e);
            }
        }
    }

    /** True when the database answers a trivial query; used by readiness. */
    public boolean isReachable() {
        try (Connection connection = dataSource.getConnection()) {
            return connection.isValid(2);
        } catch (SQLException e) {
            return false;
        }
    }

    private static boolean isRetryable(SQLException e) {
        String state = e.getSQLState();
        return "40P01".equals(state) || "40001".equals(state);
    }

    private static void rollbackQuietly(Connection connection, Throwable failure) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
    }

    @FunctionalInterface
    public interface TransactionBody<T> {
        T run(Tx tx) throws SQLException;
    }
}

package io.loadgate.ledger.db;

import java.sql.SQLException;

/** Carries a {@link SQLException} out of lambdas inside a transaction body; unwrapped by {@link Database}. */
public final class UncheckedSqlException extends RuntimeException {
    public UncheckedSqlException(SQLException cause) {
        super(cause);
    }

    @Override
    public synchronized SQLException getCause() {
        return (SQLException) super.getCause();
    }
}

package io.loadgate.ledger.db;

import java.sql.SQLException;

/**
 * A database failure that is not the caller's fault. {@link #unavailable()} tells the HTTP layer to answer
 * 503 DATABASE_UNAVAILABLE rather than 500.
 */
public final class DatabaseException extends RuntimeException {
    private final boolean unavailable;

    private DatabaseException(String message, SQLException cause, boolean unavailable) {
        super(message, cause);
        this.unavailable = unavailable;
    }

    static DatabaseException from(SQLException e) {
        String state = e.getSQLState();
        // Class 08 is a connection failure; Hikari reports a pool timeout with no state at all.
        boolean unavailable = state == null || state.startsWith("08") || state.startsWith("57P");
        return new DatabaseException(e.getMessage(), e, unavailable);
    }

    public boolean unavailable() {
        return unavailable;
    }

    public String sqlState() {
        return ((SQLException) getCause()).getSQLState();
    }
}

package io.loadgate.worker.source;

import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;

/**
 * The source did not answer, or refused connections for now (down, starting, full): unlike the rest of
 * {@link SourceException}, retrying later may succeed without changing the job.
 */
public final class SourceUnavailableException extends SourceException {
    public SourceUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * True for a failure to connect that is the server's state, not the job's: SQLSTATE class 08 (no connection),
     * 53300 (too many connections), 57P01..57P03 (shutting down, starting up). A refused password (28), a missing
     * database (3D) or a bad URL are the job's to fix.
     */
    public static boolean isUnavailable(SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        return e instanceof SQLTransientConnectionException || e instanceof SQLRecoverableException
                || state.startsWith("08") || state.equals("53300") || state.matches("57P0[1-3]");
    }
}

package io.loadgate.worker.warehouse;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.warehouse.WarehouseDialect.KeyLock;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Takes a business key's rows out of a warehouse table, in one transaction that deletes exactly the rows counted
 * beforehand: if a run published the key in between, the counts differ and nothing is deleted.
 */
public final class WarehouseRollback {
    private final WarehouseConnector connector;

    public WarehouseRollback(WarehouseConnector connector) {
        this.connector = requireNonNull(connector, "connector is null");
    }

    /** The key's rows in {@code table} ({@code schema.table}), or -1 when the table does not exist. */
    public long rows(String table, String businessKeyColumn, String businessKey) throws SQLException {
        String[] parts = table.split("\\.");
        WarehouseDialect dialect = connector.dialect();
        try (Connection connection = connector.connect()) {
            if (!dialect.exists(connection, parts[0], parts[1])) {
                return -1;
            }
            try (PreparedStatement count = connection.prepareStatement("SELECT count(*) FROM "
                    + dialect.qualified(parts[0], parts[1]) + " WHERE " + predicate(connection, parts, businessKeyColumn))) {
                count.setString(1, businessKey);
                try (ResultSet rs = count.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        }
    }

    /** What {@link #delete} returned, as messages name it. */
    public String describe(long ref) {
        return connector.dialect().describeRollback(ref);
    }

    /**
     * Deletes the key's rows when there are exactly {@code expectedRows} of them.
     *
     * @return what identifies the deleting transaction: its id in PostgreSQL, the session's id in MariaDB/MySQL
     *     (which have no transaction id a client reads reliably)
     * @throws IllegalStateException when the table holds another number of rows for the key (nothing deleted)
     */
    public long delete(String table, String businessKeyColumn, String businessKey, long expectedRows) throws SQLException {
        String[] parts = table.split("\\.");
        WarehouseDialect dialect = connector.dialect();
        try (Connection connection = connector.connect()) {
            connection.setAutoCommit(false);
            KeyLock lock = dialect.lockBusinessKey(connection, table, businessKey);
            try {
                long ref = dialect.rollbackRef(connection);
                try (PreparedStatement delete = connection.prepareStatement("DELETE FROM "
                        + dialect.qualified(parts[0], parts[1]) + " WHERE " + predicate(connection, parts, businessKeyColumn))) {
                    delete.setString(1, businessKey);
                    int deleted = delete.executeUpdate();
                    if (deleted != expectedRows) {
                        connection.rollback();
                        throw new IllegalStateException("the table held " + deleted + " rows of " + businessKey
                                + ", not the " + expectedRows + " counted before; nothing deleted");
                    }
                }
                connection.commit();
                return ref;
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly(connection, e);
                throw e;
            } finally {
                // After COMMIT or ROLLBACK, as the lock may belong to the session rather than the transaction.
                lock.release();
            }
        }
    }

    private static void rollbackQuietly(Connection connection, Exception failure) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            // The server rolls back a transaction whose connection is gone.
            failure.addSuppressed(e);
        }
    }

    private String predicate(Connection connection, String[] parts, String column) throws SQLException {
        WarehouseDialect dialect = connector.dialect();
        String type = dialect.columnType(connection, parts[0], parts[1], column);
        if (type == null) {
            throw new IllegalStateException("table " + dialect.qualified(parts[0], parts[1])
                    + " does not exist or has no column " + column);
        }
        return dialect.businessKeyPredicate(column, type);
    }
}

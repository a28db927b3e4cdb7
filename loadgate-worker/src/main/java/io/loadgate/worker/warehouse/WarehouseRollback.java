package io.loadgate.worker.warehouse;

import static java.util.Objects.requireNonNull;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

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
        try (Connection connection = connector.connect()) {
            if (!WarehousePublisher.exists(connection, parts[0], parts[1])) {
                return -1;
            }
            try (PreparedStatement count = connection.prepareStatement("SELECT count(*) FROM " + qualified(parts)
                    + " WHERE " + predicate(connection, parts, businessKeyColumn))) {
                count.setString(1, businessKey);
                try (ResultSet rs = count.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        }
    }

    /**
     * Deletes the key's rows when there are exactly {@code expectedRows} of them.
     *
     * @return the id of the transaction that deleted them
     * @throws IllegalStateException when the table holds another number of rows for the key (nothing deleted)
     */
    public long delete(String table, String businessKeyColumn, String businessKey, long expectedRows) throws SQLException {
        String[] parts = table.split("\\.");
        try (Connection connection = connector.connect()) {
            connection.setAutoCommit(false);
            WarehousePublisher.lockBusinessKey(connection, table, businessKey);
            long txid;
            try (Statement statement = connection.createStatement();
                 ResultSet rs = statement.executeQuery("SELECT txid_current()")) {
                rs.next();
                txid = rs.getLong(1);
            }
            try (PreparedStatement delete = connection.prepareStatement("DELETE FROM " + qualified(parts)
                    + " WHERE " + predicate(connection, parts, businessKeyColumn))) {
                delete.setString(1, businessKey);
                int deleted = delete.executeUpdate();
                if (deleted != expectedRows) {
                    connection.rollback();
                    throw new IllegalStateException("the table held " + deleted + " rows of " + businessKey
                            + ", not the " + expectedRows + " counted before; nothing deleted");
                }
            }
            connection.commit();
            return txid;
        }
    }

    private static String predicate(Connection connection, String[] parts, String column) throws SQLException {
        String type = WarehouseReader.businessKeyType(connection, qualified(parts), column);
        return WarehouseTable.quote(column) + " = CAST(? AS " + type + ")";
    }

    private static String qualified(String[] parts) {
        return WarehouseTable.quote(parts[0]) + "." + WarehouseTable.quote(parts[1]);
    }
}

package io.loadgate.worker.warehouse;

import static java.util.Objects.requireNonNull;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads a warehouse table for {@code loadgate table}: its columns in the database's types, its rows per business
 * key, a sample, and the publishes its {@value WarehouseTable#MARKER_TABLE} markers record. Plain queries, read
 * committed: what any reader of the table sees now.
 */
public final class WarehouseTableReader {
    private final WarehouseConnector connector;

    public WarehouseTableReader(WarehouseConnector connector) {
        this.connector = requireNonNull(connector, "connector is null");
    }

    /** A column as the database names its type. */
    public record Column(String name, String type) {
    }

    /** One publish marker of the table. */
    public record Publish(String publishToken, String runId, String businessKey, long rows, Instant committedAt) {
    }

    /** The columns, in table order; empty when the table ({@code schema.table}) does not exist. */
    public Optional<List<Column>> columns(String table) throws SQLException {
        String[] parts = parts(table);
        try (Connection connection = connector.connect()) {
            if (!connector.dialect().exists(connection, parts[0], parts[1])) {
                return Optional.empty();
            }
            try (PreparedStatement select = connection.prepareStatement("SELECT * FROM "
                    + connector.dialect().qualified(parts[0], parts[1]) + " WHERE 1 = 0");
                 ResultSet rs = select.executeQuery()) {
                ResultSetMetaData meta = rs.getMetaData();
                List<Column> columns = new ArrayList<>();
                for (int i = 1; i <= meta.getColumnCount(); i++) {
                    columns.add(new Column(meta.getColumnName(i), meta.getColumnTypeName(i)));
                }
                return Optional.of(columns);
            }
        }
    }

    /** Rows per business key, in the database's order of the key's values. */
    public Map<String, Long> rowsByKey(String table, String businessKeyColumn) throws SQLException {
        String[] parts = parts(table);
        WarehouseDialect dialect = connector.dialect();
        String key = dialect.quote(businessKeyColumn);
        Map<String, Long> rows = new LinkedHashMap<>();
        try (Connection connection = connector.connect();
             PreparedStatement select = connection.prepareStatement("SELECT " + key + ", count(*) FROM "
                     + dialect.qualified(parts[0], parts[1]) + " GROUP BY " + key + " ORDER BY " + key);
             ResultSet rs = select.executeQuery()) {
            while (rs.next()) {
                rows.put(rs.getString(1), rs.getLong(2));
            }
        }
        return rows;
    }

    /** Up to {@code limit} rows (of {@code businessKey}, when given), values as the driver renders them as text. */
    public List<Map<String, String>> sample(String table, String businessKeyColumn, Optional<String> businessKey,
                                            int limit) throws SQLException {
        String[] parts = parts(table);
        WarehouseDialect dialect = connector.dialect();
        try (Connection connection = connector.connect()) {
            String where = "";
            if (businessKey.isPresent()) {
                String type = dialect.columnType(connection, parts[0], parts[1], businessKeyColumn);
                where = " WHERE " + dialect.businessKeyPredicate(businessKeyColumn, type);
            }
            try (PreparedStatement select = connection.prepareStatement("SELECT * FROM "
                    + dialect.qualified(parts[0], parts[1]) + where + " LIMIT " + limit)) {
                if (businessKey.isPresent()) {
                    select.setString(1, businessKey.get());
                }
                List<Map<String, String>> rows = new ArrayList<>();
                try (ResultSet rs = select.executeQuery()) {
                    ResultSetMetaData meta = rs.getMetaData();
                    while (rs.next()) {
                        Map<String, String> row = new LinkedHashMap<>();
                        for (int i = 1; i <= meta.getColumnCount(); i++) {
                            row.put(meta.getColumnName(i), rs.getString(i));
                        }
                        rows.add(row);
                    }
                }
                return rows;
            }
        }
    }

    /** The table's publish markers, oldest first; none when the marker table does not exist yet. */
    public List<Publish> publishes(String table) throws SQLException {
        String[] parts = parts(table);
        WarehouseDialect dialect = connector.dialect();
        try (Connection connection = connector.connect()) {
            if (!dialect.exists(connection, parts[0], WarehouseTable.MARKER_TABLE)) {
                return List.of();
            }
            try (PreparedStatement select = connection.prepareStatement("SELECT publish_token, run_id, business_key,"
                    + " row_count, committed_at FROM " + dialect.qualified(parts[0], WarehouseTable.MARKER_TABLE)
                    + " WHERE target_table = ? ORDER BY committed_at, publish_token")) {
                // The marker names the table as the publisher does: schema.table, unquoted.
                select.setString(1, parts[0] + "." + parts[1]);
                List<Publish> publishes = new ArrayList<>();
                try (ResultSet rs = select.executeQuery()) {
                    while (rs.next()) {
                        publishes.add(new Publish(rs.getString(1), rs.getString(2), rs.getString(3), rs.getLong(4),
                                committedAt(dialect, rs)));
                    }
                }
                return publishes;
            }
        }
    }

    /** PostgreSQL's timestamptz, or MariaDB's datetime, which the publisher writes in UTC (UTC_TIMESTAMP). */
    private static Instant committedAt(WarehouseDialect dialect, ResultSet rs) throws SQLException {
        return dialect instanceof MariaDbDialect ? rs.getObject(5, LocalDateTime.class).toInstant(ZoneOffset.UTC)
                : rs.getObject(5, OffsetDateTime.class).toInstant();
    }

    private static String[] parts(String table) {
        String[] parts = table.split("\\.");
        if (parts.length != 2) {
            throw new IllegalArgumentException("a warehouse table is schema.table, got " + table);
        }
        return parts;
    }
}

package io.loadgate.ledger.db;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.BusinessKey;
import io.loadgate.api.JobKey;
import io.loadgate.api.PartitionId;
import io.loadgate.api.RunId;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** One open transaction: parameterised statements only, values bound by position. */
public final class Tx {
    private final Connection connection;

    Tx(Connection connection) {
        this.connection = requireNonNull(connection, "connection is null");
    }

    public Connection connection() {
        return connection;
    }

    public int update(String sql, Object... params) throws SQLException {
        try (PreparedStatement statement = prepare(sql, params)) {
            return statement.executeUpdate();
        }
    }

    /**
     * One statement executed once per row of parameters, sent as one batch: the driver pipelines the rows, so the
     * transaction waits for the server once rather than once a row. Returns each row's update count.
     */
    public int[] batch(String sql, List<Object[]> rows) throws SQLException {
        if (rows.isEmpty()) {
            return new int[0];
        }
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            for (Object[] params : rows) {
                for (int i = 0; i < params.length; i++) {
                    bind(statement, i + 1, params[i]);
                }
                statement.addBatch();
            }
            return statement.executeBatch();
        }
    }

    public <T> List<T> query(String sql, RowMapper<T> mapper, Object... params) throws SQLException {
        try (PreparedStatement statement = prepare(sql, params); ResultSet rs = statement.executeQuery()) {
            List<T> rows = new ArrayList<>();
            while (rs.next()) {
                rows.add(mapper.map(rs));
            }
            return rows;
        }
    }

    public <T> Optional<T> queryOne(String sql, RowMapper<T> mapper, Object... params) throws SQLException {
        List<T> rows = query(sql, mapper, params);
        if (rows.size() > 1) {
            throw new IllegalStateException("expected at most one row, got " + rows.size() + " for: " + sql);
        }
        return rows.stream().findFirst();
    }

    /** Runs {@code body} inside a savepoint, so that one failing step does not abort the transaction. */
    public <T> T inSavepoint(Database.TransactionBody<T> body) throws SQLException {
        var savepoint = connection.setSavepoint();
        try {
            T result = body.run(this);
            connection.releaseSavepoint(savepoint);
            return result;
        } catch (SQLException | RuntimeException e) {
            connection.rollback(savepoint);
            throw e;
        }
    }

    private PreparedStatement prepare(String sql, Object... params) throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql);
        try {
            for (int i = 0; i < params.length; i++) {
                bind(statement, i + 1, params[i]);
            }
            return statement;
        } catch (SQLException | RuntimeException e) {
            statement.close();
            throw e;
        }
    }

    private static void bind(PreparedStatement statement, int index, Object value) throws SQLException {
        if (value == null) {
            statement.setNull(index, Types.NULL);
        } else if (value instanceof Instant instant) {
            statement.setTimestamp(index, Timestamp.from(instant));
        } else if (value instanceof Enum<?> e) {
            statement.setString(index, e.name());
        } else if (value instanceof UUID || value instanceof BigDecimal || value instanceof String
                || value instanceof Number || value instanceof Boolean) {
            statement.setObject(index, value);
        } else if (value instanceof Jsonb json) {
            statement.setObject(index, json.text(), Types.OTHER);
        } else if (value instanceof RunId runId) {
            // Typed ids are bound here, not at each call: a varargs parameter list takes any id and would fail only
            // when run.
            statement.setObject(index, runId.value());
        } else if (value instanceof PartitionId partitionId) {
            statement.setString(index, partitionId.value());
        } else if (value instanceof JobKey jobKey) {
            statement.setString(index, jobKey.value());
        } else if (value instanceof BusinessKey businessKey) {
            statement.setString(index, businessKey.value());
        } else {
            throw new IllegalArgumentException("cannot bind " + value.getClass().getName());
        }
    }

    @FunctionalInterface
    public interface RowMapper<T> {
        T map(ResultSet rs) throws SQLException;
    }

    /** A value bound as {@code jsonb}. */
    public record Jsonb(String text) {
        public Jsonb {
            requireNonNull(text, "text is null");
        }
    }

    public static Instant instant(ResultSet rs, String column) throws SQLException {
        Timestamp ts = rs.getTimestamp(column);
        return ts == null ? null : ts.toInstant();
    }

    /** A run id column; null stays null. */
    public static RunId runId(ResultSet rs, String column) throws SQLException {
        UUID value = rs.getObject(column, UUID.class);
        return value == null ? null : new RunId(value);
    }

    public static RunId runId(ResultSet rs, int column) throws SQLException {
        UUID value = rs.getObject(column, UUID.class);
        return value == null ? null : new RunId(value);
    }

    /** A partition id column; null (a run-level row) stays null. */
    public static PartitionId partitionId(ResultSet rs, String column) throws SQLException {
        String value = rs.getString(column);
        return value == null ? null : PartitionId.of(value);
    }

    /** A job key column; null stays null. */
    public static JobKey jobKey(ResultSet rs, String column) throws SQLException {
        String value = rs.getString(column);
        return value == null ? null : JobKey.of(value);
    }

    /** A business key column; null stays null. */
    public static BusinessKey businessKey(ResultSet rs, String column) throws SQLException {
        String value = rs.getString(column);
        return value == null ? null : BusinessKey.of(value);
    }

    public static Long nullableLong(ResultSet rs, String column) throws SQLException {
        long value = rs.getLong(column);
        return rs.wasNull() ? null : value;
    }
}

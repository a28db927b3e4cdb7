package io.loadgate.worker.warehouse;

import io.loadgate.worker.publish.PublishFence;
import io.loadgate.worker.source.jdbc.JdbcValues;
import io.loadgate.worker.source.SourceColumn;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A PostgreSQL warehouse: rows arrive by {@code COPY}, a publish's reference is its transaction id. */
final class PostgresDialect implements WarehouseDialect {
    static final PostgresDialect INSTANCE = new PostgresDialect();
    private static final Logger LOG = LoggerFactory.getLogger(PostgresDialect.class);

    private static final int COPY_BUFFER = 1 << 16;
    /** How long a publish waits for the key's lock before it ends the sessions holding it. */
    private static final long HOLDER_GRACE_MILLIS = 1_000;
    private static final String LOCK_NOT_AVAILABLE = "55P03";
    private static final Pattern TYPE_NAME = Pattern.compile("[a-z0-9 (),]+");

    private PostgresDialect() {
    }

    @Override
    public String quote(String identifier) {
        return "\"" + identifier + "\"";
    }

    /** Spelled as {@code format_type} prints it. */
    @Override
    public String sqlType(Type type) {
        return switch (type.typeId()) {
            case INTEGER -> "integer";
            case LONG -> "bigint";
            case DECIMAL -> {
                Types.DecimalType decimal = (Types.DecimalType) type;
                yield "numeric(" + decimal.precision() + "," + decimal.scale() + ")";
            }
            case FLOAT -> "real";
            case DOUBLE -> "double precision";
            case STRING -> "text";
            case BOOLEAN -> "boolean";
            case DATE -> "date";
            case TIMESTAMP -> ((Types.TimestampType) type).shouldAdjustToUTC() ? "timestamp with time zone"
                    : "timestamp without time zone";
            case BINARY -> "bytea";
            default -> throw new IllegalArgumentException("a warehouse column cannot hold " + type);
        };
    }

    @Override
    public List<String> createStatements(WarehouseTable table) {
        String definitions = table.columns().columns().stream().map(f -> quote(f.name()) + " " + sqlType(f.type()))
                .collect(Collectors.joining(", "));
        String qualified = table.qualifiedName(this);
        String index = table.tableName() + "_loadgate_bk";
        return List.of(
                "CREATE SCHEMA IF NOT EXISTS " + quote(table.schemaName()),
                "CREATE TABLE IF NOT EXISTS " + qualified + " (" + definitions + ")",
                // Only when absent: CREATE INDEX locks the table before it looks for the name, so it would queue
                // behind any open transaction that writes the table, a frozen publisher's among them.
                "DO $loadgate$ BEGIN IF to_regclass(format('%I.%I', " + literal(table.schemaName()) + ", "
                        + literal(index) + ")) IS NULL THEN CREATE INDEX IF NOT EXISTS " + quote(index) + " ON "
                        + qualified + " (" + quote(table.businessKeyColumn()) + "); END IF; END $loadgate$",
                "CREATE TABLE IF NOT EXISTS " + table.markerName(this) + " (publish_token uuid PRIMARY KEY,"
                        + " run_id uuid NOT NULL, job_key text NOT NULL, target_table text NOT NULL,"
                        + " business_key text NOT NULL, row_count bigint NOT NULL, txid bigint NOT NULL,"
                        + " committed_at timestamptz NOT NULL DEFAULT now(), publish_generation bigint)");
    }

    private static String literal(String text) {
        return "'" + text.replace("'", "''") + "'";
    }

    @Override
    public boolean exists(Connection connection, String schema, String table) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
            statement.setString(1, qualified(schema, table));
            try (ResultSet rs = statement.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    @Override
    public List<String> columns(Connection connection, WarehouseTable table) throws SQLException {
        List<String> actual = new ArrayList<>();
        try (PreparedStatement columns = connection.prepareStatement("""
                SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a
                 WHERE a.attrelid = to_regclass(?) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum
                """)) {
            columns.setString(1, table.qualifiedName(this));
            try (ResultSet rs = columns.executeQuery()) {
                while (rs.next()) {
                    actual.add(rs.getString(1) + " " + rs.getString(2));
                }
            }
        }
        return actual;
    }

    @Override
    public String columnType(Connection connection, String schema, String table, String column) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("""
                SELECT format_type(a.atttypid, a.atttypmod) FROM pg_attribute a
                 WHERE a.attrelid = to_regclass(?) AND a.attname = ? AND a.attnum > 0 AND NOT a.attisdropped
                """)) {
            statement.setString(1, qualified(schema, table));
            statement.setString(2, column);
            try (ResultSet rs = statement.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                // The type goes into a CAST: only plain type names, never a quoted user-defined one.
                String type = rs.getString(1);
                if (!TYPE_NAME.matcher(type).matches()) {
                    throw new IllegalStateException("column " + column + " of " + qualified(schema, table)
                            + " has type " + type + ", which cannot be a business key");
                }
                return type;
            }
        }
    }

    @Override
    public String businessKeyPredicate(String column, String columnType) {
        return quote(column) + " = CAST(? AS " + columnType + ")";
    }

    /**
     * A transaction-level advisory lock: PostgreSQL releases it at COMMIT or ROLLBACK. Under READ COMMITTED a DELETE
     * does not see rows another transaction committed after the DELETE began, hence the lock.
     */
    @Override
    public KeyLock lockBusinessKey(Connection connection, String table, String businessKey) throws SQLException {
        advisoryLock(connection, lockName(table, businessKey));
        return () -> { };
    }

    /**
     * The claim's mark is a second transaction-level advisory lock, taken first and waited for: only another session
     * of this very claim holds it, and once this one has it no holder of the key's lock is of this claim, but for one
     * still ending (see {@link #lockWithin}). A publish past its deadline is refused before that wait, as after it.
     */
    @Override
    public KeyLock lockBusinessKeyToPublish(Connection connection, String table, String businessKey, PublishFence fence)
            throws SQLException {
        String name = lockName(table, businessKey);
        // Its own prefix: no business key's lock name is a mark's, whatever the key's text.
        advisoryLock(connection, "loadgate-claim:" + table + ":" + fence.generation() + ":" + businessKey);
        if (!tryLock(connection, name)) {
            fence.checkDeadline();
            if (!lockWithin(connection, name, HOLDER_GRACE_MILLIS)) {
                fence.checkDeadline();
                endHolders(connection, name, table, businessKey);
                advisoryLock(connection, name);
            }
        }
        return () -> { };
    }

    /**
     * Also a session the server or an operator ended (class 57P, e.g. 57P01 from {@code pg_terminate_backend}): ended
     * while committing, it may have committed before it went.
     */
    @Override
    public boolean connectionLost(SQLException e) {
        return WarehouseDialect.super.connectionLost(e) || e.getSQLState().startsWith("57P");
    }

    /**
     * Waits up to {@code millis} for the advisory lock {@code name} and returns whether it was taken. A transaction
     * that ends releases its advisory locks one lock-table partition at a time, so a session of this claim that has
     * just committed can free the claim's mark an instant before the key's lock; ended in that instant, its COMMIT
     * would fail though it took effect (eight racing publishers of one claim met it). A holder that is not ending, a
     * publisher stopped inside its transaction, still holds the lock after the wait and is ended.
     */
    private static boolean lockWithin(Connection connection, String name, long millis) throws SQLException {
        String previous;
        try (Statement show = connection.createStatement();
             ResultSet rs = show.executeQuery("SELECT current_setting('lock_timeout')")) {
            rs.next();
            previous = rs.getString(1);
        }
        Savepoint savepoint = connection.setSavepoint();
        setLockTimeout(connection, millis + "ms");
        try {
            advisoryLock(connection, name);
        } catch (SQLException e) {
            if (!LOCK_NOT_AVAILABLE.equals(e.getSQLState())) {
                throw e;
            }
            // Undoes the timeout's setting too.
            connection.rollback(savepoint);
            return false;
        }
        // The lock taken in the savepoint stays the transaction's; only the timeout goes back.
        connection.releaseSavepoint(savepoint);
        setLockTimeout(connection, previous);
        return true;
    }

    /** {@code lock_timeout} for the rest of the transaction (or until a rollback to a savepoint before this). */
    private static void setLockTimeout(Connection connection, String value) throws SQLException {
        try (PreparedStatement timeout = connection.prepareStatement("SELECT set_config('lock_timeout', ?, true)")) {
            timeout.setString(1, value);
            timeout.execute();
        }
    }

    private static String lockName(String table, String businessKey) {
        return "loadgate:" + table + ":" + businessKey;
    }

    private static void advisoryLock(Connection connection, String name) throws SQLException {
        try (PreparedStatement lock = connection.prepareStatement("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))")) {
            lock.setString(1, name);
            lock.execute();
        }
    }

    private static boolean tryLock(Connection connection, String name) throws SQLException {
        try (PreparedStatement lock = connection.prepareStatement(
                "SELECT pg_try_advisory_xact_lock(hashtextextended(?, 0))")) {
            lock.setString(1, name);
            try (ResultSet rs = lock.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /**
     * Terminates the backends holding the advisory lock {@code name} in this database (pg_locks shows a bigint key as
     * its high and low 32 bits), waiting up to 10 s for each to exit. A backend this role may not signal stays, and
     * the publish waits for it: the refusal is caught at a savepoint so that the transaction goes on.
     */
    private static void endHolders(Connection connection, String name, String table, String businessKey)
            throws SQLException {
        Savepoint savepoint = connection.setSavepoint();
        try (PreparedStatement end = connection.prepareStatement("""
                SELECT l.pid, a.application_name, a.xact_start, pg_terminate_backend(l.pid, 10000)
                  FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
                 WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 AND l.pid <> pg_backend_pid()
                   AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                   AND l.classid = ((hashtextextended(?, 0) >> 32) & 4294967295)::oid
                   AND l.objid = (hashtextextended(?, 0) & 4294967295)::oid
                """)) {
            end.setString(1, name);
            end.setString(2, name);
            try (ResultSet rs = end.executeQuery()) {
                while (rs.next()) {
                    LOG.warn("ended PostgreSQL backend {} ('{}', in its transaction since {}), which held the lock on"
                                    + " business key {} of {}: an earlier claim's publish or a rollback; {}",
                            rs.getInt(1), rs.getString(2), rs.getString(3), businessKey, table,
                            rs.getBoolean(4) ? "it has exited" : "it had not exited after 10 s");
                }
            }
            connection.releaseSavepoint(savepoint);
        } catch (SQLException e) {
            connection.rollback(savepoint);
            LOG.warn("cannot end the session holding the lock on business key {} of {}, so the publish waits for it:"
                    + " {}", businessKey, table, e.getMessage());
        }
    }

    @Override
    public long load(Connection connection, WarehouseTable table, Iterable<Record> records) throws SQLException {
        String names = table.columns().columns().stream().map(f -> quote(f.name())).collect(Collectors.joining(", "));
        CopyIn copy = connection.unwrap(PGConnection.class).getCopyAPI().copyIn("COPY " + table.qualifiedName(this)
                + " (" + names + ") FROM STDIN (FORMAT csv)");
        long rows = 0;
        try {
            CsvRows csv = new CsvRows(table.columns().columns().size());
            StringBuilder buffer = new StringBuilder(COPY_BUFFER + 1024);
            for (Record record : records) {
                csv.append(buffer, record);
                rows++;
                if (buffer.length() >= COPY_BUFFER) {
                    write(copy, buffer);
                }
            }
            write(copy, buffer);
            copy.endCopy();
        } finally {
            if (copy.isActive()) {
                copy.cancelCopy();
            }
        }
        return rows;
    }

    private static void write(CopyIn copy, StringBuilder buffer) throws SQLException {
        byte[] bytes = buffer.toString().getBytes(StandardCharsets.UTF_8);
        copy.writeToCopy(bytes, 0, bytes.length);
        buffer.setLength(0);
    }

    @Override
    public long recordPublish(Connection connection, WarehouseTable table, PublishMarker marker) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + table.markerName(this)
                + " (publish_token, run_id, job_key, target_table, business_key, row_count, publish_generation, txid)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, txid_current()) RETURNING txid")) {
            insert.setObject(1, marker.publishToken());
            insert.setObject(2, UUID.fromString(marker.runId()));
            insert.setString(3, marker.jobKey());
            insert.setString(4, table.schemaName() + "." + table.tableName());
            insert.setString(5, marker.businessKey());
            insert.setLong(6, marker.rowCount());
            insert.setLong(7, marker.generation());
            try (ResultSet rs = insert.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    @Override
    public Optional<RecordedPublish> findPublish(Connection connection, String schema, UUID publishToken)
            throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT run_id, txid, row_count, committed_at FROM "
                + qualified(schema, WarehouseTable.MARKER_TABLE) + " WHERE publish_token = ?")) {
            select.setObject(1, publishToken);
            try (ResultSet rs = select.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return Optional.of(new RecordedPublish(rs.getString("run_id"), rs.getLong("txid"),
                        rs.getLong("row_count"), String.valueOf(rs.getObject("committed_at", OffsetDateTime.class))));
            }
        }
    }

    @Override
    public String describeRollback(long ref) {
        return "transaction " + ref;
    }

    @Override
    public String describe(long ref) {
        return "transaction " + ref;
    }

    @Override
    public long rollbackRef(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery("SELECT txid_current()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Override
    public Object read(ResultSet rs, int index, SourceColumn column) throws SQLException {
        return JdbcValues.read(rs, index, column);
    }
}

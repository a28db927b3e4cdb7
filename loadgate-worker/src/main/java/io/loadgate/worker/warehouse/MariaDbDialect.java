package io.loadgate.worker.warehouse;

import io.loadgate.worker.publish.PublishFence;
import io.loadgate.worker.publish.TargetMismatchException;
import io.loadgate.worker.source.ColumnType;
import io.loadgate.worker.source.jdbc.JdbcValues;
import io.loadgate.worker.source.SourceColumn;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A MariaDB or MySQL warehouse (the MariaDB driver serves both). Differences from PostgreSQL that matter here:
 * a schema is a database; only InnoDB tables are transactional, so any other engine is refused; there is no COPY, so
 * rows arrive in batched INSERTs; the key lock ({@code GET_LOCK}) belongs to the session, not the transaction, so it
 * is released explicitly; there is no transaction id a client reads reliably, so a publish's reference is the id of
 * its marker row; a timestamp with time zone is stored as its UTC {@code datetime(6)}, since {@code timestamp} ends
 * in 2038; and NaN or infinite floating-point values cannot be stored at all.
 */
final class MariaDbDialect implements WarehouseDialect {
    static final MariaDbDialect INSTANCE = new MariaDbDialect();
    private static final Logger LOG = LoggerFactory.getLogger(MariaDbDialect.class);

    private static final int BATCH_ROWS = 1_000;
    /** A publish waits this long for another of the same key; the ledger calls a publish stuck after 2 h anyway. */
    private static final int LOCK_TIMEOUT_SECONDS = 2 * 60 * 60;
    private static final String CHARSET = "utf8mb4";
    /** Integer types reported with a display width by older servers (bigint(20)) and without by newer ones. */
    private static final Pattern DISPLAY_WIDTH = Pattern.compile("(bigint|int|smallint|mediumint)\\(\\d+\\)(.*)");
    /** The column types a business key can have, by what it is cast to: SIGNED, itself, itself, nothing (text). */
    private static final Pattern KEY_TYPE = Pattern.compile("(bigint|int|smallint|mediumint)|(decimal\\(\\d+,\\d+\\))"
            + "|(date|datetime(?:\\(\\d\\))?)|((?:long|medium|tiny)?text|(?:var)?char\\(\\d+\\))");

    private MariaDbDialect() {
    }

    /**
     * Strict mode, whatever the server's default: otherwise an out-of-range value or a character the column cannot
     * hold is truncated with a warning instead of failing the publish, and a missing InnoDB silently becomes another
     * engine.
     */
    @Override
    public void beginSession(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,"
                    + "ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION'");
        }
    }

    @Override
    public String quote(String identifier) {
        return "`" + identifier + "`";
    }

    /** Spelled as {@code information_schema.COLUMNS.COLUMN_TYPE} reports it, display widths dropped. */
    @Override
    public String sqlType(Type type) {
        return switch (type.typeId()) {
            case INTEGER -> "int";
            case LONG -> "bigint";
            case DECIMAL -> {
                Types.DecimalType decimal = (Types.DecimalType) type;
                yield "decimal(" + decimal.precision() + "," + decimal.scale() + ")";
            }
            case FLOAT -> "float";
            case DOUBLE -> "double";
            // Not varchar: a staged string has no length bound.
            case STRING -> "longtext";
            case BOOLEAN -> "tinyint(1)";
            case DATE -> "date";
            // With time zone too: the column holds the instant in UTC.
            case TIMESTAMP -> "datetime(6)";
            case BINARY -> "longblob";
            default -> throw new IllegalArgumentException("a warehouse column cannot hold " + type);
        };
    }

    @Override
    public List<String> createStatements(WarehouseTable table) {
        String definitions = table.columns().columns().stream().map(f -> quote(f.name()) + " " + sqlType(f.type()))
                .collect(Collectors.joining(", "));
        Type keyType = table.columns().findField(table.businessKeyColumn()).type();
        // A text or blob column is indexed by a prefix; 255 characters tell business keys apart.
        String prefix = keyType.typeId() == Type.TypeID.STRING || keyType.typeId() == Type.TypeID.BINARY ? "(255)" : "";
        // utf8mb4_bin: every character fits, and a business key equals only itself (no case folding).
        String options = " ENGINE=InnoDB DEFAULT CHARSET=" + CHARSET + " COLLATE=" + CHARSET + "_bin";
        return List.of(
                "CREATE DATABASE IF NOT EXISTS " + quote(table.schemaName()),
                // The index inside CREATE TABLE: MySQL has no CREATE INDEX IF NOT EXISTS.
                "CREATE TABLE IF NOT EXISTS " + table.qualifiedName(this) + " (" + definitions + ", KEY "
                        + quote("loadgate_bk") + " (" + quote(table.businessKeyColumn()) + prefix + "))" + options,
                "CREATE TABLE IF NOT EXISTS " + table.markerName(this) + " (id bigint NOT NULL AUTO_INCREMENT PRIMARY KEY,"
                        + " publish_token char(36) NOT NULL UNIQUE, run_id char(36) NOT NULL,"
                        + " job_key varchar(200) NOT NULL, target_table varchar(400) NOT NULL,"
                        + " business_key longtext NOT NULL, row_count bigint NOT NULL,"
                        + " committed_at datetime(6) NOT NULL, publish_generation bigint)" + options);
    }

    @Override
    public boolean exists(Connection connection, String schema, String table) throws SQLException {
        return engine(connection, schema, table) != null;
    }

    /** The table's storage engine (a view's type), or null when there is no such table. */
    private static String engine(Connection connection, String schema, String table) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("""
                SELECT COALESCE(ENGINE, TABLE_TYPE) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?
                """)) {
            statement.setString(1, schema);
            statement.setString(2, table);
            try (ResultSet rs = statement.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    /** Also refuses a table, or a marker table, that is not InnoDB: its rows would not be part of the transaction. */
    @Override
    public List<String> columns(Connection connection, WarehouseTable table) throws SQLException {
        for (String name : List.of(table.tableName(), WarehouseTable.MARKER_TABLE)) {
            String engine = engine(connection, table.schemaName(), name);
            if (engine != null && !engine.equalsIgnoreCase("InnoDB")) {
                throw new TargetMismatchException("table " + qualified(table.schemaName(), name) + " uses engine "
                        + engine + ", not InnoDB: its rows would not be part of the publish's transaction");
            }
        }
        List<String> actual = new ArrayList<>();
        try (PreparedStatement columns = connection.prepareStatement("""
                SELECT COLUMN_NAME, COLUMN_TYPE, CHARACTER_SET_NAME FROM information_schema.COLUMNS
                 WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION
                """)) {
            columns.setString(1, table.schemaName());
            columns.setString(2, table.tableName());
            try (ResultSet rs = columns.executeQuery()) {
                while (rs.next()) {
                    actual.add(rs.getString(1) + " " + normalised(rs.getString(2), rs.getString(3)));
                }
            }
        }
        return actual;
    }

    @Override
    public String columnType(Connection connection, String schema, String table, String column) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("""
                SELECT COLUMN_TYPE, CHARACTER_SET_NAME FROM information_schema.COLUMNS
                 WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND COLUMN_NAME = ?
                """)) {
            statement.setString(1, schema);
            statement.setString(2, table);
            statement.setString(3, column);
            try (ResultSet rs = statement.executeQuery()) {
                return rs.next() ? normalised(rs.getString(1), rs.getString(2)) : null;
            }
        }
    }

    /** A text column in another character set could not hold every staged string: it shows in the type. */
    private static String normalised(String columnType, String charset) {
        String type = columnType.toLowerCase(Locale.ROOT);
        Matcher width = DISPLAY_WIDTH.matcher(type);
        if (width.matches()) {
            type = width.group(1) + width.group(2);
        }
        if (charset != null && !charset.equalsIgnoreCase(CHARSET)) {
            type += " character set " + charset.toLowerCase(Locale.ROOT);
        }
        return type;
    }

    /**
     * Text compares as text (a CAST to CHAR would change its collation); numbers are cast, not compared as doubles,
     * which would confuse bigints beyond 2^53. A boolean, floating-point or binary business key is refused.
     */
    @Override
    public String businessKeyPredicate(String column, String columnType) {
        Matcher key = KEY_TYPE.matcher(columnType);
        if (!key.matches()) {
            throw new TargetMismatchException("business-key column " + column + " is " + columnType
                    + ", which a MariaDB business key cannot be (integer, decimal, date, datetime or text)");
        }
        String cast = key.group(1) != null ? "SIGNED" : key.group(2) != null ? key.group(2)
                : key.group(3) != null ? (key.group(3).equals("datetime") ? "datetime(6)" : key.group(3)) : null;
        return quote(column) + " = " + (cast == null ? "?" : "CAST(? AS " + cast + ")");
    }

    /**
     * {@code GET_LOCK} belongs to the session, not the transaction: the lock is released after COMMIT or ROLLBACK
     * by {@link KeyLock#release}, and by the server if the session dies. Lock names are at most 64 characters, so
     * the key is hashed.
     */
    @Override
    public KeyLock lockBusinessKey(Connection connection, String table, String businessKey) throws SQLException {
        String name = lockName(table + ":" + businessKey);
        lock(connection, name, "the lock on business key " + businessKey + " of " + table);
        return () -> release(connection, name);
    }

    private static void lock(Connection connection, String name, String what) throws SQLException {
        try (PreparedStatement lock = connection.prepareStatement("SELECT GET_LOCK(?, ?)")) {
            lock.setString(1, name);
            lock.setInt(2, LOCK_TIMEOUT_SECONDS);
            try (ResultSet rs = lock.executeQuery()) {
                rs.next();
                if (rs.getInt(1) != 1) {
                    throw new SQLException("waited " + LOCK_TIMEOUT_SECONDS + " s for " + what + " without getting it",
                            "HY000");
                }
            }
        }
    }

    /**
     * The claim's mark is a second {@code GET_LOCK}, taken first and waited for: only another session of this very
     * claim holds it, and once this one has it no holder of the key's lock is of this claim. Released with the key's.
     */
    @Override
    public KeyLock lockBusinessKeyToPublish(Connection connection, String table, String businessKey, PublishFence fence)
            throws SQLException {
        String name = lockName(table + ":" + businessKey);
        // Hashed from text of its own prefix: no business key's lock name is a mark's, whatever the key's text.
        String mark = lockName("claim:" + table + ":" + fence.generation() + ":" + businessKey);
        lock(connection, mark, "the mark of publish generation " + fence.generation() + " of business key "
                + businessKey + " of " + table);
        try {
            if (!tryLock(connection, name)) {
                fence.checkDeadline();
                endHolder(connection, name, table, businessKey);
                lock(connection, name, "the lock on business key " + businessKey + " of " + table);
            }
        } catch (SQLException | RuntimeException e) {
            release(connection, mark);
            throw e;
        }
        return () -> {
            release(connection, name);
            release(connection, mark);
        };
    }

    private static String lockName(String text) {
        return "loadgate:" + sha256(text).substring(0, 48);
    }

    private static boolean tryLock(Connection connection, String name) throws SQLException {
        try (PreparedStatement lock = connection.prepareStatement("SELECT GET_LOCK(?, 0)")) {
            lock.setString(1, name);
            try (ResultSet rs = lock.executeQuery()) {
                rs.next();
                return rs.getInt(1) == 1;
            }
        }
    }

    private static void release(Connection connection, String name) {
        try (PreparedStatement release = connection.prepareStatement("DO RELEASE_LOCK(?)")) {
            release.setString(1, name);
            release.execute();
        } catch (SQLException e) {
            // The session is gone, and the server released its locks with it.
        }
    }

    /**
     * Kills the session holding lock {@code name}, if any still does. A session of another user needs the
     * CONNECTION ADMIN privilege; without it the publish waits for the holder. MariaDB errors leave the transaction
     * open, so a refusal needs no savepoint.
     */
    private static void endHolder(Connection connection, String name, String table, String businessKey)
            throws SQLException {
        long holder;
        try (PreparedStatement used = connection.prepareStatement("SELECT IS_USED_LOCK(?)")) {
            used.setString(1, name);
            try (ResultSet rs = used.executeQuery()) {
                rs.next();
                holder = rs.getLong(1);
                if (rs.wasNull()) {
                    return;
                }
            }
        }
        // KILL takes no parameter; the id is a number the server just gave.
        try (Statement kill = connection.createStatement()) {
            kill.execute("KILL CONNECTION " + holder);
            LOG.warn("killed MariaDB session {}, which held the lock on business key {} of {}: an earlier claim's"
                    + " publish or a rollback", holder, businessKey, table);
        } catch (SQLException e) {
            LOG.warn("cannot kill MariaDB session {} holding the lock on business key {} of {}, so the publish waits"
                    + " for it: {}", holder, businessKey, table, e.getMessage());
        }
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    /** Batches of single-row INSERTs, which the driver sends as one bulk command per batch. */
    @Override
    public long load(Connection connection, WarehouseTable table, Iterable<Record> records) throws SQLException {
        List<Types.NestedField> fields = table.columns().columns();
        String names = fields.stream().map(f -> quote(f.name())).collect(Collectors.joining(", "));
        String parameters = fields.stream().map(f -> "?").collect(Collectors.joining(", "));
        long rows = 0;
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + table.qualifiedName(this)
                + " (" + names + ") VALUES (" + parameters + ")")) {
            int batched = 0;
            for (Record record : records) {
                rows++;
                for (int i = 0; i < fields.size(); i++) {
                    bind(insert, i + 1, fields.get(i).name(), record.get(i), rows);
                }
                insert.addBatch();
                if (++batched == BATCH_ROWS) {
                    insert.executeBatch();
                    batched = 0;
                }
            }
            if (batched > 0) {
                insert.executeBatch();
            }
        }
        return rows;
    }

    private static void bind(PreparedStatement insert, int index, String column, Object value, long row)
            throws SQLException {
        if (value == null) {
            insert.setNull(index, java.sql.Types.NULL);
        } else if (value instanceof Double d) {
            insert.setDouble(index, finite(d, column, row));
        } else if (value instanceof Float f) {
            insert.setFloat(index, (float) finite(f, column, row));
        } else if (value instanceof BigDecimal decimal) {
            insert.setBigDecimal(index, decimal);
        } else if (value instanceof CharSequence text) {
            insert.setString(index, text.toString());
        } else if (value instanceof OffsetDateTime instant) {
            insert.setObject(index, instant.withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime());
        } else if (value instanceof ByteBuffer bytes) {
            ByteBuffer copy = bytes.duplicate();
            byte[] array = new byte[copy.remaining()];
            copy.get(array);
            insert.setBytes(index, array);
        } else {
            // Integer, Long, Boolean, LocalDate, LocalDateTime: the driver sends them as they are.
            insert.setObject(index, value);
        }
    }

    private static double finite(double value, String column, long row) {
        if (!Double.isFinite(value)) {
            throw new IllegalArgumentException("MariaDB cannot store " + value + ", which column " + column
                    + " holds in row " + row + " of the staged files");
        }
        return value;
    }

    /** The marker's AUTO_INCREMENT id is the publish's reference: it is known before COMMIT and kept after it. */
    @Override
    public long recordPublish(Connection connection, WarehouseTable table, PublishMarker marker) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + table.markerName(this)
                + " (publish_token, run_id, job_key, target_table, business_key, row_count, publish_generation,"
                + " committed_at) VALUES (?, ?, ?, ?, ?, ?, ?, UTC_TIMESTAMP(6))")) {
            insert.setString(1, marker.publishToken().toString());
            insert.setString(2, marker.runId());
            insert.setString(3, marker.jobKey());
            insert.setString(4, table.schemaName() + "." + table.tableName());
            insert.setString(5, marker.businessKey());
            insert.setLong(6, marker.rowCount());
            insert.setLong(7, marker.generation());
            insert.executeUpdate();
        }
        try (Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery("SELECT LAST_INSERT_ID()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Override
    public Optional<RecordedPublish> findPublish(Connection connection, String schema, UUID publishToken)
            throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT run_id, id, row_count, committed_at FROM "
                + qualified(schema, WarehouseTable.MARKER_TABLE) + " WHERE publish_token = ?")) {
            select.setString(1, publishToken.toString());
            try (ResultSet rs = select.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return Optional.of(new RecordedPublish(rs.getString("run_id"), rs.getLong("id"), rs.getLong("row_count"),
                        rs.getObject("committed_at", LocalDateTime.class).atOffset(ZoneOffset.UTC).toString()));
            }
        }
    }

    @Override
    public String describeRollback(long ref) {
        return "session " + ref + " (CONNECTION_ID(), as the server's logs name it)";
    }

    @Override
    public String describe(long ref) {
        return "publish " + ref + " (" + WarehouseTable.MARKER_TABLE + ".id)";
    }

    /**
     * No transaction id: the session's id, which the server's binary and general logs record with each statement.
     */
    @Override
    public long rollbackRef(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery("SELECT CONNECTION_ID()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** A timestamp with time zone is read back from its UTC datetime. */
    @Override
    public Object read(ResultSet rs, int index, SourceColumn column) throws SQLException {
        if (column.type() == ColumnType.TIMESTAMPTZ) {
            LocalDateTime utc = rs.getObject(index, LocalDateTime.class);
            return utc == null ? null : utc.atOffset(ZoneOffset.UTC);
        }
        return JdbcValues.read(rs, index, column);
    }
}

package io.loadgate.worker.warehouse;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.publish.PublishFence;
import io.loadgate.worker.source.SourceColumn;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;

/**
 * What differs between the databases a warehouse table can live in: names, types, the business-key lock, the bulk
 * load and the publish marker. The publish itself — one transaction that locks the key, deletes its rows, loads the
 * files' rows and records the token — is the same for all, in {@link WarehousePublisher}.
 */
public sealed interface WarehouseDialect permits PostgresDialect, MariaDbDialect {

    /** The dialect of a {@code target.database.jdbc_url}, which the job spec has already checked. */
    static WarehouseDialect of(String jdbcUrl) {
        if (jdbcUrl.startsWith("jdbc:postgresql:")) {
            return PostgresDialect.INSTANCE;
        }
        if (jdbcUrl.startsWith("jdbc:mariadb:") || jdbcUrl.startsWith("jdbc:mysql:")) {
            return MariaDbDialect.INSTANCE;
        }
        throw new IllegalArgumentException("no warehouse dialect for " + jdbcUrl.split("\\?")[0]);
    }

    /** Sets what every session needs before its first statement. */
    default void beginSession(Connection connection) throws SQLException {
    }

    String quote(String identifier);

    default String qualified(String schema, String table) {
        return quote(schema) + "." + quote(table);
    }

    /** The column type holding an Iceberg type exactly, spelled as the database reports an existing column's type. */
    String sqlType(Type type);

    /** Creates what a publish needs when absent: schema, table and business-key index, marker table; each commits. */
    List<String> createStatements(WarehouseTable table);

    boolean exists(Connection connection, String schema, String table) throws SQLException;

    /**
     * An existing table's columns as {@code name type}, in order, spelled as {@link #sqlType} spells them.
     *
     * @throws io.loadgate.worker.publish.TargetMismatchException when the table cannot take a publish whatever its
     *     columns
     */
    List<String> columns(Connection connection, WarehouseTable table) throws SQLException;

    /** The type of an existing column as {@link #columns} spells it, or null when there is no such column. */
    String columnType(Connection connection, String schema, String table, String column) throws SQLException;

    /** {@code column = <the one parameter, the business key as text, as the column's type>}. */
    String businessKeyPredicate(String column, String columnType);

    /**
     * Makes publishes and rollbacks of one business key of one table wait for each other until the transaction ends.
     * Without it two publishes could both delete the old rows and both load theirs.
     */
    KeyLock lockBusinessKey(Connection connection, String table, String businessKey) throws SQLException;

    /**
     * {@link #lockBusinessKey} for a publish under {@code fence}, which does not wait on an earlier claim's publisher.
     * A publisher frozen inside its transaction (a stopped process, a paused machine) holds the key's lock for as
     * long as it is frozen: the ledger settles its run after its deadline, but the next run's publish would queue
     * behind it until its own deadline passed too, and the key could not be loaded again until the frozen one woke.
     * While this publish's deadline holds, its claim is the key's newest (the ledger moves a PUBLISHING run on only
     * after its deadline, and cancels none), so a session holding the key's lock is an earlier claim's publish, which
     * can never commit, or a rollback: that session is ended, which rolls its transaction back. Each publish also
     * marks its claim (a lock named by the key and its generation) so that it never ends a session running this very
     * claim — a publish delivered twice — and waits for that one instead.
     *
     * @throws io.loadgate.worker.publish.PublishFencedException when the lock is held and the deadline has passed
     */
    KeyLock lockBusinessKeyToPublish(Connection connection, String table, String businessKey, PublishFence fence)
            throws SQLException;

    /** Loads the records into the table inside the open transaction; returns how many. */
    long load(Connection connection, WarehouseTable table, Iterable<Record> records) throws SQLException;

    /** Records the publish in the schema's marker table inside the open transaction; returns its reference. */
    long recordPublish(Connection connection, WarehouseTable table, PublishMarker marker) throws SQLException;

    Optional<RecordedPublish> findPublish(Connection connection, String schema, UUID publishToken) throws SQLException;

    /** A publish's reference as messages name it. */
    String describe(long ref);

    /** The reference a rollback reports: what identifies its transaction, read inside it. */
    long rollbackRef(Connection connection) throws SQLException;

    /** A rollback's reference as messages name it. */
    String describeRollback(long ref);

    /** The value of column {@code index} of the current row, as staging yields values of {@code column}'s type. */
    Object read(ResultSet rs, int index, SourceColumn column) throws SQLException;

    /** SQLSTATE class 08 (or none at all): the connection broke, so the server's answer is unknown. */
    default boolean connectionLost(SQLException e) {
        return e.getSQLState() == null || e.getSQLState().startsWith("08");
    }

    /** Held until the transaction has ended; {@link #release} never throws. */
    interface KeyLock {
        void release();
    }

    /** What the marker table records of a publish; {@code generation} is the publish fence's. */
    record PublishMarker(UUID publishToken, String runId, String jobKey, String businessKey, long rowCount,
                         long generation) {
        public PublishMarker {
            requireNonNull(publishToken, "publishToken is null");
            requireNonNull(runId, "runId is null");
            requireNonNull(jobKey, "jobKey is null");
            requireNonNull(businessKey, "businessKey is null");
        }
    }

    /** A marker row found by its token; {@code committedAt} as the database prints it. */
    record RecordedPublish(String runId, long ref, long rowCount, String committedAt) {
        public RecordedPublish {
            requireNonNull(runId, "runId is null");
            requireNonNull(committedAt, "committedAt is null");
        }
    }
}

package io.loadgate.worker.warehouse;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.job.SchemaPolicy;
import io.loadgate.worker.publish.ProbeResult;
import io.loadgate.worker.publish.PublishFencedException;
import io.loadgate.worker.publish.PublishOutcome;
import io.loadgate.worker.publish.PublishOutcome.ErrorCode;
import io.loadgate.worker.publish.PublishOutcome.Status;
import io.loadgate.worker.publish.PublishRequest;
import io.loadgate.worker.publish.StagedFile;
import io.loadgate.worker.publish.TargetMismatchException;
import io.loadgate.worker.validation.StagedFilesReader;
import io.loadgate.worker.warehouse.WarehouseDialect.KeyLock;
import io.loadgate.worker.warehouse.WarehouseDialect.PublishMarker;
import io.loadgate.worker.warehouse.WarehouseDialect.RecordedPublish;
import java.io.IOException;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

/**
 * Publishes into a warehouse table (PostgreSQL, MariaDB or MySQL; what differs is in {@link WarehouseDialect}): one
 * transaction locks the business key, deletes its rows, loads the rows of exactly the ledger's files, and records
 * the publish token in the schema's {@code loadgate_publish} table.
 * Unlike an Iceberg commit, this copies the data, so publish time grows with the rows; what stays the same is
 * that readers see the old rows or the new ones, never a mix, and that the token tells afterwards whether it landed.
 *
 * <p>Outcomes: a failure before COMMIT is sent rolls the transaction back, so FAILED_PUBLISH; a COMMIT that fails
 * with a definite error from the server was rolled back too; a COMMIT whose answer is lost (the connection broke)
 * is PUBLISH_UNKNOWN, and the probe looks for the token.
 */
public final class WarehousePublisher {
    private static final String GENERATION = "publish_generation";

    private final WarehouseConnector connector;
    private final Configuration hadoop;

    public WarehousePublisher(WarehouseConnector connector, Configuration hadoop) {
        this.connector = requireNonNull(connector, "connector is null");
        this.hadoop = requireNonNull(hadoop, "hadoop is null");
    }

    /** Replaces the request's business key with exactly its files' rows, in one transaction (see {@code Target}). */
    public PublishOutcome publish(PublishRequest request) {
        requireNonNull(request, "request is null");
        WarehouseTable table = WarehouseTable.of(request.target().identifier().toString(), request.target().schema(),
                request.target().businessKeyColumn());
        WarehouseDialect dialect = connector.dialect();
        String qualified = table.qualifiedName(dialect);
        try (Connection connection = connector.connect()) {
            try {
                prepare(connection, dialect, table);
            } catch (TargetMismatchException e) {
                return failed(ErrorCode.TARGET_MISMATCH, e.getMessage());
            }
            connection.setAutoCommit(false);
            KeyLock lock = null;
            try {
                long ref;
                long rows;
                try {
                    lock = dialect.lockBusinessKeyToPublish(connection, table.schemaName() + "."
                            + table.tableName(), request.businessKey(), request.fence());
                    // Under the key's lock, so no publish of the key can record a generation between this read
                    // and COMMIT: the check and the commit are one.
                    request.fence().checkNotBehind(latestGeneration(connection, dialect, table, request),
                            "warehouse table " + qualified);
                    try (PreparedStatement delete = connection.prepareStatement(table.deleteBusinessKey(dialect))) {
                        delete.setString(1, request.businessKey());
                        delete.executeUpdate();
                    }
                    rows = load(connection, dialect, table, request.files());
                    ref = dialect.recordPublish(connection, table, new PublishMarker(request.publishToken(),
                            request.runId(), request.jobKey(), request.businessKey(), rows,
                            request.fence().generation()));
                    // As late as can be: loading may have taken long, and a paused process resumes here.
                    request.fence().checkDeadline();
                } catch (PublishFencedException e) {
                    rollbackQuietly(connection, e);
                    return failed(ErrorCode.PUBLISH_FENCED, "nothing was committed to " + qualified + ": "
                            + e.getMessage());
                } catch (SQLException | IOException | RuntimeException e) {
                    rollbackQuietly(connection, e);
                    return failed(ErrorCode.NOT_COMMITTED, "nothing was committed to " + qualified + ": "
                            + e.getMessage());
                }
                try {
                    connection.commit();
                } catch (SQLException e) {
                    if (dialect.connectionLost(e)) {
                        return new PublishOutcome(Status.PUBLISH_UNKNOWN, null, ErrorCode.COMMIT_INTERRUPTED,
                                "COMMIT of " + dialect.describe(ref) + " on " + qualified + " got no answer: "
                                        + e.getMessage());
                    }
                    return failed(ErrorCode.COMMIT_CONFLICT, "the warehouse refused COMMIT of " + dialect.describe(ref)
                            + ": " + e.getMessage());
                }
                return new PublishOutcome(Status.PUBLISHED, Long.toString(ref), null, dialect.describe(ref)
                        + " replaced " + table.businessKeyColumn() + " = " + request.businessKey() + " of "
                        + qualified + " with " + rows + " rows from " + request.files().size() + " files");
            } finally {
                // After COMMIT or ROLLBACK: a lock that outlived the transaction would only delay the next publish.
                if (lock != null) {
                    lock.release();
                }
            }
        } catch (SQLException e) {
            // Connecting or preparing the table failed: no transaction touched the rows.
            return failed(ErrorCode.NOT_COMMITTED, "cannot prepare " + qualified + ": " + e.getMessage());
        }
    }

    /** Looks for {@code publishToken} in the marker table of {@code table}'s schema ({@code schema.table}). */
    public ProbeResult probe(String table, String runId, UUID publishToken) {
        requireNonNull(table, "table is null");
        requireNonNull(runId, "runId is null");
        requireNonNull(publishToken, "publishToken is null");
        WarehouseDialect dialect = connector.dialect();
        String schema = table.split("\\.")[0];
        String marker = dialect.qualified(schema, WarehouseTable.MARKER_TABLE);
        try (Connection connection = connector.connect()) {
            if (!dialect.exists(connection, schema, WarehouseTable.MARKER_TABLE)) {
                return new ProbeResult(ProbeResult.Status.NOT_FOUND, null, "schema " + schema + " has no "
                        + WarehouseTable.MARKER_TABLE + " table, so no publish with token " + publishToken + " landed");
            }
            var found = dialect.findPublish(connection, schema, publishToken);
            if (found.isEmpty()) {
                return new ProbeResult(ProbeResult.Status.NOT_FOUND, null, marker + " holds no publish with token "
                        + publishToken);
            }
            RecordedPublish recorded = found.get();
            if (!runId.equals(recorded.runId())) {
                throw new IllegalStateException(marker + " records publish token " + publishToken + " for run "
                        + recorded.runId() + ", not " + runId);
            }
            return new ProbeResult(ProbeResult.Status.PUBLISHED, recorded.ref(), dialect.describe(recorded.ref())
                    + " committed " + recorded.rowCount() + " rows into " + table + " at " + recorded.committedAt()
                    + " with publish token " + publishToken + " of run " + runId);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read " + marker + ": " + e.getMessage(), e);
        }
    }

    /**
     * Creates the table and what a publish needs when absent, as the first publish would; for {@code loadgate setup}.
     *
     * @return true when the table did not exist before
     * @throws TargetMismatchException when it exists with other columns, or cannot take a publish
     */
    public boolean createIfAbsent(WarehouseTable table) throws SQLException {
        try (Connection connection = connector.connect()) {
            boolean existed = connector.dialect().exists(connection, table.schemaName(), table.tableName());
            prepare(connection, connector.dialect(), table);
            return !existed;
        }
    }

    /**
     * Checks, before a run is created, that the warehouse can take it: it accepts the connection (address and
     * credentials) and the table, if it exists, has the staged columns. A table that lacks new source columns, after
     * its own, is refused unless {@code policy} adds them here ({@code ALTER TABLE ... ADD COLUMN}). An absent table
     * is left to the first publish, which creates it.
     *
     * @return the names of the columns added; empty when none were
     * @throws TargetMismatchException when the table does not fit, naming the columns
     */
    public List<String> check(WarehouseTable table, SchemaPolicy policy) throws SQLException {
        requireNonNull(table, "table is null");
        requireNonNull(policy, "policy is null");
        WarehouseDialect dialect = connector.dialect();
        try (Connection connection = connector.connect()) {
            table.businessKeyPredicate(dialect);
            if (!dialect.exists(connection, table.schemaName(), table.tableName())) {
                return List.of();
            }
            List<String> actual = dialect.columns(connection, table);
            List<String> expected = table.expectedColumns(dialect);
            if (actual.size() >= expected.size() || !expected.subList(0, actual.size()).equals(actual)) {
                checkColumns(connection, dialect, table);
                return List.of();
            }
            List<Types.NestedField> missing = table.columns().columns().subList(actual.size(), expected.size());
            List<String> names = missing.stream().map(Types.NestedField::name).toList();
            if (policy == SchemaPolicy.EXACT) {
                throw TargetMismatchException.newColumns(table.qualifiedName(dialect), names);
            }
            connection.setAutoCommit(true);
            try (Statement statement = connection.createStatement()) {
                for (Types.NestedField column : missing) {
                    statement.execute("ALTER TABLE " + table.qualifiedName(dialect) + " ADD COLUMN "
                            + dialect.quote(column.name()) + " " + dialect.sqlType(column.type()));
                }
            } catch (SQLException e) {
                // Two loads of the job checked at once and the other one added them first: fine if they are there.
                if (!dialect.columns(connection, table).equals(expected)) {
                    throw e;
                }
            }
            checkColumns(connection, dialect, table);
            return names;
        }
    }

    /**
     * Creates what is missing — schema, table, business-key index, marker table — each in its own committed
     * statement (idempotent, and harmless if the publish then fails), and checks an existing table's columns.
     */
    static void prepare(Connection connection, WarehouseDialect dialect, WarehouseTable table) throws SQLException {
        // Before anything is created: a business key the dialect cannot select by is refused here.
        table.businessKeyPredicate(dialect);
        connection.setAutoCommit(true);
        try (Statement statement = connection.createStatement()) {
            for (String create : dialect.createStatements(table)) {
                statement.execute(create);
            }
        }
        addGenerationColumn(connection, dialect, table);
        checkColumns(connection, dialect, table);
    }

    /**
     * Marker tables created before publishes were fenced lack the generation column (their rows' generation is
     * null: no fence). Added by a check and ALTER rather than ADD COLUMN IF NOT EXISTS, which MySQL lacks; another
     * worker adding it at the same moment makes ours fail, and the second look then finds it.
     */
    private static void addGenerationColumn(Connection connection, WarehouseDialect dialect, WarehouseTable table)
            throws SQLException {
        if (dialect.columnType(connection, table.schemaName(), WarehouseTable.MARKER_TABLE, GENERATION) != null) {
            return;
        }
        try (Statement statement = connection.createStatement()) {
            statement.execute("ALTER TABLE " + table.markerName(dialect) + " ADD COLUMN " + GENERATION + " bigint");
        } catch (SQLException e) {
            if (dialect.columnType(connection, table.schemaName(), WarehouseTable.MARKER_TABLE, GENERATION) == null) {
                throw e;
            }
        }
    }

    /** The newest generation the marker table holds for the request's job and business key; null for none. */
    private static Long latestGeneration(Connection connection, WarehouseDialect dialect, WarehouseTable table,
                                         PublishRequest request) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT max(" + GENERATION + ") FROM "
                + table.markerName(dialect) + " WHERE target_table = ? AND job_key = ? AND business_key = ?")) {
            select.setString(1, table.schemaName() + "." + table.tableName());
            select.setString(2, request.jobKey());
            select.setString(3, request.businessKey());
            try (ResultSet rs = select.executeQuery()) {
                rs.next();
                long value = rs.getLong(1);
                return rs.wasNull() ? null : value;
            }
        }
    }

    static void checkColumns(Connection connection, WarehouseDialect dialect, WarehouseTable table) throws SQLException {
        List<String> actual = dialect.columns(connection, table);
        if (!actual.equals(table.expectedColumns(dialect))) {
            throw new TargetMismatchException("table " + table.qualifiedName(dialect) + " has columns " + actual
                    + " but the staged files hold " + table.expectedColumns(dialect));
        }
    }

    private long load(Connection connection, WarehouseDialect dialect, WarehouseTable table, List<StagedFile> files)
            throws SQLException, IOException {
        if (files.isEmpty()) {
            return 0;
        }
        StagedFilesReader reader = new StagedFilesReader(hadoop);
        List<URI> uris = files.stream().map(f -> URI.create(f.location())).toList();
        long rows;
        try (CloseableIterable<Record> records = reader.read(table.columns(), uris)) {
            rows = dialect.load(connection, table, records);
        }
        long expected = files.stream().mapToLong(StagedFile::recordCount).sum();
        if (rows != expected) {
            throw new IllegalStateException("the files hold " + rows + " rows but the ledger recorded " + expected);
        }
        return rows;
    }

    private static void rollbackQuietly(Connection connection, Exception failure) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            // The server rolls back a transaction whose connection is gone: nothing was committed either way.
            failure.addSuppressed(e);
        }
    }

    private static PublishOutcome failed(ErrorCode code, String message) {
        return new PublishOutcome(Status.FAILED_PUBLISH, null, code, message);
    }
}

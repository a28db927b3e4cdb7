package io.loadgate.worker.warehouse;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.publish.ProbeResult;
import io.loadgate.worker.publish.PublishOutcome;
import io.loadgate.worker.publish.PublishOutcome.ErrorCode;
import io.loadgate.worker.publish.PublishOutcome.Status;
import io.loadgate.worker.publish.PublishRequest;
import io.loadgate.worker.publish.Publisher;
import io.loadgate.worker.publish.StagedFile;
import io.loadgate.worker.publish.TargetMismatchException;
import io.loadgate.worker.validation.StagedFilesReader;
import java.io.IOException;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

/**
 * Publishes into a PostgreSQL warehouse table: one transaction deletes the business key's rows, copies in the rows
 * of exactly the ledger's files, and records the publish token in the schema's {@code loadgate_publish} table.
 * Unlike an Iceberg commit, this copies the data, so publish time grows with the rows; what stays the same is
 * that readers see the old rows or the new ones, never a mix, and that the token tells afterwards whether it landed.
 *
 * <p>Outcomes: a failure before COMMIT is sent rolls the transaction back, so FAILED_PUBLISH; a COMMIT that fails
 * with a definite error from the server was rolled back too; a COMMIT whose answer is lost (the connection broke)
 * is PUBLISH_UNKNOWN, and the probe looks for the token.
 */
public final class WarehousePublisher implements Publisher {
    private static final int COPY_BUFFER = 1 << 16;

    private final WarehouseConnector connector;
    private final Configuration hadoop;

    public WarehousePublisher(WarehouseConnector connector, Configuration hadoop) {
        this.connector = requireNonNull(connector, "connector is null");
        this.hadoop = requireNonNull(hadoop, "hadoop is null");
    }

    @Override
    public PublishOutcome publish(PublishRequest request) {
        requireNonNull(request, "request is null");
        WarehouseTable table = WarehouseTable.of(request.target().identifier().toString(), request.target().schema(),
                request.target().businessKeyColumn());
        try (Connection connection = connector.connect()) {
            try {
                prepare(connection, table);
            } catch (TargetMismatchException e) {
                return failed(ErrorCode.TARGET_MISMATCH, e.getMessage());
            }
            connection.setAutoCommit(false);
            long txid;
            long rows;
            try {
                lockBusinessKey(connection, table, request.businessKey());
                txid = txid(connection);
                try (PreparedStatement delete = connection.prepareStatement(table.deleteBusinessKey())) {
                    delete.setString(1, request.businessKey());
                    delete.executeUpdate();
                }
                rows = copy(connection, table, request.files());
                try (PreparedStatement marker = connection.prepareStatement(table.insertMarker())) {
                    marker.setObject(1, request.publishToken());
                    marker.setObject(2, UUID.fromString(request.runId()));
                    marker.setString(3, request.jobKey());
                    marker.setString(4, table.schemaName() + "." + table.tableName());
                    marker.setString(5, request.businessKey());
                    marker.setLong(6, rows);
                    marker.setLong(7, txid);
                    marker.executeUpdate();
                }
            } catch (SQLException | IOException | RuntimeException e) {
                rollbackQuietly(connection, e);
                return failed(ErrorCode.NOT_COMMITTED, "nothing was committed to " + table.qualifiedName() + ": "
                        + e.getMessage());
            }
            try {
                connection.commit();
            } catch (SQLException e) {
                if (connectionLost(e)) {
                    return new PublishOutcome(Status.PUBLISH_UNKNOWN, null, ErrorCode.COMMIT_INTERRUPTED,
                            "COMMIT of transaction " + txid + " on " + table.qualifiedName() + " got no answer: "
                                    + e.getMessage());
                }
                return failed(ErrorCode.COMMIT_CONFLICT, "the warehouse refused COMMIT of transaction " + txid + ": "
                        + e.getMessage());
            }
            return new PublishOutcome(Status.PUBLISHED, Long.toString(txid), null, "transaction " + txid
                    + " replaced " + table.businessKeyColumn() + " = " + request.businessKey() + " of "
                    + table.qualifiedName() + " with " + rows + " rows from " + request.files().size() + " files");
        } catch (SQLException e) {
            // Connecting or preparing the table failed: no transaction touched the rows.
            return failed(ErrorCode.NOT_COMMITTED, "cannot prepare " + table.qualifiedName() + ": " + e.getMessage());
        }
    }

    @Override
    public ProbeResult probe(TableIdentifier identifier, String runId, UUID publishToken) {
        requireNonNull(identifier, "identifier is null");
        requireNonNull(runId, "runId is null");
        requireNonNull(publishToken, "publishToken is null");
        String schema = identifier.namespace().toString();
        String marker = WarehouseTable.markerName(schema);
        try (Connection connection = connector.connect()) {
            if (!exists(connection, schema, WarehouseTable.MARKER_TABLE)) {
                return new ProbeResult(ProbeResult.Status.NOT_FOUND, null, "schema " + schema + " has no "
                        + WarehouseTable.MARKER_TABLE + " table, so no publish with token " + publishToken + " landed");
            }
            try (PreparedStatement select = connection.prepareStatement(WarehouseTable.selectMarker(schema))) {
                select.setObject(1, publishToken);
                try (ResultSet rs = select.executeQuery()) {
                    if (!rs.next()) {
                        return new ProbeResult(ProbeResult.Status.NOT_FOUND, null, marker
                                + " holds no publish with token " + publishToken);
                    }
                    String recordedRun = rs.getString("run_id");
                    if (!runId.equals(recordedRun)) {
                        throw new IllegalStateException(marker + " records publish token " + publishToken
                                + " for run " + recordedRun + ", not " + runId);
                    }
                    long txid = rs.getLong("txid");
                    return new ProbeResult(ProbeResult.Status.PUBLISHED, txid, "transaction " + txid + " committed "
                            + rs.getLong("row_count") + " rows into " + identifier + " at "
                            + rs.getObject("committed_at", java.time.OffsetDateTime.class) + " with publish token "
                            + publishToken + " of run " + runId);
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read " + marker + ": " + e.getMessage(), e);
        }
    }

    /**
     * Creates the table and what a publish needs when absent, as the first publish would; for {@code loadgate setup}.
     *
     * @return true when the table did not exist before
     * @throws TargetMismatchException when it exists with other columns
     */
    public boolean createIfAbsent(WarehouseTable table) throws SQLException {
        try (Connection connection = connector.connect()) {
            boolean existed = exists(connection, table.schemaName(), table.tableName());
            prepare(connection, table);
            return !existed;
        }
    }

    /**
     * Creates what is missing — schema, table, business-key index, marker table — each in its own committed
     * statement (idempotent, and harmless if the publish then fails), and checks an existing table's columns.
     */
    static void prepare(Connection connection, WarehouseTable table) throws SQLException {
        connection.setAutoCommit(true);
        try (Statement statement = connection.createStatement()) {
            statement.execute(table.createSchema());
            statement.execute(table.createTable());
            statement.execute(table.createBusinessKeyIndex());
            statement.execute(table.createMarker());
        }
        List<String> actual = new ArrayList<>();
        try (PreparedStatement columns = connection.prepareStatement("""
                SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a
                 WHERE a.attrelid = to_regclass(?) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum
                """)) {
            columns.setString(1, table.qualifiedName());
            try (ResultSet rs = columns.executeQuery()) {
                while (rs.next()) {
                    actual.add(rs.getString(1) + " " + rs.getString(2));
                }
            }
        }
        if (!actual.equals(table.expectedColumns())) {
            throw new TargetMismatchException("table " + table.qualifiedName() + " has columns " + actual
                    + " but the staged files hold " + table.expectedColumns());
        }
    }

    private long copy(Connection connection, WarehouseTable table, List<StagedFile> files) throws SQLException, IOException {
        if (files.isEmpty()) {
            return 0;
        }
        StagedFilesReader reader = new StagedFilesReader(hadoop);
        List<URI> uris = files.stream().map(f -> URI.create(f.location())).toList();
        CopyIn copy = connection.unwrap(PGConnection.class).getCopyAPI().copyIn(table.copyIn());
        long rows = 0;
        try (CloseableIterable<Record> records = reader.read(table.columns(), uris)) {
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
        long expected = files.stream().mapToLong(StagedFile::recordCount).sum();
        if (rows != expected) {
            throw new IllegalStateException("the files hold " + rows + " rows but the ledger recorded " + expected);
        }
        return rows;
    }

    private static void write(CopyIn copy, StringBuilder buffer) throws SQLException {
        byte[] bytes = buffer.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        copy.writeToCopy(bytes, 0, bytes.length);
        buffer.setLength(0);
    }

    /**
     * Serialises publishes (and rollbacks) of one business key of one table until the transaction ends. Without it
     * two jobs writing the same key could both delete the old rows and both copy theirs in: under READ COMMITTED a
     * DELETE does not see rows another transaction committed after the DELETE began.
     */
    static void lockBusinessKey(Connection connection, WarehouseTable table, String businessKey) throws SQLException {
        lockBusinessKey(connection, table.schemaName() + "." + table.tableName(), businessKey);
    }

    static void lockBusinessKey(Connection connection, String table, String businessKey) throws SQLException {
        try (PreparedStatement lock = connection.prepareStatement("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))")) {
            lock.setString(1, "loadgate:" + table + ":" + businessKey);
            lock.execute();
        }
    }

    private static long txid(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery("SELECT txid_current()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static boolean exists(Connection connection, String schema, String table) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
            statement.setString(1, WarehouseTable.quote(schema) + "." + WarehouseTable.quote(table));
            try (ResultSet rs = statement.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /** SQLSTATE class 08 (or none at all): the connection broke, so the server's answer is unknown. */
    private static boolean connectionLost(SQLException e) {
        return e.getSQLState() == null || e.getSQLState().startsWith("08");
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

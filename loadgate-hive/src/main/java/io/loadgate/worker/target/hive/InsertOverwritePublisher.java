package io.loadgate.worker.target.hive;

import static io.loadgate.worker.publish.IcebergPublisher.BUSINESS_KEY_PROPERTY;
import static io.loadgate.worker.publish.IcebergPublisher.JOB_KEY_PROPERTY;
import static io.loadgate.worker.publish.IcebergPublisher.PUBLISH_GENERATION_PROPERTY;
import static io.loadgate.worker.publish.IcebergPublisher.PUBLISH_TOKEN_PROPERTY;
import static io.loadgate.worker.publish.IcebergPublisher.RUN_ID_PROPERTY;
import static java.util.Objects.requireNonNull;

import io.loadgate.worker.publish.PublishFence;
import io.loadgate.worker.publish.PublishFencedException;
import io.loadgate.worker.publish.PublishOutcome;
import io.loadgate.worker.publish.PublishOutcome.ErrorCode;
import io.loadgate.worker.target.TargetException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.hadoop.hive.metastore.IMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.thrift.TException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code publish: insert_overwrite}: one {@code INSERT OVERWRITE TABLE t PARTITION (...) SELECT ... FROM staging}
 * through HiveServer2, where the staging table is an EXTERNAL table of the run over the {@link PublishDirectory} built
 * from the ledger's file list, so Hive reads exactly the run's data files and never a rejects file, a zombie
 * attempt's chunk or a {@code _tmp} file beside them.
 *
 * <p><b>Never retried, and why an unknown stays unknown.</b> HiveQL writes nothing of the caller's with the data:
 * {@code INSERT OVERWRITE} cannot set partition properties, {@code ALTER TABLE ... PARTITION ... SET TBLPROPERTIES}
 * does not parse, and SerDe properties set beforehand are dropped by the overwrite. So the publish token is recorded
 * in the partition's parameters through the metastore only after HiveServer2 confirmed the statement, and a lost
 * answer (a broken connection, a timeout) leaves no trace that tells whether the statement ran, is still running
 * (HiveServer2 does not stop a query whose client vanished at once), or never started. Such an outcome is
 * PUBLISH_UNKNOWN with the statement's HiveServer2 query id, and the probe settles it only when the partition names
 * this run; otherwise an operator does, from the query id. Sending the statement again could land an older run's
 * rows over a newer one's, so it is never sent twice.
 *
 * <p><b>The fence</b> is checked before the statement, not with it: Hive has no conditional {@code INSERT
 * OVERWRITE}. The partition's recorded generation must not be ahead of this publish's, and the deadline must not have
 * passed when the statement is sent. The ledger lets one attempt of a key publish at a time, so a stale statement is
 * only one sent before its deadline that HiveServer2 ran after it. The partition's metastore lock is not taken: under
 * Hive's transaction manager the statement takes its own lock on the partition and would wait behind ours.
 */
final class InsertOverwritePublisher {
    private static final Logger LOG = LoggerFactory.getLogger(InsertOverwritePublisher.class);
    /** The HiveServer2 query id of the statement that wrote the partition, in its parameters. */
    static final String QUERY_ID_PROPERTY = "loadgate.hive-query-id";

    private final HiveServer2Connector hiveServer2;
    private final MetastoreConnector metastore;
    private final HiveTable table;

    InsertOverwritePublisher(HiveServer2Connector hiveServer2, MetastoreConnector metastore, HiveTable table) {
        this.hiveServer2 = requireNonNull(hiveServer2, "hiveServer2 is null");
        this.metastore = requireNonNull(metastore, "metastore is null");
        this.table = requireNonNull(table, "table is null");
    }

    /**
     * One publish: the partition's values, where the run's data files were gathered, and the staged columns they hold.
     */
    /** A {@link HivePublisher.Swap}'s partition and fence, and the staged files' columns its staging table reads. */
    record Insert(HivePublisher.Swap partition, List<FieldSchema> stagedColumns) {
        Insert {
            requireNonNull(partition, "partition is null");
            stagedColumns = List.copyOf(stagedColumns);
        }
    }

    /** The run's staging table, in the target's database: named by the run so that a later attempt replaces it. */
    String stagingTable(String runId) {
        return table.database() + ".loadgate_stage_" + runId.replace("-", "");
    }

    PublishOutcome publish(Insert insert) {
        String where;
        List<String> selected;
        try (IMetaStoreClient client = metastore.open()) {
            HivePublisher partitions = new HivePublisher(client, table);
            where = "partition " + partitions.partitionName(insert.partition().values()) + " of Hive table " + table;
            Table current = client.getTable(table.database(), table.name());
            selected = current.getSd().getCols().stream().map(FieldSchema::getName).toList();
            Optional<Partition> existing = partitions.partition(insert.partition().values());
            if (existing.isPresent()) {
                String recorded = existing.get().getParameters().get(PUBLISH_GENERATION_PROPERTY);
                insert.partition().fence().checkNotBehind(recorded == null ? null : Long.valueOf(recorded), where);
            }
        } catch (PublishFencedException e) {
            return PublishOutcome.failed(ErrorCode.PUBLISH_FENCED, e.getMessage());
        } catch (TException | RuntimeException e) {
            return PublishOutcome.failed(ErrorCode.NOT_COMMITTED, "publish of run " + insert.partition().runId() + " to Hive table "
                    + table + " not started: the metastore could not be read: " + TargetException.oneLine(e));
        }
        String staging = stagingTable(insert.partition().runId());
        String statement = insertOverwrite(insert.partition().values(), selected, staging);
        Connection connection;
        Statement sql;
        try {
            connection = hiveServer2.open();
        } catch (SQLException | RuntimeException e) {
            return PublishOutcome.failed(ErrorCode.NOT_COMMITTED, "publish of run " + insert.partition().runId() + " to " + where
                    + " not started: HiveServer2 did not take the connection: " + TargetException.oneLine(e));
        }
        try {
            try {
                sql = connection.createStatement();
                sql.execute("DROP TABLE IF EXISTS " + staging);
                sql.execute(createStaging(staging, insert.stagedColumns(), insert.partition().location()));
                insert.partition().fence().checkDeadline();
            } catch (PublishFencedException e) {
                dropStaging(connection, staging);
                return PublishOutcome.failed(ErrorCode.PUBLISH_FENCED, e.getMessage());
            } catch (SQLException | RuntimeException e) {
                return PublishOutcome.failed(ErrorCode.NOT_COMMITTED, "publish of run " + insert.partition().runId() + " to "
                        + where + " not started: staging table " + staging + " over " + insert.partition().location()
                        + " could not be made: " + TargetException.oneLine(e));
            }
            try {
                submit(sql, statement);
            } catch (SQLException e) {
                if (refusedBeforeRunning(e)) {
                    dropStaging(connection, staging);
                    return PublishOutcome.failed(ErrorCode.NOT_COMMITTED, "HiveServer2 refused the INSERT OVERWRITE of "
                            + where + " before running it (SQLState " + e.getSQLState() + "): "
                            + TargetException.oneLine(e));
                }
                return unknown(insert, where, staging, queryId(sql), e);
            } catch (RuntimeException e) {
                return unknown(insert, where, staging, queryId(sql), e);
            }
            // Known from here on: the statement was accepted, so a lost answer below can be looked up by it.
            String queryId = queryId(sql);
            try {
                awaitCompletion(sql);
            } catch (SQLException | RuntimeException e) {
                return unknown(insert, where, staging, queryId, e);
            }
            String recorded = record(insert, queryId);
            dropStaging(connection, staging);
            return PublishOutcome.published(insert.partition().fence().generation(), where + " overwritten by HiveServer2 query id "
                    + queryId + " from staging table " + staging + " over " + insert.partition().location() + " (generation "
                    + insert.partition().fence().generation() + ")" + recorded);
        } finally {
            close(connection);
        }
    }

    /** The outcome is decided before: a connection that cannot be closed (it broke, say) changes nothing of it. */
    private static void close(Connection connection) {
        try {
            connection.close();
        } catch (SQLException | RuntimeException e) {
            LOG.debug("closing the HiveServer2 connection failed: {}", e.toString());
        }
    }

    private PublishOutcome unknown(Insert insert, String where, String staging, String queryId, Exception e) {
        return PublishOutcome.unknown(ErrorCode.COMMIT_INTERRUPTED, "the INSERT OVERWRITE of " + where
                + " got no confirmed answer (" + TargetException.oneLine(e) + "); HiveServer2 query id " + queryId
                + "; it is never sent again: look the query up in HiveServer2 (its log or query history) and resolve"
                + " the run by hand; staging table " + staging + " over " + insert.partition().location() + " is kept");
    }

    /**
     * Records the run in the partition's parameters through the metastore, so that a probe after a later lost answer
     * can tell this publish from another. The data landed either way: a failure here is reported in the message.
     */
    private String record(Insert insert, String queryId) {
        try (IMetaStoreClient client = metastore.open()) {
            Optional<Partition> written = new HivePublisher(client, table).partition(insert.partition().values());
            if (written.isEmpty()) {
                return "; the metastore shows no partition after it, so the run is not recorded in its parameters";
            }
            Partition partition = written.get();
            Map<String, String> parameters = new HashMap<>(partition.getParameters());
            parameters.put(RUN_ID_PROPERTY, insert.partition().runId());
            parameters.put(PUBLISH_TOKEN_PROPERTY, insert.partition().publishToken().toString());
            parameters.put(JOB_KEY_PROPERTY, insert.partition().jobKey());
            parameters.put(BUSINESS_KEY_PROPERTY, insert.partition().businessKey());
            parameters.put(PUBLISH_GENERATION_PROPERTY, Long.toString(insert.partition().fence().generation()));
            parameters.put(HivePublisher.COMMITTED_AT_PROPERTY, Instant.now().toString());
            parameters.put(QUERY_ID_PROPERTY, queryId);
            partition.setParameters(parameters);
            client.alter_partition(table.database(), table.name(), partition, null);
            return "";
        } catch (TException | RuntimeException e) {
            LOG.warn("run {}: the partition was overwritten, but recording the run in its parameters failed: {}",
                    insert.partition().runId(), e.toString());
            return "; recording the run in the partition's parameters failed (" + TargetException.oneLine(e) + ")";
        }
    }

    private static void dropStaging(Connection connection, String staging) {
        try (Statement drop = connection.createStatement()) {
            // EXTERNAL: its files, the ledger's, stay for cleanup.
            drop.execute("DROP TABLE IF EXISTS " + staging);
        } catch (SQLException | RuntimeException e) {
            LOG.warn("could not drop staging table {}: {}", staging, e.toString());
        }
    }

    String insertOverwrite(List<String> values, List<String> selected, String staging) {
        List<String> keys = table.partitioning().columns();
        StringBuilder partition = new StringBuilder();
        for (int i = 0; i < keys.size(); i++) {
            partition.append(i == 0 ? "" : ", ").append(quoted(keys.get(i))).append("=").append(literal(values.get(i)));
        }
        return "INSERT OVERWRITE TABLE " + quoted(table.database()) + "." + quoted(table.name()) + " PARTITION ("
                + partition + ") SELECT " + selected.stream().map(InsertOverwritePublisher::quoted)
                .collect(Collectors.joining(", ")) + " FROM " + staging;
    }

    static String createStaging(String staging, List<FieldSchema> columns, String location) {
        return "CREATE EXTERNAL TABLE " + staging + " (" + columns.stream()
                .map(c -> quoted(c.getName()) + " " + c.getType()).collect(Collectors.joining(", "))
                + ") STORED AS PARQUET LOCATION " + literal(location);
    }

    /** A HiveQL identifier: Loadgate's names are checked SQL names already; a backtick would end the quoting. */
    private static String quoted(String name) {
        if (name.indexOf('`') >= 0) {
            throw new IllegalArgumentException("a Hive name cannot hold a backtick: " + name);
        }
        return "`" + name + "`";
    }

    /** A HiveQL string literal of a partition value or a location, which never need a quote or a backslash. */
    private static String literal(String value) {
        if (value.indexOf('\'') >= 0 || value.indexOf('\\') >= 0) {
            throw new IllegalArgumentException("a quote or backslash in " + value);
        }
        return "'" + value + "'";
    }

    /**
     * Sends the statement without waiting for it to run (Hive's {@code HiveStatement#executeAsync}): HiveServer2
     * compiles it before answering, so a refusal comes here, and the answer carries the operation whose query id a
     * later lost answer is reported with. A driver without it runs the statement at once.
     */
    private static void submit(Statement sql, String statement) throws SQLException {
        Optional<Method> async = method(sql, "executeAsync", String.class);
        if (async.isEmpty()) {
            sql.execute(statement);
            return;
        }
        invoke(sql, async.get(), statement);
    }

    /** Hive's {@code getUpdateCount} polls the operation until it ends, and throws unless it FINISHED. */
    private static void awaitCompletion(Statement sql) throws SQLException {
        sql.getUpdateCount();
    }

    /** {@code HiveStatement#getQueryId} of the statement sent last; "(unknown)" when the driver cannot tell. */
    static String queryId(Statement sql) {
        if (sql == null) {
            return "(unknown)";
        }
        try {
            Optional<Method> id = method(sql, "getQueryId");
            Object value = id.isEmpty() ? null : invoke(sql, id.get());
            return value == null ? "(unknown)" : value.toString();
        } catch (SQLException | RuntimeException e) {
            return "(unknown: " + TargetException.oneLine(e) + ")";
        }
    }

    /**
     * A refusal while compiling: HiveServer2 answers a parse or semantic error with SQLState 42xxx ("Error while
     * compiling statement"), before any task of the statement ran. Everything else may have run.
     */
    static boolean refusedBeforeRunning(SQLException e) {
        String state = e.getSQLState();
        String message = e.getMessage() == null ? "" : e.getMessage();
        return state != null && state.startsWith("42") && message.startsWith("Error while compiling statement");
    }

    private static Optional<Method> method(Statement sql, String name, Class<?>... parameters) {
        try {
            return Optional.of(sql.getClass().getMethod(name, parameters));
        } catch (NoSuchMethodException e) {
            return Optional.empty();
        }
    }

    private static Object invoke(Statement sql, Method method, Object... arguments) throws SQLException {
        try {
            return method.invoke(sql, arguments);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof SQLException cause) {
                throw cause;
            }
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw new SQLException(e.getCause());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot call " + method + " of Hive's driver", e);
        }
    }
}

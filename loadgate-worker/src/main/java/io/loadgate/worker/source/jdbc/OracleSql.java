package io.loadgate.worker.source.jdbc;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.job.SourceSpec;
import io.loadgate.worker.job.ValidationSpec;
import io.loadgate.worker.source.ColumnType;
import io.loadgate.worker.source.Partition;
import io.loadgate.worker.source.PartitionBounds;
import io.loadgate.worker.source.SourceColumn;
import io.loadgate.worker.source.SourceException;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The statements of an Oracle snapshot source. Oracle's consistent point is a system change number: the planner
 * reads {@link #CURRENT_SCN} and every later statement, the planner's and each reader's, names that SCN with
 * {@code AS OF SCN} (flashback query). A table source gets the clause appended; a query source must place
 * {@code AS OF SCN :scn} after every table itself, since only its author knows its tables, and {@code :scn} is
 * replaced by the number. An SCN the undo no longer covers fails with ORA-01555 or ORA-08180, which the ledger
 * maps to FAILED_SNAPSHOT_EXPIRED.
 */
public final class OracleSql {
    public static final String CURRENT_SCN = "SELECT CURRENT_SCN FROM V$DATABASE";
    private static final Pattern SCN = Pattern.compile("[0-9]{1,38}");
    private static final Pattern SCN_PARAMETER = Pattern.compile("(?<!:):scn\\b");

    private final SourceSql sql;

    public OracleSql(SourceSpec source, String scn) {
        requireNonNull(source, "source is null");
        if (scn == null || !SCN.matcher(scn).matches()) {
            throw new IllegalArgumentException("an SCN is digits only, got " + scn);
        }
        // The SCN is validated digits, so it can be spliced into the text: AS OF SCN takes it as a literal.
        this.sql = new SourceSql(source, relation(source, scn), (column, type) -> column);
    }

    private static String relation(SourceSpec source, String scn) {
        if (source.table() != null) {
            return source.table() + " AS OF SCN " + scn;
        }
        if (!SCN_PARAMETER.matcher(source.query()).find()) {
            throw new SourceException("an Oracle source.query must read every table AS OF SCN :scn");
        }
        return "(" + SCN_PARAMETER.matcher(source.query()).replaceAll(scn) + ") src";
    }

    public BoundSql describe() {
        return sql.describe();
    }

    public BoundSql stats(String businessKey, ValidationSpec validation, List<SourceColumn> columns) {
        return sql.stats(businessKey, validation, columns);
    }

    public BoundSql partitionCounts(String businessKey, List<PartitionBounds> ranges, ColumnType splitType) {
        return sql.partitionCounts(businessKey, ranges, splitType);
    }

    public BoundSql duplicateKeys(String businessKey, List<String> keyColumns) {
        return sql.duplicateKeys(businessKey, keyColumns);
    }

    public BoundSql readPartition(String businessKey, List<String> columns, Partition partition, ColumnType splitType) {
        return sql.readPartition(businessKey, columns, partition, splitType);
    }
}

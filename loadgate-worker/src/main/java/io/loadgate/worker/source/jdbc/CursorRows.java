package io.loadgate.worker.source.jdbc;

import io.loadgate.worker.source.PartitionRows;
import io.loadgate.worker.source.SnapshotExpiredException;
import io.loadgate.worker.source.SourceColumn;
import io.loadgate.worker.source.SourceException;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A partition's rows from an open result set; {@code release} gives its connection back when it is closed. */
final class CursorRows implements PartitionRows {
    private static final Logger LOG = LoggerFactory.getLogger(CursorRows.class);
    // snapshot_too_old, raised mid-scan by PostgreSQL 16 and older when old_snapshot_threshold is set.
    static final String SNAPSHOT_TOO_OLD = "72000";

    private final Statement statement;
    private final ResultSet rs;
    private final List<SourceColumn> columns;
    private final ConnectionRelease release;
    private final Object[] row;
    private JdbcValues.Reader[] readers;
    private boolean closed;
    private boolean exhausted;

    CursorRows(Statement statement, ResultSet rs, List<SourceColumn> columns, ConnectionRelease release) {
        this.statement = statement;
        this.rs = rs;
        this.columns = List.copyOf(columns);
        this.release = release;
        this.row = new Object[columns.size()];
    }

    @Override
    public List<SourceColumn> columns() {
        return columns;
    }

    @Override
    public boolean next() {
        try {
            if (!rs.next()) {
                exhausted = true;
                return false;
            }
            if (readers == null) {
                // Here rather than in the constructor, which has no SQLException to give.
                readers = JdbcValues.readers(rs, columns);
            }
            for (int i = 0; i < row.length; i++) {
                row[i] = readers[i].read(rs, i + 1);
            }
            return true;
        } catch (SQLException e) {
            throw readFailure(e);
        }
    }

    /** The failure of a partition's read that was under way. */
    static SourceException readFailure(SQLException e) {
        if (SNAPSHOT_TOO_OLD.equals(e.getSQLState())) {
            return new SnapshotExpiredException("the source snapshot is too old: " + SourceConnections.firstLine(e.getMessage()), e);
        }
        return new SourceException("reading the source failed: " + SourceConnections.firstLine(e.getMessage()), e);
    }

    @Override
    public Object value(int index) {
        return row[index];
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        boolean ended = exhausted;
        try {
            rs.close();
            statement.close();
        } catch (SQLException e) {
            LOG.debug("closing a partition cursor failed", e);
            ended = false;
        }
        release.release(ended);
    }
}

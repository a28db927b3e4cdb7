package io.loadgate.worker.source.jdbc;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.source.PartitionRows;
import io.loadgate.worker.source.SourceColumn;
import io.loadgate.worker.source.SourceException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyOut;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.NativeQuery;
import org.postgresql.core.Parser;
import org.postgresql.util.ByteConverter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL partition's rows from {@code COPY (<the partition's SELECT>) TO STDOUT (FORMAT binary)}: the same
 * statement a cursor would run, in the same snapshot, its values decoded from the same binary representation
 * ({@link PgBinary}), so the rows are equal (PgCopyRowsTest compares them value by value).
 *
 * <p>Why: a cursor's rows arrive in batches of {@code fetch_size}, the server idle while the client decodes one, and
 * PgJDBC makes an array per field of every row and checks every getter call; the driver's row handling was a quarter
 * of a table extraction's worker CPU in a profile (bench/RESULTS.md). COPY streams without a pause, one array per row.
 *
 * <p>COPY takes no bind parameters, so the statement is the cursor's with each parameter as a literal: the
 * statement parsed by the driver's own parser (the one that finds its {@code ?} markers for the cursor), integers
 * printed by {@code Long.toString}, decimals by {@code BigDecimal.toPlainString}, text quoted by the server's
 * {@code quote_literal}, each cast to the type the driver would have bound it as. A column of a type not decoded
 * here keeps the cursor ({@link #open} is empty).
 */
final class PgCopyRows implements PartitionRows {
    private static final Logger LOG = LoggerFactory.getLogger(PgCopyRows.class);
    // The binary format's header: this signature, an int32 of flags and an int32 length of the extension after it.
    private static final byte[] SIGNATURE = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xFF, '\r', '\n', 0};
    // Bit 16 of the flags: OIDs included, which COPY of a query never sends.
    private static final int FLAG_OIDS = 1 << 16;
    private static final byte[] EMPTY = new byte[0];

    private final CopyOut copy;
    private final List<SourceColumn> columns;
    private final PgBinary.Decoder[] decoders;
    private final int[] widths;
    private final Runnable release;
    private final Object[] row;
    // The message being read (COPY sends a row per message, the header and the trailer with or beside one).
    private byte[] buffer = EMPTY;
    private int position;
    private boolean started;
    private boolean finished;
    private boolean closed;

    PgCopyRows(CopyOut copy, List<SourceColumn> columns, List<PgBinary.ColumnDecoder> decoders, Runnable release) {
        this.copy = copy;
        this.columns = List.copyOf(columns);
        this.decoders = decoders.stream().map(PgBinary.ColumnDecoder::decoder).toArray(PgBinary.Decoder[]::new);
        this.widths = decoders.stream().mapToInt(PgBinary.ColumnDecoder::width).toArray();
        this.release = requireNonNull(release, "release is null");
        this.row = new Object[columns.size()];
    }

    /**
     * Starts the COPY of {@code query} on {@code connection} (in the snapshot's transaction); empty, having sent
     * nothing, when a column's type is not one {@link PgBinary} decodes. {@code release} runs when the rows are
     * closed.
     */
    static Optional<PartitionRows> open(Connection connection, PartitionQuery query, Runnable release) throws SQLException {
        boolean integerTimestamps = JdbcValues.pgIntegerTimestamps(connection);
        List<PgBinary.ColumnDecoder> decoders = new ArrayList<>();
        for (int i = 0; i < query.columns().size(); i++) {
            PgBinary.ColumnDecoder decoder = PgBinary.decoder(query.columns().get(i), query.typeNames().get(i), integerTimestamps);
            if (decoder == null) {
                LOG.debug("column {} is {}: the partition is read through a cursor", query.columns().get(i).name(),
                        query.typeNames().get(i));
                return Optional.empty();
            }
            decoders.add(decoder);
        }
        String statement = copyStatement(connection, query.sql());
        CopyOut copy = connection.unwrap(PGConnection.class).getCopyAPI().copyOut(statement);
        return Optional.of(new PgCopyRows(copy, query.columns(), decoders, release));
    }

    /** The COPY of {@code read}'s rows, its parameters as literals (see the class comment). */
    static String copyStatement(Connection connection, BoundSql read) throws SQLException {
        BaseConnection base = connection.unwrap(BaseConnection.class);
        List<NativeQuery> parsed = Parser.parseJdbcSql(read.sql(), base.getStandardConformingStrings(), true, false,
                false, false);
        if (parsed.size() != 1 || parsed.get(0).bindPositions.length != read.parameters().size()) {
            throw new SourceException("the partition's statement is not one statement with " + read.parameters().size()
                    + " parameters: " + read.sql());
        }
        NativeQuery query = parsed.get(0);
        List<String> literals = literals(connection, read.parameters(), base.getStringVarcharFlag());
        StringBuilder copy = new StringBuilder("COPY (");
        int from = 0;
        for (int i = 0; i < query.bindPositions.length; i++) {
            int at = query.bindPositions[i];
            copy.append(query.nativeSql, from, at).append(literals.get(i));
            from = at + NativeQuery.bindName(i + 1).length();
        }
        return copy.append(query.nativeSql, from, query.nativeSql.length()).append(") TO STDOUT (FORMAT binary)").toString();
    }

    /** Each parameter as a literal of the type PgJDBC binds it as: int8, numeric, varchar (or unknown). */
    private static List<String> literals(Connection connection, List<Object> parameters, boolean stringsAsVarchar)
            throws SQLException {
        List<String> literals = new ArrayList<>(parameters.size());
        for (Object parameter : parameters) {
            if (parameter instanceof Long || parameter instanceof Integer) {
                literals.add("CAST(" + parameter + " AS int8)");
            } else if (parameter instanceof java.math.BigDecimal decimal) {
                literals.add("CAST(" + decimal.toPlainString() + " AS numeric)");
            } else if (parameter instanceof String text) {
                String quoted = quoteLiteral(connection, text);
                literals.add(stringsAsVarchar ? "CAST(" + quoted + " AS varchar)" : quoted);
            } else {
                throw new IllegalArgumentException("no literal for a parameter of " + parameter.getClass());
            }
        }
        return literals;
    }

    private static String quoteLiteral(Connection connection, String text) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("SELECT quote_literal(CAST(? AS text))")) {
            statement.setString(1, text);
            try (ResultSet rs = statement.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    @Override
    public List<SourceColumn> columns() {
        return columns;
    }

    @Override
    public boolean next() {
        if (finished) {
            return false;
        }
        try {
            if (!started) {
                readHeader();
                started = true;
            }
            require(2);
            int fields = ByteConverter.int2(buffer, position);
            position += 2;
            if (fields == -1) {
                readEnd();
                return false;
            }
            if (fields != row.length) {
                throw malformed("a row of " + fields + " fields, not " + row.length);
            }
            for (int i = 0; i < row.length; i++) {
                require(4);
                int length = ByteConverter.int4(buffer, position);
                position += 4;
                if (length == -1) {
                    row[i] = null;
                    continue;
                }
                if (length < 0 || widths[i] >= 0 && length != widths[i]) {
                    throw malformed("a value of " + length + " bytes in column " + columns.get(i).name());
                }
                require(length);
                row[i] = decoders[i].decode(buffer, position, length);
                position += length;
            }
            return true;
        } catch (SQLException e) {
            throw CursorRows.readFailure(e);
        }
    }

    private void readHeader() throws SQLException {
        require(SIGNATURE.length + 8);
        if (!Arrays.equals(buffer, position, position + SIGNATURE.length, SIGNATURE, 0, SIGNATURE.length)) {
            throw malformed("no binary COPY signature");
        }
        position += SIGNATURE.length;
        int flags = ByteConverter.int4(buffer, position);
        int extension = ByteConverter.int4(buffer, position + 4);
        position += 8;
        if ((flags & FLAG_OIDS) != 0 || extension < 0) {
            throw malformed("header flags " + Integer.toHexString(flags) + ", extension " + extension);
        }
        require(extension);
        position += extension;
    }

    /** After the trailer: nothing more may come, and the COPY must end as a success. */
    private void readEnd() throws SQLException {
        if (position != buffer.length || copy.readFromCopy() != null) {
            throw malformed("data after the trailer");
        }
        finished = true;
    }

    /** Makes {@code count} bytes available at {@code position}, joining messages where a value spans them. */
    private void require(int count) throws SQLException {
        int remaining = buffer.length - position;
        while (remaining < count) {
            byte[] next = copy.readFromCopy();
            if (next == null) {
                throw malformed("the COPY ended inside a row");
            }
            if (remaining == 0) {
                buffer = next;
            } else {
                byte[] joined = Arrays.copyOfRange(buffer, position, position + remaining + next.length);
                System.arraycopy(next, 0, joined, remaining, next.length);
                buffer = joined;
            }
            position = 0;
            remaining = buffer.length;
        }
    }

    private static SourceException malformed(String what) {
        return new SourceException("the source's binary COPY is malformed: " + what);
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
        try {
            if (copy.isActive()) {
                // Stopped early (a failure, a lost claim): the server stops sending, and the connection can close.
                copy.cancelCopy();
            }
        } catch (SQLException e) {
            LOG.debug("cancelling a partition's COPY failed", e);
        }
        release.run();
    }
}

package io.loadgate.worker.source.jdbc;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.source.ColumnType;
import io.loadgate.worker.source.PartitionRows;
import io.loadgate.worker.source.PrimitiveRow;
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
import org.apache.parquet.io.api.Binary;
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
 *
 * <p>A row's values are decoded when asked for: as the objects of {@link #value}, or, for a chunk writer, as the
 * primitives of {@link PrimitiveRow} straight from the row's bytes. A text value's bytes are the server's UTF-8 as
 * they are, which only a {@code SQL_ASCII} database (no encoding checked) might send invalid: there text is decoded
 * to a String as the driver does (invalid bytes replaced), and the rows are not offered as primitives.
 */
final class PgCopyRows implements PartitionRows, PrimitiveRow {
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
    private final boolean primitive;
    private final ConnectionRelease release;
    // The current row's values: where each starts, from the row's start, and its length (-1 for null).
    private final int[] offsets;
    private final int[] lengths;
    // The message being read (COPY sends a row per message, the header and the trailer with or beside one), and
    // where in it the current row starts: a row is kept whole in one array, its values read from it when asked.
    private byte[] buffer = EMPTY;
    private int position;
    private int rowStart;
    private boolean started;
    private boolean finished;
    private boolean closed;

    /** @param utf8 whether text values are valid UTF-8 (the database's encoding is not {@code SQL_ASCII}) */
    PgCopyRows(CopyOut copy, List<SourceColumn> columns, List<PgBinary.ColumnDecoder> decoders, boolean utf8,
               ConnectionRelease release) {
        this.copy = copy;
        this.columns = List.copyOf(columns);
        this.decoders = decoders.stream().map(PgBinary.ColumnDecoder::decoder).toArray(PgBinary.Decoder[]::new);
        this.widths = decoders.stream().mapToInt(PgBinary.ColumnDecoder::width).toArray();
        this.primitive = this.columns.stream().map(SourceColumn::type)
                .allMatch(type -> type != ColumnType.BINARY && (utf8 || type != ColumnType.STRING));
        this.release = requireNonNull(release, "release is null");
        this.offsets = new int[columns.size()];
        this.lengths = new int[columns.size()];
    }

    /**
     * Starts the COPY of {@code query} on {@code connection} (in the snapshot's transaction); empty, having sent
     * nothing, when a column's type is not one {@link PgBinary} decodes. {@code release} runs when the rows are
     * closed.
     */
    static Optional<PartitionRows> open(Connection connection, PartitionQuery query, ConnectionRelease release) throws SQLException {
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
        PGConnection pg = connection.unwrap(PGConnection.class);
        boolean utf8 = !"SQL_ASCII".equalsIgnoreCase(pg.getParameterStatus("server_encoding"));
        CopyOut copy = pg.getCopyAPI().copyOut(statement);
        return Optional.of(new PgCopyRows(copy, query.columns(), decoders, utf8, release));
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
            rowStart = position;
            require(2);
            int fields = ByteConverter.int2(buffer, position);
            position += 2;
            if (fields == -1) {
                readEnd();
                return false;
            }
            if (fields != lengths.length) {
                throw malformed("a row of " + fields + " fields, not " + lengths.length);
            }
            for (int i = 0; i < lengths.length; i++) {
                require(4);
                int length = ByteConverter.int4(buffer, position);
                position += 4;
                lengths[i] = length;
                if (length == -1) {
                    continue;
                }
                if (length < 0 || widths[i] >= 0 && length != widths[i]) {
                    throw malformed("a value of " + length + " bytes in column " + columns.get(i).name());
                }
                require(length);
                offsets[i] = position - rowStart;
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

    /**
     * Makes {@code count} bytes available at {@code position}, joining messages where a row spans them: the current
     * row's bytes read so far are kept, its values being read only when asked for.
     */
    private void require(int count) throws SQLException {
        int remaining = buffer.length - position;
        while (remaining < count) {
            byte[] next = copy.readFromCopy();
            if (next == null) {
                throw malformed("the COPY ended inside a row");
            }
            int kept = position - rowStart;
            if (remaining == 0 && kept == 0) {
                buffer = next;
            } else {
                byte[] joined = Arrays.copyOfRange(buffer, rowStart, position + remaining + next.length);
                System.arraycopy(next, 0, joined, kept + remaining, next.length);
                buffer = joined;
            }
            rowStart = 0;
            position = kept;
            remaining = buffer.length - position;
        }
    }

    private static SourceException malformed(String what) {
        return new SourceException("the source's binary COPY is malformed: " + what);
    }

    @Override
    public Object value(int index) {
        return lengths[index] == -1 ? null : decoders[index].decode(buffer, at(index), lengths[index]);
    }

    @Override
    public Optional<PrimitiveRow> primitiveRow() {
        return primitive ? Optional.of(this) : Optional.empty();
    }

    @Override
    public boolean isNull(int index) {
        return lengths[index] == -1;
    }

    @Override
    public boolean booleanValue(int index) {
        return buffer[at(index)] != 0;
    }

    @Override
    public int intValue(int index) {
        return widths[index] == 2 ? ByteConverter.int2(buffer, at(index)) : ByteConverter.int4(buffer, at(index));
    }

    @Override
    public long longValue(int index) {
        return ByteConverter.int8(buffer, at(index));
    }

    @Override
    public float floatValue(int index) {
        return ByteConverter.float4(buffer, at(index));
    }

    @Override
    public double doubleValue(int index) {
        return ByteConverter.float8(buffer, at(index));
    }

    @Override
    public Binary utf8(int index) {
        return Binary.fromReusedByteArray(buffer, at(index), lengths[index]);
    }

    @Override
    public long epochDay(int index) {
        return PgBinary.epochDay(columns.get(index), buffer, at(index));
    }

    @Override
    public long epochMicros(int index) {
        return PgBinary.epochMicros(columns.get(index), buffer, at(index));
    }

    @Override
    public long unscaled(int index, int scale) {
        int at = at(index);
        long unscaled = PgBinary.unscaled(buffer, at, lengths[index]);
        return unscaled != NOT_COMPACT && PgBinary.dscale(buffer, at) == scale ? unscaled : NOT_COMPACT;
    }

    private int at(int index) {
        return rowStart + offsets[index];
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
        release.release(finished);
    }
}

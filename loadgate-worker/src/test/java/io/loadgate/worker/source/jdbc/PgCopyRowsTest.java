package io.loadgate.worker.source.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loadgate.ledger.testing.TestDatabases;
import io.loadgate.ledger.testing.TestDatabases.TestDatabase;
import io.loadgate.worker.source.PartitionRows;
import io.loadgate.worker.source.SourceColumn;
import io.loadgate.worker.source.SourceException;
import io.loadgate.worker.job.Compression;
import io.loadgate.worker.job.StagingSpec;
import io.loadgate.worker.staging.ChunkNaming;
import io.loadgate.worker.staging.ChunkWriter;
import io.loadgate.worker.staging.SourceRecords;
import io.loadgate.worker.staging.SourceSchemas;
import io.loadgate.worker.staging.StagedChunk;
import java.io.ByteArrayOutputStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Schema;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyOut;

/**
 * A partition read by COPY gives the rows a cursor over the same statement gives, value for value, for every type
 * both decode, at the edges of what PostgreSQL holds; its parameters become literals that select the same rows.
 */
class PgCopyRowsTest {
    // Each column type PgBinary decodes, and n, the order.
    private static final String KINDS = """
            CREATE TABLE public.kinds (n int4 NOT NULL, s int2, b int8, d12 numeric(12,2), d38 numeric(38,10), r float4,
                f float8, ok bool, t text, v varchar(40), c char(5), bin bytea, day date, local timestamp, at timestamptz)""";
    private static TestDatabase db;

    @BeforeAll
    static void createKinds() throws SQLException {
        db = TestDatabases.create();
        try (Connection c = db.connect(); Statement st = c.createStatement()) {
            st.execute(KINDS);
            // Generated rows: every column null somewhere, values on both sides of zero, days before 1970 and 2000.
            st.execute("""
                    INSERT INTO public.kinds
                    SELECT g, CAST(g % 65535 - 32767 AS int2), CAST(g AS int8) * 1000003 - 5000000000, CASE WHEN g % 7 = 0 THEN NULL ELSE (g * 37 % 100000) / 100.0 - 400 END,
                           CASE WHEN g % 11 = 0 THEN NULL ELSE (g * 2654435761 % 1000000000000) / 3.0 END,
                           CASE WHEN g % 5 = 0 THEN NULL ELSE g / 7.0 END, CASE WHEN g % 6 = 0 THEN NULL ELSE g / -3.0 END,
                           CASE WHEN g % 4 = 0 THEN NULL ELSE g % 2 = 0 END,
                           CASE WHEN g % 9 = 0 THEN NULL ELSE 'row ' || g || repeat('é€', g % 4) END,
                           CASE WHEN g % 10 = 0 THEN NULL ELSE 'v' || g END, CASE WHEN g % 3 = 0 THEN NULL ELSE CAST(g % 100 AS text) END,
                           CASE WHEN g % 8 = 0 THEN NULL ELSE decode(md5(g::text), 'hex') END,
                           CASE WHEN g % 12 = 0 THEN NULL ELSE DATE '1960-01-01' + g * 13 END,
                           CASE WHEN g % 13 = 0 THEN NULL ELSE TIMESTAMP '1995-06-30 12:00:00' + g * interval '1 hour 7.123457 seconds' END,
                           CASE WHEN g % 14 = 0 THEN NULL ELSE TIMESTAMPTZ '1969-12-31 23:00:00+00' + g * interval '17 minutes 0.000001 seconds' END
                      FROM generate_series(1, 3000) g""");
            // The edges: extreme numbers, floats' specials, empty and multibyte text, BC and far-future instants.
            st.execute("""
                    INSERT INTO public.kinds VALUES
                      (-1, -32768, -9223372036854775808, -9999999999.99, -9999999999999999999999999999.9999999999, 'NaN', '-Infinity',
                       false, '', '', '', '', '4713-01-01 BC', '0001-01-01 00:00:00 BC', '4713-11-24 00:00:00+00 BC'),
                      (-2, 32767, 9223372036854775807, 9999999999.99, 9999999999999999999999999999.9999999999, 'Infinity', 'NaN',
                       true, 'a''b\\c?😀', 'it''s', 'x', '\\x00ff', '5874897-12-31', '294276-12-31 23:59:59.999999',
                       '294276-12-31 23:59:59.999999+00'),
                      (-3, 0, 0, 0, 0.0000000001, '-0', '-0', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                      (-4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)""");
        }
    }

    @Test
    void everyTypeReadsAsTheCursorReadsIt() throws SQLException {
        PartitionQuery query = query("SELECT * FROM public.kinds WHERE n >= ? AND n < ?", List.of(-10L, 3001L));

        List<List<Object>> copied = readCopy(query);
        List<List<Object>> cursor = readCursor(query);

        assertThat(copied).hasSize(3004).isEqualTo(cursor);
        assertThat(copied.stream().filter(row -> row.get(0).equals(-4)).findFirst().orElseThrow().subList(1, 15))
                .as("the all-null row").containsOnlyNulls();
    }

    @Test
    void theParametersBecomeLiteralsThatSelectTheSameRows() throws SQLException {
        // A key with a quote and a backslash; a '?' and a '$1' in literals and a comment, which are not parameters.
        String sql = "SELECT n, t FROM public.kinds WHERE (t <> 'what? $1' /* ? */ AND (v = ? OR t = ?)) OR n >= ? AND n <= ?";
        List<Object> parameters = List.of("it's", "a'b\\c?😀", 2990L, 2995L);
        PartitionQuery query = query(sql, parameters);

        String copy;
        try (Connection c = connect()) {
            copy = PgCopyRows.copyStatement(c, query.sql());
        }
        assertThat(copy).startsWith("COPY (SELECT n, t FROM public.kinds WHERE (t <> 'what? $1' /* ? */ AND")
                .contains("CAST('it''s' AS varchar)", "CAST(2990 AS int8)").endsWith(") TO STDOUT (FORMAT binary)");
        assertThat(readCopy(query)).hasSize(7).isEqualTo(readCursor(query));
    }

    @Test
    void aValueSplitAcrossMessagesReadsAsWhole() throws Exception {
        PartitionQuery query = query("SELECT * FROM public.kinds WHERE n >= ? AND n < ?", List.of(-10L, 500L));
        byte[] stream = copied(query);
        List<List<Object>> whole = readCopy(query);
        Random random = new Random(7);
        for (int maxPiece : new int[] {1, 3, 7, 64}) {
            CopyOut pieces = new PiecesCopyOut(stream, random, maxPiece);
            List<List<Object>> rows = read(new PgCopyRows(pieces, query.columns(), decoders(query), true, readToTheEnd -> { }));
            assertThat(rows).as("messages of 1..%d bytes", maxPiece).isEqualTo(whole);
        }
        assertThat(whole).hasSize(503);
    }

    @Test
    void aTruncatedStreamFailsRatherThanEndingEarly() throws Exception {
        PartitionQuery query = query("SELECT * FROM public.kinds WHERE n >= ? AND n < ?", List.of(-10L, 50L));
        byte[] stream = copied(query);
        for (int cut : new int[] {5, 30, stream.length / 2, stream.length - 2, stream.length - 1}) {
            CopyOut truncated = new PiecesCopyOut(Arrays.copyOf(stream, cut), new Random(cut), 100);
            assertThatThrownBy(() -> read(new PgCopyRows(truncated, query.columns(), decoders(query), true, readToTheEnd -> { })))
                    .as("cut at %d of %d bytes", cut, stream.length)
                    .isInstanceOf(SourceException.class).hasMessageStartingWith("the source's binary COPY is malformed");
        }
    }

    @Test
    void valuesNoStagedTypeHoldsFailNamingTheirColumn() throws SQLException {
        for (String sql : List.of("SELECT CAST('infinity' AS date) AS due", "SELECT CAST('-infinity' AS timestamptz) AS due",
                "SELECT CAST('infinity' AS timestamp) AS due", "SELECT CAST('NaN' AS numeric(10,2)) AS due")) {
            PartitionQuery query = query(sql, List.of());
            assertThatThrownBy(() -> readCopy(query)).as(sql).isInstanceOf(SourceException.class)
                    .hasMessageStartingWith("column due holds").hasMessageNotContaining("\n");
        }
    }

    @Test
    void aTypeNotDecodedHereKeepsTheCursor() throws SQLException {
        // money is a double to the driver, its own bytes on the wire.
        PartitionQuery query = query("SELECT n, CAST(n AS money) AS price FROM public.kinds WHERE n >= ? AND n < ?",
                List.of(1L, 10L));
        AtomicInteger released = new AtomicInteger();
        try (Connection c = connect()) {
            assertThat(PgCopyRows.open(c, query, readToTheEnd -> released.incrementAndGet())).isEmpty();
            assertThat(released).as("nothing to release: the caller keeps the connection").hasValue(0);
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 1")) {
                assertThat(rs.next()).as("no COPY was started").isTrue();
            }
        }
    }

    @Test
    @Timeout(60)
    void closingEarlyStopsTheServersCopyAndReleasesOnce() throws Exception {
        PartitionQuery query = query("SELECT g AS n, 'closing early' AS tag, k.t FROM generate_series(CAST(? AS int8), 2000) g, public.kinds k",
                List.of(1L));
        AtomicInteger released = new AtomicInteger();
        AtomicInteger releasedWhole = new AtomicInteger();
        Connection c = connect();
        PartitionRows rows = PgCopyRows.open(c, query, readToTheEnd -> {
            released.incrementAndGet();
            if (readToTheEnd) {
                releasedWhole.incrementAndGet();
            }
            // As the source's release does: the connection ends with the rows.
            SourceConnections.closeQuietly(c);
        }).orElseThrow();
        try (Connection monitor = db.connect()) {
            for (int i = 0; i < 10; i++) {
                assertThat(rows.next()).isTrue();
            }
            assertThat(rows.value(0)).isEqualTo(1L);
            assertThat(copiesRunning(monitor)).as("the COPY is under way").isEqualTo(1);
            rows.close();
            rows.close();
            assertThat(released).hasValue(1);
            assertThat(releasedWhole).as("a COPY stopped half-way: its connection must not be reused").hasValue(0);
            while (copiesRunning(monitor) > 0) {
                Thread.sleep(50);
            }
        }
    }

    @Test
    void rowsReadAsPrimitivesStageTheFilesTheirRecordsStage(@TempDir java.nio.file.Path dir) throws Exception {
        // Every column but bytea and numeric(38,10), which have no primitive step: the rows go to records instead.
        PartitionQuery query = query("""
                SELECT n, s, b, d12, r, f, ok, t, v, c, day, local, at FROM public.kinds WHERE n >= ? AND n < ? AND n <> -2""",
                List.of(-10L, 3001L));
        List<String> records = stage(dir.resolve("records"), query, null);
        assertThat(records).as("chunks of 1,000 rows").hasSize(4);
        assertThat(stage(dir.resolve("primitives"), query, new PiecesCopyOut(copied(query), new Random(1), 1 << 20)))
                .isEqualTo(records);
        for (int maxPiece : new int[] {1, 7}) {
            CopyOut pieces = new PiecesCopyOut(copied(query), new Random(maxPiece), maxPiece);
            assertThat(stage(dir.resolve("pieces-" + maxPiece), query, pieces)).as("messages of 1..%d bytes", maxPiece)
                    .isEqualTo(records);
        }
        // Row -2's instants are beyond a long of microseconds from 1970: neither way stages them.
        for (String column : List.of("local", "at")) {
            PartitionQuery last = query("SELECT n, " + column + " FROM public.kinds WHERE n = ?", List.of(-2L));
            assertThatThrownBy(() -> stage(dir.resolve("last-records-" + column), last, null))
                    .isInstanceOf(ArithmeticException.class);
            assertThatThrownBy(() -> stage(dir.resolve("last-primitives-" + column), last,
                    new PiecesCopyOut(copied(last), new Random(1), 100))).isInstanceOf(ArithmeticException.class);
        }
    }

    @Test
    void rowsWithoutAPrimitiveStepOrWithUncheckedTextAreReadOnlyAsObjects() throws Exception {
        PartitionQuery everything = query("SELECT * FROM public.kinds WHERE n >= ? AND n < ?", List.of(1L, 10L));
        PartitionQuery text = query("SELECT n, t FROM public.kinds WHERE n >= ? AND n < ?", List.of(1L, 10L));
        PartitionQuery numbers = query("SELECT n, b FROM public.kinds WHERE n >= ? AND n < ?", List.of(1L, 10L));

        assertThat(new PgCopyRows(new PiecesCopyOut(copied(everything), new Random(1), 100), everything.columns(),
                decoders(everything), true, readToTheEnd -> { }).primitiveRow()).as("a bytea column").isEmpty();
        assertThat(new PgCopyRows(new PiecesCopyOut(copied(text), new Random(1), 100), text.columns(),
                decoders(text), false, readToTheEnd -> { }).primitiveRow()).as("text of a SQL_ASCII database").isEmpty();
        assertThat(new PgCopyRows(new PiecesCopyOut(copied(numbers), new Random(1), 100), numbers.columns(),
                decoders(numbers), false, readToTheEnd -> { }).primitiveRow()).as("no text").isPresent();
        try (Connection c = connect()) {
            c.setAutoCommit(false);
            try (PartitionRows rows = PgCopyRows.open(c, text, readToTheEnd -> { }).orElseThrow()) {
                assertThat(rows.primitiveRow()).as("a UTF8 database's text").isPresent();
            }
        }
    }

    /**
     * The checksums of the chunks of {@code query}'s rows staged as records of its COPY (when {@code primitives} is
     * null) or as primitives of the COPY {@code primitives} hands out.
     */
    private static List<String> stage(java.nio.file.Path dir, PartitionQuery query, CopyOut primitives) throws SQLException {
        Schema schema = SourceSchemas.toIceberg(query.columns());
        ChunkWriter writer = new ChunkWriter(new Configuration(), dir.toUri(), schema,
                new StagingSpec(dir.toUri(), 1_000, Compression.ZSTD));
        ChunkNaming naming = new ChunkNaming("0000", 1, UUID.nameUUIDFromBytes(new byte[0]));
        List<StagedChunk> chunks;
        if (primitives == null) {
            try (Connection c = connect()) {
                c.setAutoCommit(false);
                try (PartitionRows rows = PgCopyRows.open(c, query, readToTheEnd -> { }).orElseThrow()) {
                    chunks = writer.writePartition(naming, SourceRecords.of(schema, rows));
                }
            }
        } else {
            assertThat(writer.writesPrimitives()).isTrue();
            try (PartitionRows rows = new PgCopyRows(primitives, query.columns(), decoders(query), true, readToTheEnd -> { })) {
                chunks = writer.writePrimitivePartition(naming, SourceRecords.primitives(rows));
            }
        }
        return chunks.stream().map(chunk -> chunk.recordCount() + " " + chunk.byteCount() + " " + chunk.checksum()).toList();
    }

    private static int copiesRunning(Connection monitor) throws SQLException {
        try (Statement s = monitor.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'COPY (SELECT g AS n, ''closing early''%' AND pid <> pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** A partition query as {@code SnapshotQueries.partitionQuery} makes one, described by the server. */
    private static PartitionQuery query(String sql, List<Object> parameters) throws SQLException {
        BoundSql bound = new BoundSql(sql, parameters);
        try (Connection c = connect(); PreparedStatement s = bound.prepare(c)) {
            // Described, not run.
            ResultSetMetaData metadata = s.getMetaData();
            List<String> typeNames = new ArrayList<>();
            for (int i = 1; i <= metadata.getColumnCount(); i++) {
                typeNames.add(metadata.getColumnTypeName(i));
            }
            return new PartitionQuery(bound, JdbcValues.describe(metadata), typeNames);
        }
    }

    /** The bytes the server sends for the COPY of {@code query}. */
    private static byte[] copied(PartitionQuery query) throws Exception {
        try (Connection c = connect()) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            c.unwrap(PGConnection.class).getCopyAPI().copyOut(PgCopyRows.copyStatement(c, query.sql()), out);
            return out.toByteArray();
        }
    }

    private static List<PgBinary.ColumnDecoder> decoders(PartitionQuery query) {
        List<PgBinary.ColumnDecoder> decoders = new ArrayList<>();
        for (int i = 0; i < query.columns().size(); i++) {
            decoders.add(PgBinary.decoder(query.columns().get(i), query.typeNames().get(i), true));
        }
        return decoders;
    }

    private static List<List<Object>> readCopy(PartitionQuery query) throws SQLException {
        try (Connection c = connect()) {
            c.setAutoCommit(false);
            Optional<PartitionRows> rows = PgCopyRows.open(c, query, readToTheEnd -> { });
            assertThat(rows).as("a COPY of %s", query.typeNames()).isPresent();
            return read(rows.get());
        }
    }

    private static List<List<Object>> readCursor(PartitionQuery query) throws SQLException {
        try (Connection c = connect()) {
            c.setAutoCommit(false);
            PreparedStatement statement = query.sql().prepare(c);
            statement.setFetchSize(100);
            return read(new CursorRows(statement, statement.executeQuery(), query.columns(), readToTheEnd -> { }));
        }
    }

    private static List<List<Object>> read(PartitionRows rows) {
        try (rows) {
            List<List<Object>> all = new ArrayList<>();
            while (rows.next()) {
                List<Object> row = new ArrayList<>();
                for (int i = 0; i < rows.columns().size(); i++) {
                    row.add(rows.value(i));
                }
                all.add(row);
            }
            return all;
        }
    }

    private static Connection connect() throws SQLException {
        return JdbcValuesTest.binaryConnection(db);
    }

    /** A COPY's bytes handed out in messages of random sizes: values and headers cut anywhere. */
    private static final class PiecesCopyOut implements CopyOut {
        private final byte[] stream;
        private final Random random;
        private final int maxPiece;
        private int position;

        PiecesCopyOut(byte[] stream, Random random, int maxPiece) {
            this.stream = stream;
            this.random = random;
            this.maxPiece = maxPiece;
        }

        @Override
        public byte[] readFromCopy() {
            if (position == stream.length) {
                return null;
            }
            int length = Math.min(stream.length - position, 1 + random.nextInt(maxPiece));
            byte[] piece = Arrays.copyOfRange(stream, position, position + length);
            position += length;
            return piece;
        }

        @Override
        public byte[] readFromCopy(boolean block) {
            return readFromCopy();
        }

        @Override
        public int getFieldCount() {
            throw new UnsupportedOperationException();
        }

        @Override
        public int getFormat() {
            return 1;
        }

        @Override
        public int getFieldFormat(int field) {
            return 1;
        }

        @Override
        public boolean isActive() {
            return position < stream.length;
        }

        @Override
        public void cancelCopy() {
            position = stream.length;
        }

        @Override
        public long getHandledRowCount() {
            throw new UnsupportedOperationException();
        }
    }
}

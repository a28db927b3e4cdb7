package io.loadgate.worker.staging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loadgate.worker.job.Compression;
import io.loadgate.worker.job.StagingSpec;
import io.loadgate.worker.source.ColumnType;
import io.loadgate.worker.source.PartitionRows;
import io.loadgate.worker.source.SourceColumn;
import io.loadgate.worker.validation.StagedFilesReader;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChunkWriterTest {
    private static final UUID TOKEN = UUID.fromString("5f2c9e1a-0000-4000-8000-000000000001");
    private static final List<SourceColumn> COLUMNS = List.of(
            SourceColumn.of("id", ColumnType.LONG),
            SourceColumn.of("small", ColumnType.INT),
            new SourceColumn("amount", ColumnType.DECIMAL, 12, 2),
            SourceColumn.of("ratio", ColumnType.FLOAT),
            SourceColumn.of("score", ColumnType.DOUBLE),
            SourceColumn.of("name", ColumnType.STRING),
            SourceColumn.of("active", ColumnType.BOOLEAN),
            SourceColumn.of("day", ColumnType.DATE),
            SourceColumn.of("at", ColumnType.TIMESTAMP),
            SourceColumn.of("at_tz", ColumnType.TIMESTAMPTZ),
            SourceColumn.of("raw", ColumnType.BINARY));
    static final Schema SCHEMA = SourceSchemas.toIceberg(COLUMNS);
    private static final Configuration HADOOP = new Configuration();

    @TempDir
    Path dir;

    @Test
    void mapsSourceColumnsToOptionalFieldsWithIdsInOrder() {
        assertThat(SCHEMA.asStruct()).isEqualTo(Types.StructType.of(
                Types.NestedField.optional(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "small", Types.IntegerType.get()),
                Types.NestedField.optional(3, "amount", Types.DecimalType.of(12, 2)),
                Types.NestedField.optional(4, "ratio", Types.FloatType.get()),
                Types.NestedField.optional(5, "score", Types.DoubleType.get()),
                Types.NestedField.optional(6, "name", Types.StringType.get()),
                Types.NestedField.optional(7, "active", Types.BooleanType.get()),
                Types.NestedField.optional(8, "day", Types.DateType.get()),
                Types.NestedField.optional(9, "at", Types.TimestampType.withoutZone()),
                Types.NestedField.optional(10, "at_tz", Types.TimestampType.withZone()),
                Types.NestedField.optional(11, "raw", Types.BinaryType.get())));
    }

    @Test
    void writesChunksStraightToTheirFinalNamesWithCountsAndChecksums() throws IOException {
        URI runDirectory = dir.resolve("JOB/run_id=1").toUri();
        List<Record> rows = records(25);
        ChunkWriter writer = new ChunkWriter(HADOOP, runDirectory, SCHEMA, new StagingSpec(runDirectory, 10, Compression.ZSTD));

        List<StagedChunk> chunks = writer.writePartition(new ChunkNaming("0003", 1, TOKEN), rows.iterator());

        assertThat(chunks).extracting(StagedChunk::chunkIndex).containsExactly(0, 1, 2);
        assertThat(chunks).extracting(StagedChunk::recordCount).containsExactly(10L, 10L, 5L);
        assertThat(chunks.get(2).path().getPath()).endsWith("/JOB/run_id=1/part-0003-chunk-000002-a1-5f2c9e1a.parquet");
        for (StagedChunk chunk : chunks) {
            Path file = Path.of(chunk.path());
            assertThat(chunk.byteCount()).as("byteCount of %s", file).isEqualTo(Files.size(file));
            assertThat(chunk.checksum()).as("checksum of %s", file).isEqualTo(sha256(file))
                    .isEqualTo(new StagedFilesReader(HADOOP).sha256(chunk.path()));
            assertThat(codecs(chunk.path())).as("codecs of %s", file).containsOnly(CompressionCodecName.ZSTD);
        }
        try (Stream<Path> files = Files.list(Path.of(runDirectory))) {
            assertThat(files.map(p -> p.getFileName().toString())).as("no .crc or temporary files").containsExactlyInAnyOrder(
                    "part-0003-chunk-000000-a1-5f2c9e1a.parquet",
                    "part-0003-chunk-000001-a1-5f2c9e1a.parquet",
                    "part-0003-chunk-000002-a1-5f2c9e1a.parquet");
        }

        StagedFilesReader reader = new StagedFilesReader(HADOOP);
        assertThat(reader.schemaOf(chunks.get(0).path()).asStruct()).as("field ids in the file").isEqualTo(SCHEMA.asStruct());
        try (CloseableIterable<Record> read = reader.read(SCHEMA, chunks.stream().map(StagedChunk::path).toList())) {
            assertThat(read).containsExactlyElementsOf(rows);
        }
    }

    @Test
    void stagesTheOneRecordSourceRecordsOverwritesRowAfterRow() throws IOException {
        URI runDirectory = dir.resolve("JOB/run_id=2").toUri();
        List<Record> rows = records(25);
        ChunkWriter writer = new ChunkWriter(HADOOP, runDirectory, SCHEMA, new StagingSpec(runDirectory, 10, Compression.ZSTD));

        // Every 7th row is all nulls after a row of values, and chunks end mid-stream: a value kept from the row
        // before, or a record held past add(), would show in the files.
        List<StagedChunk> chunks = writer.writePartition(new ChunkNaming("0001", 1, TOKEN),
                SourceRecords.of(SCHEMA, new ListRows(rows)));

        assertThat(chunks).extracting(StagedChunk::recordCount).containsExactly(10L, 10L, 5L);
        try (CloseableIterable<Record> read = new StagedFilesReader(HADOOP).read(SCHEMA, chunks.stream().map(StagedChunk::path).toList())) {
            assertThat(read).containsExactlyElementsOf(rows);
        }
    }

    @Test
    void sourceRecordsOverwriteOneRecordAndACopyKeepsItsRow() {
        List<Record> rows = records(5);
        Iterator<Record> records = SourceRecords.of(SCHEMA, new ListRows(rows));

        Record first = records.next();
        Record kept = first.copy();
        Record second = records.next();

        assertThat(second).as("the same record, overwritten").isSameAs(first).isEqualTo(rows.get(1));
        assertThat(kept).as("the copy of the first row").isEqualTo(rows.get(0));
    }

    /** A partition's rows from records, as a source's cursor gives them: one row's values at a time. */
    private static final class ListRows implements PartitionRows {
        private final List<Record> rows;
        private int next;

        ListRows(List<Record> rows) {
            this.rows = rows;
        }

        @Override
        public List<SourceColumn> columns() {
            return COLUMNS;
        }

        @Override
        public boolean next() {
            return next++ < rows.size();
        }

        @Override
        public Object value(int index) {
            return rows.get(next - 1).get(index);
        }

        @Override
        public void close() {
        }
    }

    @Test
    void aCompressionLevelIsTheCodecsLevel() throws IOException {
        List<Record> rows = records(20_000);
        URI fast = dir.resolve("fast").toUri();
        URI small = dir.resolve("small").toUri();
        StagedChunk atOne = new ChunkWriter(HADOOP, fast, SCHEMA, new StagingSpec(fast, 100_000, Compression.ZSTD, 1))
                .writePartition(new ChunkNaming("0000", 1, TOKEN), rows.iterator()).get(0);
        StagedChunk atNineteen = new ChunkWriter(HADOOP, small, SCHEMA,
                new StagingSpec(small, 100_000, Compression.ZSTD, 19))
                .writePartition(new ChunkNaming("0000", 1, TOKEN), rows.iterator()).get(0);

        assertThat(codecs(atOne.path())).containsOnly(CompressionCodecName.ZSTD);
        assertThat(atNineteen.byteCount()).as("the same rows, compressed harder").isLessThan(atOne.byteCount());
        assertThat(atNineteen.recordCount()).isEqualTo(atOne.recordCount()).isEqualTo(20_000);
    }

    @Test
    void everyPageIsUnderHalfAG1Region() throws IOException {
        // Names of 200 characters, each its own: the name column is ~8 MB, its dictionary given up for plain pages.
        List<Record> rows = records(40_000);
        for (Record row : rows) {
            String name = (String) row.get(5);
            if (name != null) {
                row.set(5, name + "-" + UUID.nameUUIDFromBytes(name.getBytes(java.nio.charset.StandardCharsets.UTF_8)).toString().repeat(5));
            }
        }
        URI runDirectory = dir.toUri();
        StagedChunk chunk = new ChunkWriter(HADOOP, runDirectory, SCHEMA, new StagingSpec(runDirectory, 100_000, Compression.ZSTD))
                .writePartition(new ChunkNaming("0000", 1, TOKEN), rows.iterator()).get(0);

        List<Integer> pageSizes = new ArrayList<>();
        try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(chunk.path()), HADOOP))) {
            for (PageReadStore group = reader.readNextRowGroup(); group != null; group = reader.readNextRowGroup()) {
                for (ColumnDescriptor column : reader.getFileMetaData().getSchema().getColumns()) {
                    PageReader pages = group.getPageReader(column);
                    DictionaryPage dictionary = pages.readDictionaryPage();
                    if (dictionary != null) {
                        pageSizes.add(dictionary.getUncompressedSize());
                    }
                    for (DataPage page = pages.readPage(); page != null; page = pages.readPage()) {
                        pageSizes.add(page.getUncompressedSize());
                    }
                }
            }
        }
        // A reader holds a page decompressed in one array: from half of G1's 1 MiB region up, a humongous object.
        assertThat(pageSizes.stream().mapToLong(Integer::longValue).sum()).as("the pages' bytes").isGreaterThan(8_000_000L);
        assertThat(pageSizes).allSatisfy(size -> assertThat(size).isLessThan(512 << 10));
    }

    @Test
    void noRowsGiveNoChunkAndNoFile() throws IOException {
        URI runDirectory = dir.resolve("run").toUri();
        ChunkWriter writer = new ChunkWriter(HADOOP, runDirectory, SCHEMA, new StagingSpec(runDirectory, 10, Compression.ZSTD));

        assertThat(writer.writePartition(new ChunkNaming("NULL", 2, TOKEN), List.<Record>of().iterator())).isEmpty();
        assertThat(dir.resolve("run")).doesNotExist();
    }

    @Test
    void anExactMultipleOfTheChunkSizeMakesNoTrailingEmptyChunk() {
        URI runDirectory = dir.toUri();
        ChunkWriter writer = new ChunkWriter(HADOOP, runDirectory, SCHEMA, new StagingSpec(runDirectory, 10, Compression.ZSTD));

        assertThat(writer.writePartition(new ChunkNaming("0000", 1, TOKEN), records(20).iterator()))
                .extracting(StagedChunk::recordCount).containsExactly(10L, 10L);
    }

    @Test
    void neverOverwritesAChunk() throws IOException {
        URI runDirectory = dir.toUri();
        ChunkWriter writer = new ChunkWriter(HADOOP, runDirectory, SCHEMA, new StagingSpec(runDirectory, 10, Compression.ZSTD));
        StagedChunk first = writer.writePartition(new ChunkNaming("0001", 1, TOKEN), records(3).iterator()).get(0);

        assertThatThrownBy(() -> writer.writePartition(new ChunkNaming("0001", 1, TOKEN), records(4).iterator()))
                .hasMessageContaining("part-0001-chunk-000000-a1-5f2c9e1a.parquet");
        assertThat(sha256(Path.of(first.path()))).as("the first file is untouched").isEqualTo(first.checksum());
    }

    static List<Record> records(int count) {
        List<Record> records = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            GenericRecord record = GenericRecord.create(SCHEMA);
            boolean nulls = i % 7 == 3;
            record.set(0, (long) i);
            record.set(1, nulls ? null : i - 12);
            record.set(2, nulls ? null : new BigDecimal(i * 101).movePointLeft(2));
            record.set(3, nulls ? null : i / 3.0f);
            record.set(4, nulls ? null : i * 1.5e10);
            record.set(5, nulls ? null : "name-" + i + "-\u00e9\ud83d\ude00");
            record.set(6, nulls ? null : i % 2 == 0);
            record.set(7, nulls ? null : LocalDate.of(2024, 1, 1).plusDays(i));
            record.set(8, nulls ? null : LocalDateTime.of(2024, 1, 1, 0, 0).plusSeconds(i * 3601L).plusNanos(123_456_000));
            record.set(9, nulls ? null : OffsetDateTime.of(2024, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC).plusMinutes(i));
            record.set(10, nulls ? null : ByteBuffer.wrap(new byte[] {(byte) i, 0, (byte) 255}));
            records.add(record);
        }
        return records;
    }

    static String sha256(Path file) throws IOException {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    private static List<CompressionCodecName> codecs(URI file) throws IOException {
        try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(file), HADOOP))) {
            return reader.getFooter().getBlocks().stream().flatMap(b -> b.getColumns().stream()).map(c -> c.getCodec()).toList();
        }
    }
}

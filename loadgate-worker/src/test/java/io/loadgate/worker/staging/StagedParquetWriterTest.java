package io.loadgate.worker.staging;

import static io.loadgate.worker.staging.ChunkWriterTest.SCHEMA;
import static io.loadgate.worker.staging.ChunkWriterTest.records;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loadgate.worker.job.Compression;
import io.loadgate.worker.job.StagingSpec;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;
import org.apache.parquet.bytes.ByteBufferAllocator;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StagedParquetWriterTest {
    @TempDir
    Path dir;

    @Test
    void writesTheBytesOfIcebergsWriterWithTheSameSettings() throws IOException {
        List<Record> rows = records(12_000);
        List<StagingSpec> settings = List.of(
                spec(Compression.ZSTD, null), spec(Compression.ZSTD, 1), spec(Compression.ZSTD, 19),
                spec(Compression.SNAPPY, null), spec(Compression.GZIP, null), spec(Compression.UNCOMPRESSED, null));
        for (StagingSpec staging : settings) {
            assertThat(write("ours", staging, rows)).as("%s", staging).isEqualTo(icebergs(staging, rows));
        }
    }

    @Test
    void writesTheBytesOfIcebergsWriterOverPagesOfColumnsThatGaveUpTheirDictionary() throws IOException {
        // A page of 20,000 rows: a column of a new value every row gives up its dictionary on its first page and
        // writes five more without it; the raw bytes, 256 values, keep theirs.
        List<Record> rows = records(110_000);
        StagingSpec staging = spec(Compression.ZSTD, null);
        byte[] ours = write("ours", staging, rows);

        assertThat(ours).isEqualTo(icebergs(staging, rows));
        Map<String, Boolean> dictionaries = new HashMap<>();
        try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(
                new org.apache.hadoop.fs.Path(dir.resolve("ours.parquet").toUri()),
                new org.apache.hadoop.conf.Configuration()))) {
            reader.getRowGroups().get(0).getColumns()
                    .forEach(chunk -> dictionaries.put(chunk.getPath().toDotString(), chunk.hasDictionaryPage()));
        }
        assertThat(dictionaries).containsEntry("id", false).containsEntry("amount", false)
                .containsEntry("name", false).containsEntry("raw", true);
    }

    private byte[] icebergs(StagingSpec staging, List<Record> rows) throws IOException {
        Path theirs = dir.resolve("iceberg.parquet");
        Files.deleteIfExists(theirs);
        Parquet.WriteBuilder builder = Parquet.write(org.apache.iceberg.Files.localOutput(theirs.toFile()))
                .schema(SCHEMA)
                .createWriterFunc(ChunkRecordWriter::create)
                .set(TableProperties.PARQUET_COMPRESSION, staging.compression().icebergName())
                .set(TableProperties.PARQUET_PAGE_SIZE_BYTES, Integer.toString(ChunkWriter.PAGE_BYTES));
        if (staging.compressionLevel() != null) {
            builder.set(TableProperties.PARQUET_COMPRESSION_LEVEL, staging.compressionLevel().toString());
        }
        try (FileAppender<Record> appender = builder.build()) {
            appender.addAll(rows);
        }
        return Files.readAllBytes(theirs);
    }

    @Test
    void holdsARowGroupsPagesInDirectBuffersFreedOnceItIsWritten() throws IOException {
        RecordingAllocator pages = new RecordingAllocator();
        List<Record> rows = records(100_000);
        Path path = dir.resolve("groups.parquet");
        DigestingOutputFile file = new DigestingOutputFile(org.apache.iceberg.Files.localOutput(path.toFile()));
        long mostHeld = 0;
        try (StagedParquetWriter<Record> writer = new StagedParquetWriter<>(file, SCHEMA, spec(Compression.ZSTD, null),
                8 << 10, ChunkRecordWriter::create, 256 << 10, pages)) {
            for (Record row : rows) {
                writer.add(row);
                mostHeld = Math.max(mostHeld, pages.held());
            }
        }

        assertThat(pages.held()).as("every page freed once written").isZero();
        assertThat(pages.allocated).isNotEmpty().allSatisfy(buffer -> assertThat(buffer.isDirect()).isTrue());
        assertThat(rowGroups(path)).as("a row group written each time 256 KiB are buffered").isGreaterThan(3);
        assertThat(mostHeld).as("no more than one row group held at a time").isPositive()
                .isLessThan(Files.size(path) / 2);
        assertThat(read(path)).containsExactlyElementsOf(rows);
    }

    @Test
    void aFailedRowStillFreesThePages() throws IOException {
        RecordingAllocator pages = new RecordingAllocator();
        List<Record> rows = records(30_000);
        rows.get(25_000).set(1, "not an int");
        DigestingOutputFile file = new DigestingOutputFile(
                org.apache.iceberg.Files.localOutput(dir.resolve("failed.parquet").toFile()));

        assertThatThrownBy(() -> {
            try (StagedParquetWriter<Record> writer = new StagedParquetWriter<>(file, SCHEMA,
                    spec(Compression.ZSTD, null), ChunkWriter.PAGE_BYTES, ChunkRecordWriter::create, 1L << 30, pages)) {
                for (Record row : rows) {
                    writer.add(row);
                }
            }
        }).isInstanceOf(ClassCastException.class);
        assertThat(pages.allocated).as("pages were held when the row failed").isNotEmpty();
        assertThat(pages.held()).isZero();
    }

    @Test
    void aDirectBufferReleasedReturnsItsMemoryAtOnce() {
        BufferPoolMXBean direct = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(pool -> pool.getName().equals("direct")).findFirst().orElseThrow();
        long size = 64 << 20;
        // Other threads of the test JVM may take or free a few small direct buffers meanwhile.
        long noise = 4 << 20;
        long before = direct.getMemoryUsed();
        ByteBuffer buffer = StagedParquetWriter.DIRECT.allocate((int) size);
        long allocated = direct.getMemoryUsed();
        StagedParquetWriter.DIRECT.release(buffer);
        long released = direct.getMemoryUsed();

        assertThat(buffer.isDirect()).isTrue();
        assertThat(allocated - before).isBetween(size - noise, size + noise);
        assertThat(allocated - released).as("freed without waiting for a collection").isBetween(size - noise, size + noise);
    }

    @Test
    void aWriterOfNoRowsWritesAFileOfNoRowGroup() throws IOException {
        Path path = dir.resolve("empty.parquet");
        DigestingOutputFile file = new DigestingOutputFile(org.apache.iceberg.Files.localOutput(path.toFile()));
        ChunkWriter.recordWriter(file, SCHEMA, spec(Compression.ZSTD, null)).close();

        assertThat(rowGroups(path)).isZero();
        assertThat(read(path)).isEmpty();
        assertThat(file.byteCount()).isEqualTo(Files.size(path));
    }

    private byte[] write(String name, StagingSpec staging, List<Record> rows) throws IOException {
        Path path = dir.resolve(name + ".parquet");
        Files.deleteIfExists(path);
        DigestingOutputFile file = new DigestingOutputFile(org.apache.iceberg.Files.localOutput(path.toFile()));
        try (StagedParquetWriter<Record> writer = ChunkWriter.recordWriter(file, SCHEMA, staging)) {
            rows.forEach(writer::add);
        }
        return Files.readAllBytes(path);
    }

    private StagingSpec spec(Compression compression, Integer level) {
        return new StagingSpec(dir.toUri(), 1_000_000, compression, level);
    }

    private static int rowGroups(Path path) throws IOException {
        try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(
                new org.apache.hadoop.fs.Path(path.toUri()), new org.apache.hadoop.conf.Configuration()))) {
            return reader.getRowGroups().size();
        }
    }

    private static List<Record> read(Path path) throws IOException {
        List<Record> rows = new ArrayList<>();
        try (CloseableIterable<Record> records = Parquet.read(org.apache.iceberg.Files.localInput(path.toFile()))
                .project(SCHEMA)
                .createReaderFunc(type -> GenericParquetReaders.buildReader(SCHEMA, type))
                .build()) {
            records.forEach(rows::add);
        }
        return rows;
    }

    /** The writer's direct allocator, recording what it hands out and what comes back. */
    private static final class RecordingAllocator implements ByteBufferAllocator {
        final List<ByteBuffer> allocated = new ArrayList<>();
        private final Map<ByteBuffer, Integer> outstanding = new IdentityHashMap<>();

        @Override
        public ByteBuffer allocate(int size) {
            ByteBuffer buffer = StagedParquetWriter.DIRECT.allocate(size);
            allocated.add(buffer);
            outstanding.put(buffer, size);
            return buffer;
        }

        @Override
        public void release(ByteBuffer buffer) {
            assertThat(outstanding.remove(buffer)).as("a buffer this allocator gave, released once").isNotNull();
            StagedParquetWriter.DIRECT.release(buffer);
        }

        @Override
        public boolean isDirect() {
            return true;
        }

        long held() {
            return outstanding.values().stream().mapToLong(Integer::longValue).sum();
        }
    }
}

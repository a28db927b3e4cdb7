package io.loadgate.worker.staging;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.worker.job.Compression;
import io.loadgate.worker.job.StagingSpec;
import io.loadgate.worker.source.ColumnType;
import io.loadgate.worker.source.SourceColumn;
import io.loadgate.worker.testing.MiniHdfs;
import io.loadgate.worker.validation.StagedFilesReader;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Staging on hdfs:// through the Hadoop FileSystem API, on an in-process HDFS. */
class HdfsStagingTest {
    private static final Schema SCHEMA = SourceSchemas.toIceberg(List.of(
            SourceColumn.of("id", ColumnType.LONG), SourceColumn.of("name", ColumnType.STRING)));

    private static MiniHdfs cluster;
    private static Configuration conf;

    @BeforeAll
    static void startHdfs() throws IOException {
        cluster = MiniHdfs.shared();
        conf = cluster.conf();
    }

    @Test
    void writesReadsAndChecksumsChunksOnHdfs() throws IOException {
        URI runDirectory = URI.create(cluster.uri() + "/data/loadgate/stage/JOB/run_id=r1");
        List<Record> rows = new ArrayList<>();
        for (long i = 0; i < 2_500; i++) {
            GenericRecord record = GenericRecord.create(SCHEMA);
            record.set(0, i);
            record.set(1, i % 9 == 0 ? null : "name-" + i);
            rows.add(record);
        }
        ChunkWriter writer = new ChunkWriter(conf, runDirectory, SCHEMA, new StagingSpec(runDirectory, 1_000, Compression.ZSTD));

        List<StagedChunk> chunks = writer.writePartition(new ChunkNaming("0000", 1, UUID.randomUUID()), rows.iterator());

        assertThat(chunks).extracting(StagedChunk::recordCount).containsExactly(1_000L, 1_000L, 500L);
        assertThat(chunks).allSatisfy(chunk -> assertThat(chunk.path().getScheme()).isEqualTo("hdfs"));
        FileSystem fs = FileSystem.get(runDirectory, conf);
        FileStatus[] listed = fs.listStatus(new org.apache.hadoop.fs.Path(runDirectory));
        assertThat(Arrays.stream(listed).map(s -> s.getPath().toUri())).as("exactly the chunk files, nothing renamed or left beside")
                .containsExactlyInAnyOrderElementsOf(chunks.stream().map(StagedChunk::path).toList());
        StagedFilesReader reader = new StagedFilesReader(conf);
        for (StagedChunk chunk : chunks) {
            assertThat(fs.getFileStatus(new org.apache.hadoop.fs.Path(chunk.path())).getLen()).isEqualTo(chunk.byteCount());
            assertThat(reader.sha256(chunk.path())).isEqualTo(chunk.checksum());
        }
        try (CloseableIterable<Record> read = reader.read(SCHEMA, chunks.stream().map(StagedChunk::path).toList())) {
            assertThat(read).containsExactlyElementsOf(rows);
        }
    }
}

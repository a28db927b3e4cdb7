package io.loadgate.worker.source.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.job.JobSpecLoader;
import io.loadgate.worker.source.SnapshotExpiredException;
import io.loadgate.worker.source.SourcePlan;
import io.loadgate.worker.testing.MiniHdfs;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.zip.GZIPOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The file source on an in-process HDFS: the same snapshot, the same rows, and an append that expires it. */
class FileSourceHdfsTest {
    private static MiniHdfs hdfs;
    private static FileSystem fs;

    @BeforeAll
    static void startHdfs() throws IOException {
        hdfs = MiniHdfs.shared();
        fs = FileSystem.get(hdfs.uri(), hdfs.conf());
    }

    @Test
    void readsAGzipAndAPlainFileOfAnHourAndFailsOnceOneIsAppendedTo() throws IOException {
        String root = hdfs.uri() + "/events";
        write(root + "/d_20261130-1400/part-0.json", "{\"id\": 1}\n{\"id\": \"one\"}\n", false);
        write(root + "/d_20261130-1420/part-0.json.gz", "{\"id\": 2}\n{\"id\": 3}\n", true);
        JobSpec job = JobSpecLoader.parse(Path.of("hdfs.yaml"), """
                job_key: EVENTS
                source:
                  files:
                    root: "%s"
                    format: ndjson
                    group_by: hour
                    columns: [{name: id, type: bigint}]
                target: {table: lake.events, business_key_column: load_key}
                staging: {root: /tmp/stage}
                """.formatted(root));
        FileSource source = new FileSource(job.source().files(), hdfs.conf(),
                Clock.fixed(Instant.parse("2026-11-30T16:00:00Z"), ZoneOffset.UTC));

        SourcePlan plan = source.openSnapshot("2026/11/30/14").plan();
        FileSourceTest.Read read = FileSourceTest.readAll(source, plan, "2026-11-30T14");

        assertThat(plan.split().rowCount()).isEqualTo(4);
        assertThat(read.rows()).containsExactlyInAnyOrder("1|2026-11-30T14|2026-11-30|14", "2|2026-11-30T14|2026-11-30|14",
                "3|2026-11-30T14|2026-11-30|14");
        assertThat(read.rejects()).singleElement().asString().contains("id: 'one' is not of type bigint");
        assertThat(FileSourceTest.readAll(source, plan, "2026-11-30T14")).as("a reissue reads the same").isEqualTo(read);

        try (OutputStream out = fs.append(new org.apache.hadoop.fs.Path(root + "/d_20261130-1400/part-0.json"))) {
            out.write("{\"id\": 4}\n".getBytes(StandardCharsets.UTF_8));
        }
        assertThatThrownBy(() -> FileSourceTest.readAll(source, plan, "2026-11-30T14"))
                .isInstanceOf(SnapshotExpiredException.class).hasMessageContaining("changed since the snapshot");
    }

    private static void write(String path, String text, boolean gzip) throws IOException {
        try (OutputStream file = fs.create(new org.apache.hadoop.fs.Path(path));
             OutputStream out = gzip ? new GZIPOutputStream(file) : file) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        }
    }
}

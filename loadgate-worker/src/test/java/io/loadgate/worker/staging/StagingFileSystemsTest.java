package io.loadgate.worker.staging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.io.PositionOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A staged file on the local disk is created without Hadoop's local file system and its chmod processes. */
class StagingFileSystemsTest {
    @TempDir
    Path dir;

    @Test
    void aLocalFileIsCreatedWithItsDirectoriesStartingNoProcessAndNeverOverwritten() throws IOException {
        FileSystem fs = StagingFileSystems.forUri(dir.toUri(), new Configuration());
        org.apache.hadoop.fs.Path path = hadoopPath(fs, "run/0000-1.parquet");

        List<RecordedEvent> processes =
                processesStartedWhile(() -> write(StagingFileSystems.newFile(fs, path), "chunk"));

        assertThat(processes).as("processes started").isEmpty();
        assertThat(Files.readString(dir.resolve("run/0000-1.parquet"))).isEqualTo("chunk");
        assertThat(dir.resolve("run")).isDirectoryNotContaining("glob:**.crc");
        assertThatThrownBy(() -> StagingFileSystems.newFile(fs, path).create())
                .isInstanceOf(AlreadyExistsException.class);
        assertThat(Files.readString(dir.resolve("run/0000-1.parquet"))).isEqualTo("chunk");
    }

    @Test
    void partitionsStartingARunsDirectoryAtOnceAllCreateTheirFiles() throws Exception {
        FileSystem fs = StagingFileSystems.forUri(dir.toUri(), new Configuration());
        int writers = 16;
        for (int round = 0; round < 20; round++) {
            String run = "run-" + round;
            CyclicBarrier start = new CyclicBarrier(writers);
            ExecutorService pool = Executors.newFixedThreadPool(writers);
            try {
                List<Future<?>> created = new ArrayList<>();
                for (int w = 0; w < writers; w++) {
                    org.apache.hadoop.fs.Path path = hadoopPath(fs, run + "/part/" + w + ".parquet");
                    created.add(pool.submit(() -> {
                        start.await();
                        write(StagingFileSystems.newFile(fs, path), "chunk");
                        return null;
                    }));
                }
                for (Future<?> file : created) {
                    file.get();
                }
            } finally {
                pool.shutdownNow();
            }
            try (var files = Files.list(dir.resolve(run + "/part"))) {
                assertThat(files).as("round %d", round).hasSize(writers);
            }
        }
    }

    @Test
    void hadoopsLocalFileSystemStartsAProcessForAFileItCreates() throws IOException {
        // Why newFile avoids it; if a Hadoop upgrade stops doing this, newFile's reason is gone.
        FileSystem fs = StagingFileSystems.forUri(dir.toUri(), new Configuration());
        org.apache.hadoop.fs.Path path = hadoopPath(fs, "hadoop.parquet");

        List<RecordedEvent> processes = processesStartedWhile(() -> {
            try (var out = fs.create(path, false)) {
                out.write(1);
            }
        });

        assertThat(processes).as("chmod, with no native library").isNotEmpty();
    }

    @FunctionalInterface
    private interface Body {
        void run() throws IOException;
    }

    private List<RecordedEvent> processesStartedWhile(Body body) throws IOException {
        Path dump = Files.createTempFile(dir, "processes", ".jfr");
        try (Recording recording = new Recording()) {
            recording.enable("jdk.ProcessStart");
            recording.start();
            body.run();
            recording.stop();
            recording.dump(dump);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(dump).stream()
                .filter(event -> event.getEventType().getName().equals("jdk.ProcessStart")).toList();
        Files.delete(dump);
        return events;
    }

    private org.apache.hadoop.fs.Path hadoopPath(FileSystem fs, String name) {
        return fs.makeQualified(new org.apache.hadoop.fs.Path(dir.toUri().toString(), name));
    }

    private static void write(org.apache.iceberg.io.OutputFile file, String text) throws IOException {
        try (PositionOutputStream out = file.create()) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        }
    }
}

package io.loadgate.worker.staging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A local file a commit names reaches the disk when it closes, with the directory entries that name it: JFR's
 * {@code jdk.FileForce} events are the JVM's own record of each {@code fsync}.
 */
class LocalFilesTest {
    @TempDir
    Path dir;

    @Test
    void aClosedFileIsForcedWithItsDirectoryAndEveryDirectoryItsCreateMade() throws Exception {
        Path file = dir.resolve("run/part/0000-1.parquet");

        List<String> forced = ForcedFiles.during(() -> write(LocalFiles.output(file.toFile()), "chunk"));

        assertThat(forced).as("paths forced").containsExactlyInAnyOrder(file.toString(),
                dir.resolve("run/part").toString(), dir.resolve("run").toString(), dir.toString());
        assertThat(Files.readString(file)).isEqualTo("chunk");
    }

    @Test
    void aFileInADirectoryThatExistsForcesThatDirectoryOnly() throws Exception {
        Path file = dir.resolve("0000-2.parquet");

        List<String> forced = ForcedFiles.during(() -> write(LocalFiles.output(file.toFile()), "chunk"));

        assertThat(forced).containsExactlyInAnyOrder(file.toString(), dir.toString());
    }

    @Test
    void nothingIsForcedBeforeTheClose() throws Exception {
        Path file = dir.resolve("open.parquet");
        try (PositionOutputStream out = LocalFiles.output(file.toFile()).create()) {
            List<String> forced = ForcedFiles.during(() -> {
                out.write(new byte[200_000]);
                out.flush();
            });
            assertThat(forced).isEmpty();
            assertThat(out.getPos()).isEqualTo(200_000);
        }
        assertThat(Files.size(file)).isEqualTo(200_000);
    }

    @Test
    void createNeverReplacesAFileAndCreateOrOverwriteDoes() throws Exception {
        OutputFile file = LocalFiles.output(dir.resolve("v1.metadata.json").toFile());
        write(file, "first");

        assertThatThrownBy(file::create).isInstanceOf(AlreadyExistsException.class);
        assertThat(Files.readString(dir.resolve("v1.metadata.json"))).isEqualTo("first");
        try (PositionOutputStream out = file.createOrOverwrite()) {
            out.write("2".getBytes(StandardCharsets.UTF_8));
            assertThat(out.getPos()).isEqualTo(1);
        }
        assertThat(Files.readString(dir.resolve("v1.metadata.json"))).isEqualTo("2");
    }

    @Test
    void aFileSystemThatCannotSyncADirectoryDoesNotFailTheFileButAGoneDirectoryDoes() throws Exception {
        // /proc answers a directory's fsync with EINVAL, as some FUSE mounts do; the next directory is still forced.
        List<String> forced = ForcedFiles.during(() -> LocalFiles.forceEntries(List.of(Path.of("/proc"), dir)));

        assertThat(forced).contains(dir.toString());

        assertThatThrownBy(() -> LocalFiles.forceEntries(List.of(dir.resolve("gone"))))
                .isInstanceOf(java.nio.file.NoSuchFileException.class);
    }

    private static void write(OutputFile file, String text) throws IOException {
        try (PositionOutputStream out = file.create()) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        }
    }
}

package io.loadgate.worker.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Local locations go through java.io with the semantics a commit needs; other schemes to Hadoop. */
class LocalFileIOTest {
    @TempDir
    Path dir;

    @Test
    void writesReadsAndDeletesALocalFileByPathOrFileUriWithoutAChecksumFile() throws IOException {
        LocalFileIO io = new LocalFileIO();
        io.setConf(new Configuration());
        Path file = dir.resolve("metadata/00001.metadata.json");
        write(io.newOutputFile(file.toString()), "first");

        assertThat(Files.readString(file)).isEqualTo("first");
        assertThat(read(io, "file:" + file)).isEqualTo("first");
        assertThat(io.newInputFile("file://" + file, 5).getLength()).isEqualTo(5);
        try (var files = Files.list(file.getParent())) {
            assertThat(files.map(path -> path.getFileName().toString())).containsExactly("00001.metadata.json");
        }

        io.deleteFile("file:" + file);
        assertThat(file).doesNotExist();
        io.deleteFile(file.toString());
    }

    @Test
    void deletingAFileHadoopWroteTakesItsChecksumFileToo() throws IOException {
        Path file = dir.resolve("00001.metadata.json");
        try (var out = org.apache.hadoop.fs.FileSystem.getLocal(new Configuration())
                .create(new org.apache.hadoop.fs.Path(file.toString()))) {
            out.write("older".getBytes(StandardCharsets.UTF_8));
        }
        assertThat(dir.resolve(".00001.metadata.json.crc")).as("Hadoop's checksum file").exists();

        new LocalFileIO().deleteFile(file.toString());

        try (var files = Files.list(dir)) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void createRefusesAFileThatExistsAsACommitsNewMetadataFileMust() throws IOException {
        LocalFileIO io = new LocalFileIO();
        Path file = dir.resolve("00002.metadata.json");
        write(io.newOutputFile(file.toString()), "theirs");

        assertThatThrownBy(() -> io.newOutputFile("file:" + file).create()).isInstanceOf(AlreadyExistsException.class);
        assertThat(Files.readString(file)).isEqualTo("theirs");
    }

    @Test
    void aLocationOfAnotherSchemeGoesToHadoop() {
        LocalFileIO io = new LocalFileIO();
        io.setConf(new Configuration());

        assertThatThrownBy(() -> io.newInputFile("nosuchscheme://host/file"))
                .hasMessage("Failed to get file system for path: nosuchscheme://host/file")
                .hasStackTraceContaining("No FileSystem for scheme \"nosuchscheme\"");
    }

    private static void write(OutputFile output, String text) throws IOException {
        try (PositionOutputStream out = output.create()) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        }
    }

    private static String read(LocalFileIO io, String location) throws IOException {
        try (InputStream in = io.newInputFile(location).newStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}

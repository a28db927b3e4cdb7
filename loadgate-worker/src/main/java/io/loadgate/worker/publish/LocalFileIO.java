package io.loadgate.worker.publish;

import io.loadgate.worker.staging.LocalFiles;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;

/**
 * The FileIO of a catalog whose warehouse is on the local disk: files with no scheme or {@code file:} are read,
 * written and deleted by java.io, anything else (a data file staged on HDFS) by Hadoop, as {@link HadoopFileIO}
 * does every file.
 *
 * <p>Why: without its native library, Hadoop's local file system starts a {@code chmod} process for every file it
 * creates, and writes a {@code .crc} file beside each. A publish writes a manifest, a manifest list and a metadata
 * file: ten processes counted in one publish, about 50 ms of its 170 (bench/RESULTS.md). Iceberg's own local files
 * ({@code org.apache.iceberg.Files}) create without replacing, as a commit's new metadata file must, and read
 * through a {@code RandomAccessFile}.
 */
public final class LocalFileIO extends HadoopFileIO {
    @Override
    public InputFile newInputFile(String path) {
        return isLocal(path) ? org.apache.iceberg.Files.localInput(file(path)) : super.newInputFile(path);
    }

    @Override
    public InputFile newInputFile(String path, long length) {
        return isLocal(path) ? org.apache.iceberg.Files.localInput(file(path)) : super.newInputFile(path, length);
    }

    @Override
    public OutputFile newOutputFile(String path) {
        return isLocal(path) ? LocalFiles.output(file(path)) : super.newOutputFile(path);
    }

    @Override
    public void deleteFile(String path) {
        if (!isLocal(path)) {
            super.deleteFile(path);
            return;
        }
        try {
            // As Hadoop's delete of a file already gone: nothing to do, no failure. A file written by HadoopFileIO
            // (a table older than this class) has Hadoop's checksum file beside it, which its delete took too.
            java.nio.file.Path file = file(path).toPath();
            Files.deleteIfExists(file);
            Files.deleteIfExists(file.resolveSibling("." + file.getFileName() + ".crc"));
        } catch (IOException e) {
            throw new UncheckedIOException("deleting " + path + " failed: " + e.getMessage(), e);
        }
    }

    /** Whether a location is on the local disk: an absolute path, or a {@code file:} one. */
    static boolean isLocal(String path) {
        return path.startsWith("/") || path.startsWith("file:");
    }

    /** The file of a local location: a Hadoop path string (not an escaped URI), as HadoopFileIO reads it. */
    private static File file(String path) {
        return new File(path.startsWith("file:") ? path.substring("file:".length()) : path);
    }
}

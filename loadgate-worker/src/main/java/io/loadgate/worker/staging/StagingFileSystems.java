package io.loadgate.worker.staging;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.hadoop.HadoopOutputFile;
import org.apache.iceberg.io.OutputFile;

/** The Hadoop file system for a staging URI ({@code file://} or {@code hdfs://}). */
public final class StagingFileSystems {
    private StagingFileSystems() {
    }

    /**
     * The file system of {@code uri}. For {@code file://} it is the raw local file system: the checksummed one
     * writes a {@code .crc} side file beside every chunk, a file no ledger row names.
     */
    public static FileSystem forUri(URI uri, Configuration conf) {
        try {
            FileSystem fs = FileSystem.get(uri, conf);
            return fs instanceof LocalFileSystem local ? local.getRawFileSystem() : fs;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the file system of " + uri + ": " + e.getMessage(), e);
        }
    }

    /**
     * A file to create at {@code path} of {@code fs}, failing if it exists, its parent directories made as needed (also
     * by several partitions at once). A local file is created by java.io: without its native library, Hadoop's local file system starts a {@code chmod}
     * process for every file it creates (two per chunk, 5–10 ms each, in a profile of a small load's extraction).
     */
    public static OutputFile newFile(FileSystem fs, Path path) {
        return isLocal(fs) ? LocalFiles.output(localPath(path).toFile()) : HadoopOutputFile.fromPath(path, fs);
    }

    /** Whether {@code fs} is the local disk. */
    public static boolean isLocal(FileSystem fs) {
        return "file".equals(fs.getUri().getScheme());
    }

    /** The local path of a path of the local file system (a {@code file:} URI or a plain path). */
    public static java.nio.file.Path localPath(Path path) {
        return java.nio.file.Path.of(path.toUri().getPath());
    }
}

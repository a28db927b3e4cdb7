package io.loadgate.worker.staging;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;

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
}

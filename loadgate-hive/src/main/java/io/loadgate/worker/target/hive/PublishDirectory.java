package io.loadgate.worker.target.hive;

import io.loadgate.worker.publish.StagedFile;
import io.loadgate.worker.staging.LocalFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;

/**
 * The directory a partition is pointed at: a new directory in the run's staging directory holding exactly the
 * ledger's data files of the run, built from the ledger's file list and never from a listing, so that no rejects file,
 * no zombie or speculative attempt's chunk and no {@code _tmp}, {@code _temporary} or {@code .crc} file that also lies
 * in the run directory can be read as data (the third seed: a directory that held two attempts' output).
 *
 * <p>Each file is a hard link where the file system has them (a local disk: no byte is copied, and the staged file
 * stays where the ledger says it is); HDFS has none, so there each file is copied within the cluster. A rename would
 * be free on HDFS too, but it would take the files away from the locations the ledger holds, which a publish attempt
 * after a refused one, and cleanup's reasoning, rely on. On a local disk the new directory's entries are forced to the
 * disk before the partition points at it, as every file a commit names is ({@link LocalFiles}); an HDFS copy is
 * complete on its DataNodes when its stream closes. The directory lies in the run's path, so cleanup, which keeps
 * every file a partition points at, frees it once no partition does and the run's retention is over.
 */
final class PublishDirectory {
    private PublishDirectory() {
    }

    /**
     * Builds {@code <run directory>/hive-g<generation>} for {@code files} (all in one run directory) and returns its
     * qualified location.
     *
     * @throws IOException when a file is missing or not the size the ledger recorded, or the directory exists already
     */
    static String build(List<StagedFile> files, long generation, Configuration hadoop) throws IOException {
        Path first = new Path(files.get(0).location());
        FileSystem fs = first.getFileSystem(hadoop);
        Path runDirectory = fs.makeQualified(first.getParent());
        Path directory = new Path(runDirectory, "hive-g" + generation);
        // mkdirs succeeds on an existing directory: ask first, since a leftover must not be mixed with this publish.
        if (fs.exists(directory) || !fs.mkdirs(directory)) {
            throw new IOException("publish directory " + directory + " exists already or cannot be made");
        }
        boolean local = "file".equals(runDirectory.toUri().getScheme());
        for (StagedFile file : files) {
            Path source = fs.makeQualified(new Path(file.location()));
            if (!source.getParent().equals(runDirectory)) {
                throw new IOException("staged file " + file.location() + " is not in the run directory " + runDirectory);
            }
            FileStatus status = fs.getFileStatus(source);
            if (status.getLen() != file.byteCount()) {
                throw new IOException("staged file " + source + " has " + status.getLen() + " bytes, the ledger recorded "
                        + file.byteCount());
            }
            Path target = new Path(directory, source.getName());
            if (local) {
                Files.createLink(Paths.get(target.toUri()), Paths.get(source.toUri()));
            } else if (!FileUtil.copy(fs, source, fs, target, false, false, hadoop)) {
                throw new IOException("could not copy " + source + " to " + target);
            }
        }
        if (local) {
            // The links' names and the directory's own, before the metastore points a partition at it.
            LocalFiles.forceEntries(List.of(Paths.get(directory.toUri()), Paths.get(runDirectory.toUri())));
        }
        return directory.toString();
    }
}

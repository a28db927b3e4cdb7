package io.loadgate.worker.staging;

import java.io.BufferedOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Files on the local disk that a commit names: chunks and rejects (the ledger's record of a chunk is its commit) and
 * Iceberg's manifests and metadata files (a catalog's pointer to one is a table's commit). Each is forced to the disk
 * when it closes, with the directory entries that name it, before anything can record it: a crash of the machine, not
 * only of the process, must not take back bytes a SUCCESS stands on. Iceberg's and Hadoop's local streams close
 * without a force.
 */
public final class LocalFiles {
    /**
     * parquet-java writes page headers and the footer a few bytes at a time; unbuffered, each would be a system call
     * (3,734 writes counted for one 1,000,000-row chunk, 295 with this buffer).
     */
    private static final int BUFFER_BYTES = 64 * 1024;
    private static final Logger LOG = LoggerFactory.getLogger(LocalFiles.class);
    private static final AtomicBoolean DIRECTORY_SYNC_REFUSED = new AtomicBoolean();

    private LocalFiles() {
    }

    /**
     * A file on the local disk to create (failing when it exists) or overwrite, its parent directories made as
     * needed. Iceberg's own makes them with {@code mkdirs}, which fails for the writer that loses a race to make the
     * same directory (two partitions starting a run's directory at once); {@code Files.createDirectories} does not.
     */
    public static OutputFile output(File file) {
        OutputFile local = org.apache.iceberg.Files.localOutput(file);
        Path path = file.toPath().toAbsolutePath();
        return new OutputFile() {
            @Override
            public PositionOutputStream create() {
                return open(path, StandardOpenOption.CREATE_NEW);
            }

            @Override
            public PositionOutputStream createOrOverwrite() {
                return open(path, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING);
            }

            @Override
            public String location() {
                return local.location();
            }

            @Override
            public InputFile toInputFile() {
                return local.toInputFile();
            }
        };
    }

    /**
     * Forces each directory's entries to the disk: a file's name (or a hard link's, or a new directory's) is durable
     * only once the directory holding it is. Some file systems refuse to sync a directory at all (a FUSE mount, or
     * {@code /proc}: EINVAL); as PostgreSQL does for its own directories, that is said once and not held against the
     * file, whose own force must succeed. A directory that is gone is an error: so is the file it held.
     */
    public static void forceEntries(List<Path> directories) throws IOException {
        for (Path directory : directories) {
            try (FileChannel entries = FileChannel.open(directory, StandardOpenOption.READ)) {
                entries.force(true);
            } catch (NoSuchFileException e) {
                throw e;
            } catch (IOException e) {
                if (DIRECTORY_SYNC_REFUSED.compareAndSet(false, true)) {
                    LOG.warn("the file system of {} cannot sync a directory ({}): the files written there are on the"
                            + " disk when closed, their names may not be until the system writes them back", directory,
                            e.getMessage());
                }
            }
        }
    }

    private static PositionOutputStream open(Path path, StandardOpenOption... how) {
        List<Path> directories = makeParent(path);
        Set<OpenOption> options = new HashSet<>(List.of(how));
        options.add(StandardOpenOption.WRITE);
        try {
            return new ForcedOnClose(FileChannel.open(path, options), directories);
        } catch (FileAlreadyExistsException e) {
            throw new AlreadyExistsException("File already exists: %s", path);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + path + ": " + e.getMessage(), e);
        }
    }

    /**
     * Makes {@code file}'s missing parent directories and answers the directories whose entries must reach the disk
     * with the file's: its own, each one made here, and the existing one the first of them was made in.
     */
    private static List<Path> makeParent(Path file) {
        Path parent = file.getParent();
        List<Path> directories = new ArrayList<>();
        Path directory = parent;
        while (directory != null && !Files.isDirectory(directory)) {
            directories.add(directory);
            directory = directory.getParent();
        }
        if (directory != null) {
            directories.add(directory);
        }
        try {
            Files.createDirectories(parent);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make the directory " + parent + ": " + e.getMessage(), e);
        }
        return directories;
    }

    private static final class ForcedOnClose extends PositionOutputStream {
        private final FileChannel channel;
        private final OutputStream out;
        private final List<Path> directories;
        private long position;
        private boolean closed;

        ForcedOnClose(FileChannel channel, List<Path> directories) {
            this.channel = channel;
            this.out = new BufferedOutputStream(Channels.newOutputStream(channel), BUFFER_BYTES);
            this.directories = directories;
        }

        @Override
        public long getPos() {
            return position;
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
            position++;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            position += len;
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }

        @Override
        public void close() throws IOException {
            if (closed) {
                return;
            }
            closed = true;
            try (channel) {
                out.flush();
                channel.force(true);
            }
            forceEntries(directories);
        }
    }
}

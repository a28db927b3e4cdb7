package io.loadgate.worker.staging;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;

/** Iceberg's local files ({@link org.apache.iceberg.Files}), their directories made safely by several writers at once. */
public final class LocalFiles {
    private LocalFiles() {
    }

    /**
     * A file on the local disk to create (failing when it exists) or overwrite, its parent directories made as
     * needed. Iceberg's own makes them with {@code mkdirs}, which fails for the writer that loses a race to make the
     * same directory (two partitions starting a run's directory at once); {@code Files.createDirectories} does not.
     */
    public static OutputFile output(File file) {
        OutputFile local = org.apache.iceberg.Files.localOutput(file);
        return new OutputFile() {
            @Override
            public PositionOutputStream create() {
                makeParent(file);
                return local.create();
            }

            @Override
            public PositionOutputStream createOrOverwrite() {
                makeParent(file);
                return local.createOrOverwrite();
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

    private static void makeParent(File file) {
        File parent = file.getAbsoluteFile().getParentFile();
        try {
            Files.createDirectories(parent.toPath());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make the directory " + parent + ": " + e.getMessage(), e);
        }
    }
}

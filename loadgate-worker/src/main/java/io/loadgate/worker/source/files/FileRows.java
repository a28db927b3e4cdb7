package io.loadgate.worker.source.files;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.source.PartitionRows;
import io.loadgate.worker.source.SnapshotExpiredException;
import io.loadgate.worker.source.SourceColumn;
import io.loadgate.worker.source.SourceException;
import java.io.IOException;
import io.loadgate.worker.job.TransformStep;
import io.loadgate.worker.transform.MapperCounts;
import io.loadgate.worker.transform.MapperProcess;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;
import org.apache.hadoop.fs.Path;

/**
 * The rows of one file partition: its files in order, each checked against the snapshot before and after it is
 * read (an append while reading changes the length, and the count of lines), each line a row or a rejected line.
 * With a mapper, the lines go through the job's program first ({@link MapperProcess}, started on the first
 * {@link #next}, its writer thread reading the files) and each row it gives is parsed, or rejected as it was given.
 */
final class FileRows implements PartitionRows {
    private final FileSource source;
    private final Path base;
    private final List<SnapshotFile> files;
    private final LineParser parser;
    private final List<SourceColumn> columns;
    private final List<Object> constants;
    private final Object[] values;
    private final TransformStep.Mapper mapperSpec;
    private final String partitionId;
    private MapperProcess mapper;
    private BiConsumer<String, String> rejected;
    private int fileIndex = -1;
    private LineReader reader;
    private long linesOfFile;

    /**
     * @param base the directory the files' paths are relative to (the source's root)
     * @param mapper the job's mapper, or null: {@code parser} then parses the files' lines, else the mapper's rows
     * @param partitionId names the partition in the mapper's log lines
     */
    FileRows(FileSource source, Path base, List<SnapshotFile> files, LineParser parser, List<SourceColumn> columns,
             List<Object> constants, TransformStep.Mapper mapper, String partitionId) {
        this.source = requireNonNull(source, "source is null");
        this.base = requireNonNull(base, "base is null");
        this.files = List.copyOf(files);
        this.parser = requireNonNull(parser, "parser is null");
        this.columns = List.copyOf(columns);
        // Not List.copyOf: a sample read without a business key has null constants.
        this.constants = java.util.Collections.unmodifiableList(new java.util.ArrayList<>(constants));
        this.values = new Object[columns.size() - constants.size()];
        this.mapperSpec = mapper;
        this.partitionId = requireNonNull(partitionId, "partitionId is null");
    }

    @Override
    public List<SourceColumn> columns() {
        return columns;
    }

    @Override
    public boolean rejectsLines() {
        return true;
    }

    @Override
    public void rejectLinesTo(BiConsumer<String, String> sink) {
        this.rejected = requireNonNull(sink, "sink is null");
    }

    @Override
    public Optional<MapperCounts> mapperCounts() {
        return mapper == null ? Optional.empty() : Optional.of(mapper.counts());
    }

    @Override
    public boolean next() {
        if (mapperSpec != null) {
            return nextMapped();
        }
        try {
            while (true) {
                if (!advance()) {
                    return false;
                }
                try {
                    parser.parse(reader, values);
                    return true;
                } catch (LineParser.Rejected e) {
                    if (rejected == null) {
                        throw new IllegalStateException("a line was rejected and no sink takes it: " + e.getMessage());
                    }
                    rejected.accept(reader.text(), files.get(fileIndex).path() + ":" + linesOfFile + ": "
                            + e.getMessage());
                }
            }
        } catch (IOException e) {
            throw readFailed(e);
        }
    }

    private boolean nextMapped() {
        if (mapper == null) {
            mapper = MapperProcess.start(mapperSpec, partitionId, () -> {
                try {
                    return nextLine();
                } catch (IOException e) {
                    throw readFailed(e);
                }
            });
        }
        while (true) {
            String row = mapper.nextRow();
            if (row == null) {
                return false;
            }
            try {
                parser.parse(row, values);
                return true;
            } catch (LineParser.Rejected e) {
                if (rejected == null) {
                    throw new IllegalStateException("a row was rejected and no sink takes it: " + e.getMessage());
                }
                rejected.accept(row, position(mapper.lineNumber()) + ": a row of the mapper: " + e.getMessage());
            }
        }
    }

    private SourceException readFailed(IOException e) {
        return new SourceException("reading " + files.get(fileIndex).path() + " failed: " + e.getMessage(), e);
    }

    /** The next line of the partition's files, or null after the last (on the mapper's writer thread with one). */
    private String nextLine() throws IOException {
        return advance() ? reader.text() : null;
    }

    /** Moves {@link #reader} to the partition's next line; false after the last. */
    private boolean advance() throws IOException {
        while (true) {
            if (reader == null && !openNext()) {
                return false;
            }
            if (reader.advance()) {
                linesOfFile++;
                return true;
            }
            finishFile();
        }
    }

    /** {@code file:line} of the partition's {@code n}th line (1-based), by the lines the snapshot counted. */
    private String position(long n) {
        long before = 0;
        for (SnapshotFile file : files) {
            if (n <= before + file.lines()) {
                return file.path() + ":" + (n - before);
            }
            before += file.lines();
        }
        return "line " + n;
    }

    private boolean openNext() throws IOException {
        if (fileIndex + 1 >= files.size()) {
            return false;
        }
        fileIndex++;
        SnapshotFile file = files.get(fileIndex);
        source.verify(base, file);
        reader = new LineReader(source.open(new Path(base, file.path())));
        linesOfFile = 0;
        if (parser.hasHeader()) {
            String header = reader.next();
            if (header != null) {
                parser.header(header);
            }
        }
        return true;
    }

    private void finishFile() throws IOException {
        SnapshotFile file = files.get(fileIndex);
        reader.close();
        reader = null;
        if (linesOfFile != file.lines()) {
            throw new SnapshotExpiredException("file " + file.path() + " has " + linesOfFile + " lines, the snapshot"
                    + " counted " + file.lines(), null);
        }
        // After the read too: an append that landed while the file was read is a change of its length.
        source.verify(base, file);
    }

    @Override
    public Object value(int index) {
        return index < values.length ? values[index] : constants.get(index - values.length);
    }

    @Override
    public void close() {
        if (mapper != null) {
            // Stops its writer thread first: the file it was reading, if any, is then closed below.
            mapper.close();
        }
        if (reader != null) {
            try {
                reader.close();
            } catch (IOException e) {
                // Nothing was read from it that matters any more: the partition is over either way.
            }
            reader = null;
        }
    }
}

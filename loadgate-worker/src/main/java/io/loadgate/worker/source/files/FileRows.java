package io.loadgate.worker.source.files;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.source.PartitionRows;
import io.loadgate.worker.source.SnapshotExpiredException;
import io.loadgate.worker.source.SourceColumn;
import io.loadgate.worker.source.SourceException;
import java.io.IOException;
import java.util.List;
import java.util.function.BiConsumer;
import org.apache.hadoop.fs.Path;

/**
 * The rows of one file partition: its files in order, each checked against the snapshot before and after it is
 * read (an append while reading changes the length, and the count of lines), each line a row or a rejected line.
 */
final class FileRows implements PartitionRows {
    private final FileSource source;
    private final Path base;
    private final List<SnapshotFile> files;
    private final LineParser parser;
    private final List<SourceColumn> columns;
    private final List<Object> constants;
    private final Object[] values;
    private BiConsumer<String, String> rejected;
    private int fileIndex = -1;
    private LineReader reader;
    private long linesOfFile;

    /** @param base the directory the files' paths are relative to (the source's root) */
    FileRows(FileSource source, Path base, List<SnapshotFile> files, LineParser parser, List<SourceColumn> columns,
             List<Object> constants) {
        this.source = requireNonNull(source, "source is null");
        this.base = requireNonNull(base, "base is null");
        this.files = List.copyOf(files);
        this.parser = requireNonNull(parser, "parser is null");
        this.columns = List.copyOf(columns);
        // Not List.copyOf: a sample read without a business key has null constants.
        this.constants = java.util.Collections.unmodifiableList(new java.util.ArrayList<>(constants));
        this.values = new Object[columns.size() - constants.size()];
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
    public boolean next() {
        try {
            while (true) {
                if (reader == null && !openNext()) {
                    return false;
                }
                String line = reader.next();
                if (line == null) {
                    finishFile();
                    continue;
                }
                linesOfFile++;
                try {
                    parser.parse(line, values);
                    return true;
                } catch (LineParser.Rejected e) {
                    if (rejected == null) {
                        throw new IllegalStateException("a line was rejected and no sink takes it: " + e.getMessage());
                    }
                    rejected.accept(line, files.get(fileIndex).path() + ":" + linesOfFile + ": " + e.getMessage());
                }
            }
        } catch (IOException e) {
            throw new SourceException("reading " + files.get(fileIndex).path() + " failed: " + e.getMessage(), e);
        }
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

package io.loadgate.worker.staging;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.job.StagingSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

/**
 * Keeps the rows a partition's transforms rejected: their original values, under the source columns' field ids, and
 * the reason in one more column. Written beside the data chunks under the same commit rule (a final name carrying
 * the attempt, never renamed; it counts once the ledger records it as the partition's REJECTS chunk). The file is
 * created on the first rejected row, so a partition without rejects has none.
 *
 * <p>Not thread-safe: one writer per partition attempt, fed from the thread reading that partition.
 */
public final class RejectsWriter implements AutoCloseable {
    /** The column holding why a row was rejected. */
    public static final String REASON_COLUMN = "_loadgate_reject_reason";
    /** The column holding a rejected line as read (file sources): a line that did not parse has no values. */
    public static final String RAW_LINE_COLUMN = "_loadgate_raw_line";

    private final FileSystem fs;
    private final Path path;
    private final Schema schema;
    private final StagingSpec staging;
    private final GenericRecord template;
    private final int reasonPosition;
    private final int rawLinePosition;
    private DigestingOutputFile file;
    private StagedParquetWriter<Record> writer;
    private long records;
    private boolean finished;

    /** @param dataSchema the data chunks' schema, from {@link SourceSchemas#toIceberg} */
    public RejectsWriter(Configuration hadoop, URI runDirectory, Schema dataSchema, StagingSpec staging, ChunkNaming naming) {
        this(hadoop, runDirectory, schemaOf(requireNonNull(dataSchema, "dataSchema is null")), staging, naming, -1);
    }

    /**
     * A writer for a source that parses lines: its rejects file has {@link #RAW_LINE_COLUMN} after the reason, and
     * takes {@link #addLine}.
     */
    public static RejectsWriter forLines(Configuration hadoop, URI runDirectory, Schema dataSchema, StagingSpec staging,
                                         ChunkNaming naming) {
        Schema withReason = schemaOf(requireNonNull(dataSchema, "dataSchema is null"));
        List<Types.NestedField> fields = new ArrayList<>(withReason.columns());
        fields.add(Types.NestedField.optional(withReason.highestFieldId() + 1, RAW_LINE_COLUMN, Types.StringType.get()));
        return new RejectsWriter(hadoop, runDirectory, new Schema(fields), staging, naming, fields.size() - 1);
    }

    private RejectsWriter(Configuration hadoop, URI runDirectory, Schema schema, StagingSpec staging, ChunkNaming naming,
                          int rawLinePosition) {
        requireNonNull(hadoop, "hadoop is null");
        requireNonNull(runDirectory, "runDirectory is null");
        requireNonNull(naming, "naming is null");
        this.fs = StagingFileSystems.forUri(runDirectory, hadoop);
        this.path = fs.makeQualified(new Path(new Path(runDirectory), naming.rejectsFileName()));
        this.schema = schema;
        this.staging = requireNonNull(staging, "staging is null");
        this.template = GenericRecord.create(schema);
        this.reasonPosition = schema.columns().indexOf(schema.findField(REASON_COLUMN));
        this.rawLinePosition = rawLinePosition;
    }

    /** The rejects file's schema: the data columns with their field ids, then the reason. */
    public static Schema schemaOf(Schema dataSchema) {
        List<Types.NestedField> fields = new ArrayList<>(dataSchema.columns());
        fields.add(Types.NestedField.optional(dataSchema.highestFieldId() + 1, REASON_COLUMN, Types.StringType.get()));
        return new Schema(fields);
    }

    /** The data columns of a rejects file's schema: reading a rejects file with it gives rows like the data's. */
    public static Schema dataSchemaOf(Schema rejectsSchema) {
        return new Schema(rejectsSchema.columns().stream()
                .filter(f -> !f.name().equals(REASON_COLUMN) && !f.name().equals(RAW_LINE_COLUMN)).toList());
    }

    /** Keeps {@code original} (a record of the data schema, as read from the source) with {@code reason}. */
    public void add(Record original, String reason) {
        requireNonNull(original, "original is null");
        GenericRecord row = template.copy();
        for (int i = 0; i < reasonPosition; i++) {
            row.set(i, original.get(i));
        }
        append(row, reason);
    }

    /** Keeps a line that gave no row (its data columns empty) with {@code reason}; {@link #forLines} writers only. */
    public void addLine(String line, String reason) {
        requireNonNull(line, "line is null");
        if (rawLinePosition < 0) {
            throw new IllegalStateException("this rejects file keeps rows, not lines");
        }
        GenericRecord row = template.copy();
        row.set(rawLinePosition, line);
        append(row, reason);
    }

    private void append(GenericRecord row, String reason) {
        requireNonNull(reason, "reason is null");
        if (finished) {
            throw new IllegalStateException("the rejects file is finished");
        }
        row.set(reasonPosition, reason);
        try {
            if (writer == null) {
                file = new DigestingOutputFile(StagingFileSystems.newFile(fs, path));
                writer = ChunkWriter.recordWriter(file, schema, staging);
            }
            writer.add(row);
        } catch (IOException e) {
            throw new UncheckedIOException("writing rejects file " + path + " failed: " + e.getMessage(), e);
        }
        records++;
    }

    /** Closes the file; the chunk to report as the partition's {@code chunkIndex}, or empty when nothing was rejected. */
    public Optional<StagedChunk> finish(int chunkIndex) {
        finished = true;
        if (writer == null) {
            return Optional.empty();
        }
        try {
            writer.close();
        } catch (IOException e) {
            throw new UncheckedIOException("closing rejects file " + path + " failed: " + e.getMessage(), e);
        }
        writer = null;
        return Optional.of(new StagedChunk(chunkIndex, path.toUri(), records, file.byteCount(), file.sha256Hex()));
    }

    /**
     * {@link #finish}, and when nothing was rejected a file of no rows all the same: the one chunk of a partition whose
     * mapper gave no row for any line, since the ledger completes a partition on its chunks' report (lines read as
     * planned, 0 rows emitted, 0 staged). A rejects chunk, so nothing of it is ever published.
     */
    public StagedChunk finishEvenIfEmpty(int chunkIndex) {
        if (writer != null || finished) {
            return finish(chunkIndex).orElseThrow(() -> new IllegalStateException("the rejects file is finished"));
        }
        finished = true;
        file = new DigestingOutputFile(StagingFileSystems.newFile(fs, path));
        try {
            ChunkWriter.recordWriter(file, schema, staging).close();
        } catch (IOException e) {
            throw new UncheckedIOException("writing rejects file " + path + " failed: " + e.getMessage(), e);
        }
        return new StagedChunk(chunkIndex, path.toUri(), 0, file.byteCount(), file.sha256Hex());
    }

    /** Abandons an unfinished file (the partition failed): it is deleted rather than left half-written. */
    @Override
    public void close() {
        if (writer == null) {
            return;
        }
        try {
            writer.close();
        } catch (IOException | RuntimeException e) {
            // The file is deleted next; a failure to close it changes nothing the ledger will see.
        }
        writer = null;
        try {
            fs.delete(path, false);
        } catch (IOException e) {
            // Left for cleanup: it was never reported, so nothing reads it.
        }
    }
}

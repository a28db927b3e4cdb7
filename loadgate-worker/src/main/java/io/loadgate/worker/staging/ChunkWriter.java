package io.loadgate.worker.staging;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.job.StagingSpec;
import io.loadgate.worker.source.PrimitiveRow;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.BiFunction;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.parquet.ParquetValueWriter;
import org.apache.parquet.schema.MessageType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a partition's rows as Parquet chunk files under a run directory, following the commit rule: each chunk
 * is written straight to its final name ({@link ChunkNaming}) and never renamed; it counts only once the ledger
 * records it, which the caller does after this writer returns. A file that is never reported (a crash, a zombie)
 * is ignored by validation, which reads only the ledger's list, and removed by cleanup.
 *
 * <p>{@link #writePartition} writes every chunk of a partition before returning them, because the ledger needs
 * the chunk count with each report and it is known only when the rows are exhausted. Thread-safe: each call
 * writes its own files.
 */
public final class ChunkWriter {
    private static final Logger LOG = LoggerFactory.getLogger(ChunkWriter.class);
    /**
     * A page's size before compression, against Iceberg's 1 MiB. Why: every reader of a page holds it decompressed
     * in one array, and so does the writer's compressor; an array of half a G1 region (512 KiB of the 1 MiB regions
     * of a heap under 2 GiB) or more is a humongous object, which G1 allocates outside the young generation and which
     * starts concurrent cycles of its own. A worker measuring the bench's 1 MiB text pages allocated 1 GB of them in
     * a 5,000,000-row load's life; with 256 KiB pages, none (docs/validation.md, "Pages below half a region").
     */
    static final int PAGE_BYTES = 256 << 10;

    private final FileSystem fs;
    private final Path runDirectory;
    private final Schema schema;
    private final StagingSpec staging;

    /**
     * @param runDirectory the run's {@code hdfsRunPath} from the ledger, a {@code file:} or {@code hdfs:} URI
     * @param schema the chunk schema, from {@link SourceSchemas#toIceberg}
     */
    public ChunkWriter(Configuration hadoop, URI runDirectory, Schema schema, StagingSpec staging) {
        requireNonNull(hadoop, "hadoop is null");
        requireNonNull(runDirectory, "runDirectory is null");
        this.fs = StagingFileSystems.forUri(runDirectory, hadoop);
        this.runDirectory = new Path(runDirectory);
        this.schema = requireNonNull(schema, "schema is null");
        this.staging = requireNonNull(staging, "staging is null");
    }

    /**
     * Writes all of {@code rows} as chunks of at most {@code rows_per_chunk} records (none empty) and returns them
     * in index order. No rows give an empty list: there is no chunk to report, and since the ledger dispatches
     * only partitions that expect rows, the caller fails the partition. On failure the unfinished chunk is deleted
     * and finished ones are left, unreported, for cleanup.
     */
    public List<StagedChunk> writePartition(ChunkNaming naming, Iterator<Record> rows) {
        return writePartition(naming, rows, ChunkRecordWriter::create);
    }

    /** Whether {@link #writePrimitivePartition} can write rows of this writer's schema. */
    public boolean writesPrimitives() {
        return PrimitiveRowWriter.writes(schema);
    }

    /**
     * {@link #writePartition} of rows read as primitives, when {@link #writesPrimitives}: the same files as of the
     * same rows as records, with no object made per value.
     */
    public List<StagedChunk> writePrimitivePartition(ChunkNaming naming, Iterator<PrimitiveRow> rows) {
        return writePartition(naming, rows, PrimitiveRowWriter::create);
    }

    private <T> List<StagedChunk> writePartition(ChunkNaming naming, Iterator<T> rows,
                                                 BiFunction<Schema, MessageType, ParquetValueWriter<?>> writerFunction) {
        requireNonNull(naming, "naming is null");
        requireNonNull(rows, "rows is null");
        List<StagedChunk> chunks = new ArrayList<>();
        // A chunk is started only when a row is waiting: a chunk of no rows is never made.
        while (rows.hasNext()) {
            chunks.add(writeChunk(naming, chunks.size(), rows, writerFunction));
        }
        return List.copyOf(chunks);
    }

    private <T> StagedChunk writeChunk(ChunkNaming naming, int chunkIndex, Iterator<T> rows,
                                       BiFunction<Schema, MessageType, ParquetValueWriter<?>> writerFunction) {
        Path path = fs.makeQualified(new Path(runDirectory, naming.fileName(chunkIndex)));
        DigestingOutputFile file = new DigestingOutputFile(StagingFileSystems.newFile(fs, path));
        long records = 0;
        try (StagedParquetWriter<T> writer = new StagedParquetWriter<>(file, schema, staging, PAGE_BYTES, writerFunction)) {
            while (records < staging.rowsPerChunk() && rows.hasNext()) {
                writer.add(rows.next());
                records++;
            }
        } catch (IOException | RuntimeException e) {
            if (file.created()) {
                deleteQuietly(path, e);
            }
            if (e instanceof IOException io) {
                throw new UncheckedIOException("writing chunk " + path + " failed: " + io.getMessage(), io);
            }
            throw (RuntimeException) e;
        }
        StagedChunk chunk = new StagedChunk(chunkIndex, path.toUri(), records, file.byteCount(), file.sha256Hex());
        LOG.debug("staged {}", chunk);
        return chunk;
    }

    /** A Parquet writer of Iceberg generic records, as every staged file is written. */
    static StagedParquetWriter<Record> recordWriter(DigestingOutputFile file, Schema schema, StagingSpec staging)
            throws IOException {
        return new StagedParquetWriter<>(file, schema, staging, PAGE_BYTES, ChunkRecordWriter::create);
    }

    private void deleteQuietly(Path path, Exception failure) {
        try {
            fs.delete(path, false);
        } catch (IOException e) {
            failure.addSuppressed(e);
        }
    }
}

package io.loadgate.worker.validation;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.job.ValidationSpec;
import io.loadgate.worker.staging.StagingFileSystems;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.data.parquet.InternalReader;
import org.apache.iceberg.hadoop.HadoopInputFile;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.iceberg.parquet.ParquetValueReader;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.schema.MessageType;

/**
 * Reads staged chunk files as Iceberg generic records. It takes the files to read from the caller, who takes them
 * from the ledger's file list: a directory listing would also find files the ledger never recorded (a zombie's,
 * a speculative duplicate's, a crashed attempt's), and those must never count.
 */
public final class StagedFilesReader {
    private final Configuration hadoop;

    public StagedFilesReader(Configuration hadoop) {
        this.hadoop = requireNonNull(hadoop, "hadoop is null");
    }

    /** The Iceberg schema a staged file was written with, field ids included, from its footer. */
    public Schema schemaOf(URI file) {
        FileSystem fs = StagingFileSystems.forUri(file, hadoop);
        Path path = new Path(file);
        try (ParquetFileReader reader = ParquetFiles.open(org.apache.parquet.hadoop.util.HadoopInputFile.fromPath(path, fs.getConf()))) {
            return ParquetSchemaUtil.convert(reader.getFooter().getFileMetaData().getSchema());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the footer of " + file + ": " + e.getMessage(), e);
        }
    }

    /** The records of {@code files}, in list order, projected to {@code schema} by field id. Close the result. */
    public CloseableIterable<Record> read(Schema schema, List<URI> files) {
        requireNonNull(schema, "schema is null");
        List<CloseableIterable<Record>> parts = new ArrayList<>(files.size());
        for (URI file : files) {
            parts.add(open(file, schema, fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema)));
        }
        return CloseableIterable.concat(parts);
    }

    private CloseableIterable<Record> open(URI file, Schema schema,
                                           Function<MessageType, ParquetValueReader<?>> readers) {
        FileSystem fs = StagingFileSystems.forUri(file, hadoop);
        return Parquet.read(HadoopInputFile.fromPath(new Path(file), fs))
                .project(schema)
                .createReaderFunc(readers)
                .build();
    }

    /**
     * The SHA-256 (lower-case hex) of a file's bytes, to compare with the checksum the ledger recorded for it
     * before trusting its content.
     */
    public String sha256(URI file) {
        FileSystem fs = StagingFileSystems.forUri(file, hadoop);
        try (InputStream in = fs.open(new Path(file))) {
            return sha256(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    /** The SHA-256 (lower-case hex) of the rest of {@code in}, as the chunk writer computed it; the caller closes it. */
    public static String sha256(InputStream in) throws IOException {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
        byte[] buffer = new byte[1 << 16];
        for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
            digest.update(buffer, 0, n);
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    /**
     * Computes the job's metrics over {@code files}, one file per core at a time; see {@link MetricCalculator}
     * and {@link ParallelMetrics}.
     */
    public MetricSet metrics(Schema schema, List<URI> files, ValidationSpec validation) {
        return metrics(schema, files, validation, ParallelMetrics.defaultParallelism());
    }

    /** As {@link #metrics(Schema, List, ValidationSpec)}, reading at most {@code parallelism} files at once. */
    public MetricSet metrics(Schema schema, List<URI> files, ValidationSpec validation, int parallelism) {
        return measure(schema, files, validation, parallelism).result();
    }

    /**
     * The calculator that measured {@code files}, to {@link MetricCalculator#merge merge} with another set of files
     * measured over the same schema. Reads only the columns {@code validation} references, column by column
     * ({@link ColumnarMetrics}) unless a metric needs values that reader does not decode or a file stores a column
     * otherwise; then as records, with the same result.
     */
    public MetricCalculator measure(Schema schema, List<URI> files, ValidationSpec validation, int parallelism) {
        List<DataFileInput> inputs = new ArrayList<>(files.size());
        for (URI file : files) {
            Path path = new Path(file);
            FileSystem fs = StagingFileSystems.forUri(file, hadoop);
            try {
                inputs.add(new DataFileInput(HadoopInputFile.fromPath(path, fs),
                        org.apache.parquet.hadoop.util.HadoopInputFile.fromPath(path, fs.getConf())));
            } catch (IOException e) {
                throw new UncheckedIOException("reading staged files failed: " + e.getMessage(), e);
            }
        }
        try {
            return measureFiles(schema, inputs, validation, parallelism);
        } catch (UncheckedIOException e) {
            throw new UncheckedIOException("reading staged files failed: " + e.getCause().getMessage(), e.getCause());
        }
    }

    /**
     * As {@link #measure}, over files opened by the caller: a table's data files, read through its FileIO. Each file
     * is read whole, as it is stored (no delete files applied, no partition constants), so the caller gives only files
     * a scan would read so.
     */
    public static MetricCalculator measureFiles(Schema schema, List<DataFileInput> files, ValidationSpec validation,
                                                int parallelism) {
        requireNonNull(schema, "schema is null");
        requireNonNull(validation, "validation is null");
        // Only the columns a metric reads are decoded; COUNT alone still needs some column to count rows by.
        Schema read = validation.referencedColumns().isEmpty() ? schema
                : schema.caseInsensitiveSelect(validation.referencedColumns());
        Optional<ColumnarMetrics> columnar = ColumnarMetrics.of(read, validation);
        List<ParallelMetrics.Part> parts = new ArrayList<>(files.size());
        for (DataFileInput file : files) {
            // Iceberg's internal representation: dates as days, timestamps as microseconds, no java.time object per
            // value (decoding timestamptz into OffsetDateTime was a fifth of the measuring threads' time); the
            // calculator turns the extremes back into dates and instants. The values decoded from the pages are the same.
            ParallelMetrics.Part records = ParallelMetrics.records(() -> Parquet.read(file.iceberg()).project(read)
                    .createReaderFunc(fileSchema -> InternalReader.create(read, fileSchema)).build());
            parts.add(columnar.isEmpty() ? records : calculator -> {
                if (!columnar.get().measure(file.parquet(), calculator)) {
                    records.readInto(calculator);
                }
            });
        }
        return ParallelMetrics.measureParts(parts, () -> new MetricCalculator(validation, read), parallelism);
    }
}

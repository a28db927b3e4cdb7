package io.loadgate.worker.validation;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.staging.StagingFileSystems;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.hadoop.HadoopInputFile;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.parquet.hadoop.ParquetFileReader;

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
        try (ParquetFileReader reader = ParquetFileReader.open(org.apache.parquet.hadoop.util.HadoopInputFile.fromPath(path, fs.getConf()))) {
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
            FileSystem fs = StagingFileSystems.forUri(file, hadoop);
            parts.add(Parquet.read(HadoopInputFile.fromPath(new Path(file), fs))
                    .project(schema)
                    .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema))
                    .build());
        }
        return CloseableIterable.concat(parts);
    }

    /** Computes the job's metrics over {@code files}; see {@link MetricCalculator}. */
    public MetricSet metrics(Schema schema, List<URI> files, io.loadgate.worker.job.ValidationSpec validation) {
        MetricCalculator calculator = new MetricCalculator(validation, schema);
        try (CloseableIterable<Record> records = read(schema, files)) {
            records.forEach(calculator::accept);
        } catch (IOException e) {
            throw new UncheckedIOException("reading staged files failed: " + e.getMessage(), e);
        }
        return calculator.result();
    }
}

package io.loadgate.worker.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Files;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;

/**
 * Parquet files of generic records written with Iceberg's own writer, the way staged chunks are laid out (field ids
 * from the schema), for tests that need real files to read, measure or publish.
 */
public final class GenericParquet {
    private GenericParquet() {
    }

    public static File write(File file, Schema schema, List<Record> records) {
        return write(file, schema, records, Map.of());
    }

    /** @param properties Iceberg write properties, such as codec, row group and page sizes */
    public static File write(File file, Schema schema, List<Record> records, Map<String, String> properties) {
        try (FileAppender<Record> appender = Parquet.write(Files.localOutput(file))
                .schema(schema)
                .createWriterFunc(GenericParquetWriter::create)
                .setAll(properties)
                .build()) {
            appender.addAll(records);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }
}

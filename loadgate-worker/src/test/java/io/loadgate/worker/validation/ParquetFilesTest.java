package io.loadgate.worker.validation;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import org.apache.iceberg.Files;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.LocalInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ParquetFilesTest {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "note", Types.StringType.get()));
    private static final int ROWS = 20_000;

    @TempDir
    Path dir;

    @Test
    void readsTheFooterAndRowGroupsParquetJavaReadsItself() throws IOException {
        LocalInputFile file = new LocalInputFile(write());
        ParquetMetadata expected;
        try (ParquetFileReader reader = ParquetFileReader.open(file)) {
            expected = reader.getFooter();
        }

        try (ParquetFileReader second = ParquetFiles.open(file)) {
            try (ParquetFileReader first = ParquetFiles.open(file)) {
                assertThat(first.getFooter().toString()).isEqualTo(expected.toString());
                assertThat(first.readNextRowGroup().getRowCount()).isPositive();
            }
            // Two readers of one file, the first closed while the second reads: each has options of its own.
            assertThat(second.getFooter().getBlocks()).hasSizeGreaterThan(1);
            long rows = 0;
            for (PageReadStore group = second.readNextRowGroup(); group != null; group = second.readNextRowGroup()) {
                rows += group.getRowCount();
            }
            assertThat(rows).isEqualTo(ROWS);
        }
    }

    private Path write() throws IOException {
        File file = dir.resolve("f.parquet").toFile();
        try (FileAppender<Record> appender = Parquet.write(Files.localOutput(file)).schema(SCHEMA)
                .set(TableProperties.PARQUET_COMPRESSION, "zstd")
                .set(TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, "65536")
                .createWriterFunc(GenericParquetWriter::create).build()) {
            for (long i = 0; i < ROWS; i++) {
                Record r = GenericRecord.create(SCHEMA);
                r.setField("id", i * 7_919);
                r.setField("note", i % 11 == 0 ? null : "note " + (i * 31 % 9_973));
                appender.add(r);
            }
        }
        return file.toPath();
    }
}

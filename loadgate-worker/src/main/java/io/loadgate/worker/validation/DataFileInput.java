package io.loadgate.worker.validation;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import org.apache.iceberg.io.InputFile;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.SeekableInputStream;

/**
 * A Parquet file to measure, as the two readers open it: Iceberg's record reader takes an Iceberg {@link InputFile},
 * parquet-java's (for {@link ColumnarMetrics}) its own. Both read the same bytes.
 */
public record DataFileInput(InputFile iceberg, org.apache.parquet.io.InputFile parquet) {
    public DataFileInput {
        requireNonNull(iceberg, "iceberg is null");
        requireNonNull(parquet, "parquet is null");
    }

    /** A file any Iceberg FileIO opens (a table's data file), read by parquet-java through that same stream. */
    public static DataFileInput of(InputFile file) {
        return new DataFileInput(file, new org.apache.parquet.io.InputFile() {
            @Override
            public long getLength() {
                return file.getLength();
            }

            @Override
            public SeekableInputStream newStream() {
                org.apache.iceberg.io.SeekableInputStream stream = file.newStream();
                return new DelegatingSeekableInputStream(stream) {
                    @Override
                    public long getPos() throws IOException {
                        return stream.getPos();
                    }

                    @Override
                    public void seek(long newPos) throws IOException {
                        stream.seek(newPos);
                    }
                };
            }

            @Override
            public String toString() {
                return file.location();
            }
        });
    }
}

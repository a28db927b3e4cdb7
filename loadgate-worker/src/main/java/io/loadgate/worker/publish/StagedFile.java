package io.loadgate.worker.publish;

import static java.util.Objects.requireNonNull;

/**
 * One staged chunk as the ledger recorded it: a Parquet file written with Iceberg's own writer and the target's
 * schema, so it carries the table's field ids and can be added to the table as it is.
 *
 * @param location the file's location exactly as the ledger holds it (an absolute path or a URI such as
 *     {@code hdfs://...}); the table references this string verbatim, which is what cleanup compares against
 * @param checksum the SHA-256 (lower-case hex) of the file's bytes from its chunk report, or null when unknown
 */
public record StagedFile(String location, long recordCount, long byteCount, String checksum) {
    /** A file whose bytes' checksum is not known here (publishing needs none). */
    public StagedFile(String location, long recordCount, long byteCount) {
        this(location, recordCount, byteCount, null);
    }

    public StagedFile {
        requireNonNull(location, "location is null");
        if (location.isBlank()) {
            throw new IllegalArgumentException("location is blank");
        }
        if (recordCount < 0) {
            throw new IllegalArgumentException("recordCount is negative: " + recordCount + " for " + location);
        }
        if (byteCount <= 0) {
            throw new IllegalArgumentException("byteCount must be positive: " + byteCount + " for " + location);
        }
    }
}

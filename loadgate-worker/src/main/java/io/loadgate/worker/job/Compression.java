package io.loadgate.worker.job;

/** Parquet codecs a staged chunk may use; the names are Iceberg's {@code write.parquet.compression-codec} values. */
public enum Compression {
    ZSTD,
    SNAPPY,
    GZIP,
    UNCOMPRESSED;

    public String icebergName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}

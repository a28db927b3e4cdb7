package io.loadgate.worker.job;

/**
 * Parquet codecs a staged chunk may use; the names are Iceberg's {@code write.parquet.compression-codec} values. A
 * codec with levels takes {@code staging.compression_level} within its own range (Iceberg's
 * {@code write.parquet.compression-level}); without one, parquet-java's default (zstd 3, gzip 6) applies.
 */
public enum Compression {
    ZSTD(1, 22),
    SNAPPY(0, 0),
    GZIP(1, 9),
    UNCOMPRESSED(0, 0);

    private final int lowestLevel;
    private final int highestLevel;

    Compression(int lowestLevel, int highestLevel) {
        this.lowestLevel = lowestLevel;
        this.highestLevel = highestLevel;
    }

    /** Whether {@code level} is one of this codec's levels (none for a codec without levels). */
    public boolean hasLevel(int level) {
        return highestLevel > 0 && level >= lowestLevel && level <= highestLevel;
    }

    /** The levels this codec takes, for a message: "1 to 22", or "none". */
    public String levels() {
        return highestLevel > 0 ? lowestLevel + " to " + highestLevel : "none";
    }

    public String icebergName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}

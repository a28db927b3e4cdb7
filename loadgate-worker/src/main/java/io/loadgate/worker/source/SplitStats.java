package io.loadgate.worker.source;

import java.math.BigInteger;

/**
 * What the manifest says about the source as a whole: its row count and the split column's null count and
 * min/max over the non-null values (both null when there are none).
 */
public record SplitStats(long rowCount, long nullCount, BigInteger min, BigInteger max) {
    public SplitStats {
        if (rowCount < 0 || nullCount < 0 || nullCount > rowCount) {
            throw new IllegalArgumentException("invalid counts: rows " + rowCount + ", nulls " + nullCount);
        }
        if ((min == null) != (max == null)) {
            throw new IllegalArgumentException("min and max are both null or both set");
        }
    }
}

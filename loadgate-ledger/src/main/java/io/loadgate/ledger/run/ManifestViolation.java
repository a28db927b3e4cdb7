package io.loadgate.ledger.run;

import java.util.LinkedHashMap;
import java.util.Map;

/** One broken manifest invariant; {@code partitionId} is null when the violation concerns the whole manifest. */
public record ManifestViolation(Code code, String message, String partitionId) {

    public enum Code {
        DUPLICATE_PARTITION_ID,
        PARTITION_COUNT_MISMATCH,
        EXPECTED_SUM_MISMATCH,
        EMPTY_SOURCE_BLOCKED,
        MULTIPLE_NULL_PARTITIONS,
        INVALID_NULL_PARTITION,
        NULL_COUNT_MISMATCH,
        NULL_ROWS_WITHOUT_NULL_PARTITION,
        INVALID_BOUNDS,
        UPPER_INCLUSIVE_INVALID,
        RANGE_GAP_OR_OVERLAP,
        MIN_SPLIT_MISMATCH,
        MAX_SPLIT_MISMATCH
    }

    public Map<String, Object> toWire() {
        Map<String, Object> wire = new LinkedHashMap<>();
        wire.put("code", code.name());
        wire.put("message", message);
        if (partitionId != null) {
            wire.put("partitionId", partitionId);
        }
        return wire;
    }
}

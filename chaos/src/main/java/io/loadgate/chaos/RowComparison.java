package io.loadgate.chaos;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * One key's target partition against what it should hold, both as multisets of row digests (order-free): {@code lost}
 * rows are expected copies the target lacks, {@code doubled} are copies it holds beyond the expected ones (a row
 * loaded twice, or a row of another version of the source).
 */
record RowComparison(long expected, long actual, long lost, long doubled) {
    static RowComparison of(Map<String, Long> expected, Map<String, Long> actual) {
        Set<String> digests = new HashSet<>(expected.keySet());
        digests.addAll(actual.keySet());
        long lost = 0;
        long doubled = 0;
        for (String digest : digests) {
            long want = expected.getOrDefault(digest, 0L);
            long have = actual.getOrDefault(digest, 0L);
            lost += Math.max(0, want - have);
            doubled += Math.max(0, have - want);
        }
        return new RowComparison(total(expected), total(actual), lost, doubled);
    }

    private static long total(Map<String, Long> rows) {
        return rows.values().stream().mapToLong(Long::longValue).sum();
    }
}

package io.loadgate.ledger.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.ledger.run.Manifest.Partition;
import io.loadgate.ledger.run.ManifestViolation.Code;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each of the thirteen manifest invariants, alone, and a manifest that breaks none. */
class ManifestValidatorTest {
    private static Partition range(String id, long lower, long upper, boolean inclusive, long rows) {
        return new Partition(id, BigInteger.valueOf(lower), BigInteger.valueOf(upper), inclusive, false, rows, null);
    }

    private static Partition nulls(long rows) {
        return new Partition("NULL", null, null, false, true, rows, null);
    }

    private static Manifest manifest(long count, long nullCount, Long min, Long max, List<Partition> partitions) {
        return new Manifest(BigInteger.ONE, null, count, nullCount, min == null ? null : BigInteger.valueOf(min),
                max == null ? null : BigInteger.valueOf(max), partitions.size(), Map.of(), "v1", partitions);
    }

    private static List<Code> codes(Manifest manifest, boolean allowEmpty) {
        List<Code> codes = new ArrayList<>();
        ManifestValidator.validate(manifest, allowEmpty).forEach(v -> codes.add(v.code()));
        return codes;
    }

    private static final List<Partition> GOOD = List.of(range("0000", 0, 50, false, 10), range("0001", 50, 100, true, 20),
            nulls(5));

    @Test
    void aGoodManifestBreaksNothing() {
        assertThat(codes(manifest(35, 5, 0L, 100L, GOOD), false)).isEmpty();
        assertThat(codes(manifest(0, 0, null, null, List.of(range("0000", 0, 0, true, 0))), true)).isEmpty();
    }

    @Test
    void eachInvariantAlone() {
        assertThat(codes(manifest(35, 5, 0L, 100L, List.of(GOOD.get(0), GOOD.get(1), nulls(5), GOOD.get(0))), false))
                .contains(Code.DUPLICATE_PARTITION_ID);
        Manifest planned = new Manifest(BigInteger.ONE, null, 35, 5, BigInteger.ZERO, BigInteger.valueOf(100), 4,
                Map.of(), "v1", GOOD);
        assertThat(codes(planned, false)).containsExactly(Code.PARTITION_COUNT_MISMATCH);
        assertThat(codes(manifest(36, 5, 0L, 100L, GOOD), false)).containsExactly(Code.EXPECTED_SUM_MISMATCH);
        assertThat(codes(manifest(0, 0, null, null, List.of(range("0000", 0, 0, true, 0))), false))
                .containsExactly(Code.EMPTY_SOURCE_BLOCKED);
        assertThat(codes(manifest(40, 10, 0L, 100L, List.of(GOOD.get(0), GOOD.get(1), nulls(5),
                new Partition("NULL", null, null, false, true, 5, null))), false))
                .contains(Code.MULTIPLE_NULL_PARTITIONS);
        assertThat(codes(manifest(35, 5, 0L, 100L, List.of(GOOD.get(0), GOOD.get(1),
                new Partition("NULL", BigInteger.ONE, null, false, true, 5, null))), false))
                .containsExactly(Code.INVALID_NULL_PARTITION);
        assertThat(codes(manifest(35, 5, 0L, 100L, List.of(GOOD.get(0), GOOD.get(1),
                new Partition("0002", null, null, false, true, 5, null))), false))
                .contains(Code.INVALID_NULL_PARTITION);
        assertThat(codes(manifest(35, 4, 0L, 100L, GOOD), false)).containsExactly(Code.NULL_COUNT_MISMATCH);
        assertThat(codes(manifest(30, 5, 0L, 100L, List.of(GOOD.get(0), GOOD.get(1))), false))
                .containsExactly(Code.NULL_ROWS_WITHOUT_NULL_PARTITION);
        assertThat(codes(manifest(35, 5, 0L, 100L, List.of(range("0000", 0, 50, false, 10),
                range("0001", 100, 50, true, 20), nulls(5))), false)).contains(Code.INVALID_BOUNDS);
        assertThat(codes(manifest(35, 5, 0L, 100L, List.of(range("0000", 0, 50, true, 10),
                range("0001", 50, 100, true, 20), nulls(5))), false)).containsExactly(Code.UPPER_INCLUSIVE_INVALID);
        assertThat(codes(manifest(35, 5, 0L, 100L, List.of(range("0000", 0, 40, false, 10),
                range("0001", 50, 100, true, 20), nulls(5))), false)).containsExactly(Code.RANGE_GAP_OR_OVERLAP);
        assertThat(codes(manifest(35, 5, 0L, 100L, List.of(range("0000", 0, 60, false, 10),
                range("0001", 50, 100, true, 20), nulls(5))), false)).containsExactly(Code.RANGE_GAP_OR_OVERLAP);
        assertThat(codes(manifest(35, 5, -1L, 100L, GOOD), false)).containsExactly(Code.MIN_SPLIT_MISMATCH);
        assertThat(codes(manifest(35, 5, 0L, 99L, GOOD), false)).containsExactly(Code.MAX_SPLIT_MISMATCH);
    }

    @Test
    void fileSourcesHaveNoRangesToCheck() {
        Partition file = new Partition("0000", null, null, false, false, 7, "/data/in/a.csv");
        assertThat(codes(manifest(7, 0, null, null, List.of(file)), false)).isEmpty();
    }
}

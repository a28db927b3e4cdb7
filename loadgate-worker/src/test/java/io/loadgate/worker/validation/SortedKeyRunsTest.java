package io.loadgate.worker.validation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Runs of 64 keys make every case spill many times: the counts must equal a plain set's. */
class SortedKeyRunsTest {
    private static final int RUN = 64;

    @Test
    void disjointRangesAsTheSplitKeyGivesThemCountWithoutReadingBack() {
        SortedKeyRuns keys = new SortedKeyRuns(RUN);
        // Descending order within each range, ranges in any order: still disjoint runs.
        for (long base : new long[] {5_000, 0, 10_000}) {
            for (long k = base + 999; k >= base; k--) {
                keys.add(k);
            }
        }
        assertThat(keys.count()).isEqualTo(3_000);
    }

    @Test
    void aDuplicateAcrossTwoSpilledRunsIsCountedOnce() {
        SortedKeyRuns keys = new SortedKeyRuns(RUN);
        for (long k = 0; k < 1_000; k++) {
            keys.add(k);
        }
        // One repeat far away in the stream, long after the run holding 500 was spilled.
        keys.add(500);
        assertThat(keys.count()).isEqualTo(1_000);
    }

    @Test
    void randomKeysWithRepeatsAndExtremesMatchAHashSet() {
        Random random = new Random(14);
        SortedKeyRuns keys = new SortedKeyRuns(RUN);
        Set<Long> expected = new HashSet<>();
        for (int i = 0; i < 20_000; i++) {
            long k = switch (random.nextInt(10)) {
                case 0 -> Long.MIN_VALUE + random.nextInt(3);
                case 1 -> Long.MAX_VALUE - random.nextInt(3);
                case 2 -> random.nextLong();
                default -> random.nextInt(5_000) - 2_500;
            };
            keys.add(k);
            expected.add(k);
        }
        assertThat(keys.count()).isEqualTo(expected.size());
    }

    @Test
    void unitedSetsCountTheirCommonKeysOnceAndMayGrowAfterACount() {
        SortedKeyRuns a = new SortedKeyRuns(RUN);
        SortedKeyRuns b = new SortedKeyRuns(RUN);
        for (long k = 0; k < 700; k++) {
            a.add(k);
            b.add(k + 300);
        }
        assertThat(a.count()).isEqualTo(700);
        a.addAll(b);
        assertThat(a.count()).isEqualTo(1_000);
        a.add(-1);
        a.add(999);
        assertThat(a.count()).isEqualTo(1_001);
    }

    @Test
    void runsInterleavedByStretchesWithRepeatsAtTheirSeamsMatchAHashSet() {
        // As staging validation unites per-chunk sets: each set's keys one range, the small sets' tails gathered
        // in one buffer that spans the ranges of spilled runs; repeats sit where the stretches meet.
        Random random = new Random(15);
        SortedKeyRuns all = new SortedKeyRuns(RUN);
        Set<Long> expected = new HashSet<>();
        for (int part = 0; part < 40; part++) {
            SortedKeyRuns keys = new SortedKeyRuns(RUN);
            long base = part * 100L;
            int length = part % 3 == 2 ? 20 + random.nextInt(20) : 70 + random.nextInt(60);
            for (long k = base - 1; k < base + length; k++) {
                keys.add(k);
                expected.add(k);
            }
            keys.settle();
            all.addAll(keys);
        }
        assertThat(all.count()).isEqualTo(expected.size());
    }

    @Test
    void manyRepeatsOfFewKeysStayInOneBuffer() {
        SortedKeyRuns keys = new SortedKeyRuns(RUN);
        for (int i = 0; i < 10_000; i++) {
            keys.add(i % 7);
        }
        assertThat(keys.count()).isEqualTo(7);
    }
}

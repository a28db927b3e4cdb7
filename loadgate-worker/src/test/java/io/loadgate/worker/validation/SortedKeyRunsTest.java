package io.loadgate.worker.validation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Runs of 64 keys (a buffer of at most 64) make every case spill many times: the counts must equal a plain set's. */
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
    void consecutiveKeysAreKeptAsIntervalsAndNothingIsWritten() {
        // As staging validation measures a surrogate key: a set per chunk file, its keys one range (ascending or
        // descending), settled and united; ranges at both ends of a long.
        int run = 16_384;
        SortedKeyRuns all = new SortedKeyRuns(run);
        for (long base : new long[] {1, 100_001, Long.MAX_VALUE - 9_999, Long.MIN_VALUE, -10_000}) {
            SortedKeyRuns chunk = new SortedKeyRuns(run);
            for (int i = 0; i < 10_000; i++) {
                chunk.add(base < 0 && base > Long.MIN_VALUE ? base + 9_999 - i : base + i);
            }
            chunk.settle();
            assertThat(chunk.spilled()).as("a run of consecutive keys is its bounds").isFalse();
            all.addAll(chunk);
        }
        assertThat(all.count()).isEqualTo(50_000);
        assertThat(all.spilled()).isFalse();
        // Keys again, long after their intervals: each counted once, merged against its interval.
        all.add(100_500);
        all.add(Long.MAX_VALUE);
        all.add(Long.MIN_VALUE);
        all.add(0);
        assertThat(all.count()).isEqualTo(50_001);
    }

    @Test
    void aChunkOfSeveralStretchesIsKeptAsIntervalsAndOneOfManyIsWritten() {
        // As a file load's chunks: each the lines of every other file of 24, a range of ids each; the two
        // partitions' chunks interleave by range and share no key.
        int run = 1 << 14;
        SortedKeyRuns all = new SortedKeyRuns(run);
        for (int partition = 0; partition < 2; partition++) {
            SortedKeyRuns chunk = new SortedKeyRuns(run);
            for (int file = partition; file < 24; file += 2) {
                for (long id = file * 2_000L; id < (file + 1) * 2_000L; id++) {
                    chunk.add(id);
                }
            }
            chunk.settle();
            assertThat(chunk.spilled()).as("12 stretches are 12 intervals").isFalse();
            all.addAll(chunk);
        }
        assertThat(all.count()).isEqualTo(48_000);
        assertThat(all.spilled()).isFalse();

        // More stretches than are kept as intervals: the first MAX_INTERVALS as they end, then a buffer of twice as
        // many, which are too many for intervals and so written; still counted exactly.
        SortedKeyRuns scattered = new SortedKeyRuns(2 * SortedKeyRuns.MAX_INTERVALS * SortedKeyRuns.MIN_INTERVAL);
        int stretches = 3 * SortedKeyRuns.MAX_INTERVALS + 6;
        for (int stretch = 0; stretch < stretches; stretch++) {
            for (long id = stretch * 1_000L; id < stretch * 1_000L + SortedKeyRuns.MIN_INTERVAL; id++) {
                scattered.add(id);
            }
        }
        scattered.settle();
        assertThat(scattered.spilled()).isTrue();
        assertThat(scattered.count()).isEqualTo((long) stretches * SortedKeyRuns.MIN_INTERVAL);

        // Stretches too short on average to be worth an interval each.
        SortedKeyRuns sparse = new SortedKeyRuns(RUN);
        for (long id = 0; id < 3 * RUN; id += 2) {
            sparse.add(id);
            sparse.add(id + 1_000_000);
        }
        sparse.settle();
        assertThat(sparse.spilled()).isTrue();
        assertThat(sparse.count()).isEqualTo(3 * RUN);
    }

    @Test
    void intervalsOverlappingEachOtherAndSpilledRunsMatchAHashSet() {
        Random random = new Random(16);
        SortedKeyRuns keys = new SortedKeyRuns(RUN);
        Set<Long> expected = new HashSet<>();
        for (int stretch = 0; stretch < 300; stretch++) {
            long start = random.nextInt(20_000) - 10_000 + (stretch % 50 == 0 ? Long.MAX_VALUE - 20_000 : 0);
            int length = 1 + random.nextInt(3 * RUN);
            // Consecutive stretches (intervals once a buffer of them fills), or every other key (spilled runs).
            int step = random.nextInt(4) == 0 ? 2 : 1;
            for (int i = 0; i < length; i++) {
                long k = start + (long) i * step;
                keys.add(k);
                expected.add(k);
            }
        }
        assertThat(keys.count()).isEqualTo(expected.size());
        assertThat(keys.spilled()).isTrue();
    }

    @Test
    void aChunkReadFromTheMiddleOfItsRangeAndWrappedCountsAsItsRange() {
        // A table scan that joined another mid-table: the partition's keys from the middle to its end, then from its
        // start, all below the last; now and then two keys trade places, as rows do in a heap table's pages.
        SortedKeyRuns chunk = new SortedKeyRuns(SortedKeyRuns.DEFAULT_RUN);
        Set<Long> expected = new HashSet<>();
        for (long k = 600_000; k < 1_000_000; k++) {
            long key = k % 250 == 0 ? k - 100 : k % 250 == 150 ? k + 100 : k;
            chunk.add(key);
            expected.add(key);
        }
        for (long k = 500_000; k < 600_000; k++) {
            chunk.add(k);
            expected.add(k);
        }
        chunk.settle();
        assertThat(chunk.spilled()).as("a few stretches, kept as intervals").isFalse();
        assertThat(chunk.count()).isEqualTo(expected.size());
        // Repeats below everything added so far, then the extremes of a long.
        for (long k = 599_990; k < 600_010; k++) {
            chunk.add(k);
            expected.add(k);
        }
        for (long k : new long[] {Long.MAX_VALUE - 1, Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1}) {
            chunk.add(k);
            expected.add(k);
        }
        assertThat(chunk.count()).isEqualTo(expected.size());
    }

    @Test
    void chunksWithKeysFarOutOfPlaceAreIntervalsAndAFewKeysAndCountExactly() {
        // Each chunk a range of keys in nearly key order, where every 997th row holds a key from far away (another
        // chunk's range, or beyond every chunk): its stretches are intervals, the keys out of place stay in memory,
        // and the united chunks count their common keys once without writing anything.
        SortedKeyRuns all = new SortedKeyRuns(SortedKeyRuns.DEFAULT_RUN);
        Set<Long> expected = new HashSet<>();
        for (int chunk = 0; chunk < 6; chunk++) {
            SortedKeyRuns keys = new SortedKeyRuns(SortedKeyRuns.DEFAULT_RUN);
            for (long k = chunk * 200_000L; k < (chunk + 1) * 200_000L; k++) {
                long key = k % 997 == 0 ? (k * 7_919) % 1_500_000 : k;
                keys.add(key);
                expected.add(key);
            }
            keys.settle();
            assertThat(keys.spilled()).isFalse();
            // 201 keys out of place are what a settled set waiting to be united holds, not a chunk's buffer.
            assertThat(keys.bufferLength()).as("a settled set's buffer").isLessThanOrEqualTo(1 << 12);
            all.addAll(keys);
            // The set that unites them keeps growing as it goes (its buffer shrunk to fit, then doubled).
            all.settle();
        }
        assertThat(all.count()).isEqualTo(expected.size());
        assertThat(all.spilled()).isFalse();
    }

    @Test
    void stretchesLongAndShortOverlappingAndInterleavedMatchAHashSet() {
        Random random = new Random(17);
        SortedKeyRuns keys = new SortedKeyRuns(RUN);
        Set<Long> expected = new HashSet<>();
        for (int stretch = 0; stretch < 120; stretch++) {
            long start = random.nextInt(200_000);
            // Stretches longer and shorter than a buffer, ascending keys with gaps, repeats below the last key.
            int length = 4_094 + random.nextInt(5) + (stretch % 7 == 0 ? 9_000 : 0);
            int step = stretch % 5 == 0 ? 3 : 1;
            for (int i = 0; i < length; i++) {
                long k = start + (long) i * step;
                keys.add(k);
                expected.add(k);
                if (random.nextInt(5_000) == 0) {
                    long repeat = start + random.nextInt(i + 1);
                    keys.add(repeat);
                    expected.add(repeat);
                }
            }
            if (stretch % 30 == 29) {
                assertThat(keys.count()).isEqualTo(expected.size());
            }
        }
        keys.settle();
        assertThat(keys.count()).isEqualTo(expected.size());
    }

    @Test
    void aDuplicateAcrossTwoSpilledRunsIsCountedOnce() {
        SortedKeyRuns keys = new SortedKeyRuns(RUN);
        for (long k = 0; k < 2_000; k += 2) {
            keys.add(k);
        }
        // One repeat far away in the stream, long after the run holding 500 was spilled.
        keys.add(500);
        assertThat(keys.spilled()).isTrue();
        assertThat(keys.count()).isEqualTo(1_000);
    }

    @Test
    void aChunkWhoseKeysCameEarlyOrInTwoStreamsEndsAsOneIntervalWithASmallBuffer() {
        // The scale bench's chunks as a heap table returns them: rows moved by updates (every 715th key of the first
        // hundred thousand) come first, then the range in order without them, with a stretch where two streams of
        // it alternate by blocks of 300 keys (rows that moved together).
        SortedKeyRuns chunk = new SortedKeyRuns(SortedKeyRuns.DEFAULT_RUN);
        int firstBuffer = chunk.bufferLength();
        Set<Long> early = new HashSet<>();
        for (long k = 500; k < 100_000; k += 715) {
            chunk.add(k);
            early.add(k);
        }
        int largestBuffer = 0;
        for (long k = 0; k < 1_000_000; k++) {
            long key = k >= 400_000 && k < 460_000 ? interleaved(k - 400_000) + 400_000 : k;
            if (!early.contains(key)) {
                chunk.add(key);
            }
            largestBuffer = Math.max(largestBuffer, chunk.bufferLength());
        }
        chunk.settle();
        assertThat(chunk.count()).isEqualTo(1_000_000);
        assertThat(chunk.spilled()).isFalse();
        assertThat(chunk.intervals()).as("the early keys fill the gaps they left").isEqualTo(1);
        // Both streams climbed, the early keys buffered: the buffer never grew.
        assertThat(largestBuffer).isEqualTo(firstBuffer);
    }

    @Test
    void blocksReadBackwardsAndStreamsInterleavedEndAsIntervalsWithoutGrowingTheBuffer() {
        // Blocks of 1,000 ascending keys in descending order (pages read backwards), then CLIMBS - 1 streams
        // interleaved key by key, then two repeats: one of a block's keys, one of a stream's.
        SortedKeyRuns keys = new SortedKeyRuns(SortedKeyRuns.DEFAULT_RUN);
        int firstBuffer = keys.bufferLength();
        for (long block = 499; block >= 0; block--) {
            for (long k = block * 1_000; k < (block + 1) * 1_000; k++) {
                keys.add(k);
            }
        }
        int streams = SortedKeyRuns.CLIMBS - 1;
        for (long k = 0; k < 100_000; k++) {
            for (int stream = 0; stream < streams; stream++) {
                keys.add(1_000_000L * (stream + 1) + k);
            }
        }
        keys.add(42);
        keys.add(1_000_000L + 99_999);
        assertThat(keys.bufferLength()).isEqualTo(firstBuffer);
        keys.settle();
        assertThat(keys.count()).isEqualTo(500_000 + streams * 100_000L);
        assertThat(keys.spilled()).isFalse();
        assertThat(keys.intervals()).as("the blocks joined when the buffer was compacted")
                .isLessThanOrEqualTo(1 + streams);
    }

    /** The first 60,000 keys from 0 in two streams, [0, 30,000) and [30,000, 60,000), alternating blocks of 300. */
    private static long interleaved(long i) {
        long block = i / 300;
        long stream = block % 2;
        return stream * 30_000 + (block / 2) * 300 + i % 300;
    }

    @Test
    void keysInNoOrderGoStraightToTheBufferAndAStretchAfterThemIsClimbedAgain() {
        Random random = new Random(21);
        SortedKeyRuns keys = new SortedKeyRuns(SortedKeyRuns.DEFAULT_RUN);
        Set<Long> expected = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            long k = random.nextLong();
            keys.add(k);
            expected.add(k);
        }
        int buffered = keys.bufferLength();
        for (long k = 0; k < 200_000; k++) {
            keys.add(k);
            expected.add(k);
        }
        assertThat(keys.bufferLength()).as("the stretch climbed, not buffered").isEqualTo(buffered);
        keys.settle();
        assertThat(keys.count()).isEqualTo(expected.size());
    }

    @Test
    void aSurrogateKeysChunkNeverEntersTheBuffer() {
        // A chunk of a million consecutive keys, a repeat now and then, and one key below them all: the buffer
        // stays at its first size (it grew to a million keys when the stretch was found only once it was full).
        SortedKeyRuns chunk = new SortedKeyRuns(SortedKeyRuns.DEFAULT_RUN);
        int firstBuffer = chunk.bufferLength();
        for (long k = 1; k <= 1_000_000; k++) {
            chunk.add(k);
            if (k % 1_000 == 0) {
                chunk.add(k - 500);
            }
        }
        chunk.add(-7);
        assertThat(chunk.bufferLength()).isEqualTo(firstBuffer);
        chunk.settle();
        assertThat(chunk.count()).isEqualTo(1_000_001);
        assertThat(chunk.spilled()).isFalse();
        // United with another chunk's set that is still climbing its stretch, overlapping this one's end.
        SortedKeyRuns next = new SortedKeyRuns(SortedKeyRuns.DEFAULT_RUN);
        for (long k = 999_991; k <= 1_500_000; k++) {
            next.add(k);
        }
        chunk.addAll(next);
        assertThat(chunk.count()).isEqualTo(1_500_001);
        assertThat(chunk.bufferLength()).isEqualTo(firstBuffer);
    }

    @Test
    void denseKeysInInterleavedStreamsWithRepeatsMatchAHashSetAndStayIntervals() {
        // As a parallel scan hands a surrogate key's rows over: a few ascending streams interleaved, some keys twice.
        for (long seed = 0; seed < 20; seed++) {
            Random random = new Random(seed);
            int run = 1 << 12;
            SortedKeyRuns keys = new SortedKeyRuns(run);
            Set<Long> expected = new HashSet<>();
            long base = seed % 2 == 0 ? random.nextInt(1_000_000) - 500_000 : Long.MAX_VALUE - 50_000;
            int streams = 1 + random.nextInt(4);
            long[] next = new long[streams];
            for (int s = 0; s < streams; s++) {
                next[s] = base + s * 10_000L;
            }
            for (int i = 0; i < 30_000; i++) {
                int s = random.nextInt(streams);
                long k = next[s]++;
                keys.add(k);
                expected.add(k);
                if (random.nextInt(50) == 0) {
                    keys.add(k);
                }
            }
            // Whole 64-bit words of keys and none: bits at both ends of a word.
            keys.add(base - 1);
            expected.add(base - 1);
            assertThat(keys.count()).as("seed %d", seed).isEqualTo(expected.size());
            assertThat(keys.spilled()).as("seed %d: consecutive keys are intervals however they arrived", seed)
                    .isFalse();
        }
    }

    @Test
    void keysTooSparseForTheirBitsAreSortedWithTheSameCount() {
        Random random = new Random(8);
        SortedKeyRuns keys = new SortedKeyRuns(RUN * 16);
        Set<Long> expected = new HashSet<>();
        for (int i = 0; i < 5_000; i++) {
            // Ascending with a stride above DENSE, and a few far below: the span is too wide for bits.
            long k = random.nextInt(10) == 0 ? -random.nextInt(1_000_000) : (long) i * (SortedKeyRuns.DENSE + 1);
            keys.add(k);
            expected.add(k);
        }
        assertThat(keys.count()).isEqualTo(expected.size());
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

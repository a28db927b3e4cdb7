package io.loadgate.worker.validation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The distinct count of a stream of {@code long}s in memory that does not grow with the stream: keys gather in a
 * buffer of at most {@link #DEFAULT_RUN} values; a full buffer is sorted, de-duplicated and written to a temporary
 * file as one run (delta-encoded: a dense key costs about one byte on disk). The count is exact:
 * <ul>
 *   <li>runs whose value ranges overlap no other run's hold no key in common with any other run, so their distinct
 *       counts simply add. When the split column is the key, each chunk file holds one range of it and the ranges
 *       are disjoint, so nothing is read back; this is seen in the keys themselves, not assumed from the plan;</li>
 *   <li>runs whose ranges overlap are merged, streaming, one value of each at a time, and their common keys are
 *       counted once.</li>
 * </ul>
 * A stretch of consecutive keys (a surrogate key's chunk: its count is its range's width) is that interval, so it is
 * kept as its bounds and never written: a staging validation of 5,000,000 sequential keys spent 17% of its CPU
 * writing runs a byte per key (bench/RESULTS.md, 2026-12-02), and an overlap still merges it value by value. The
 * stretches the keys are climbing ({@link #CLIMBS} at once) are followed as they arrive (their bounds, and a repeat
 * within one dropped), so a chunk of a surrogate key does not go through the buffer: filling it, for a split key, only
 * to find a few intervals there grew the buffer from 4 Ki to 1 Mi keys for every chunk (16 MB allocated, 6% of a
 * worker's allocation, 2026-12-06). A key that extends no climb starts one, in place of the one least recently
 * extended (a stream that has ended, or a key out of place); a climb given up is an interval once it has
 * {@link #MIN_INTERVAL} keys, else keys in the buffer. When the buffer is compacted, the intervals and its keys are cut
 * again into maximal stretches, so the keys that came early fill the gaps they left. A buffer of a few stretches
 * (a file load's chunk: the lines of several files, each a range of ids) is kept as several intervals; two
 * partitions' chunks then interleave by range without sharing a key, and nothing is merged.
 * Keys that arrive in ascending order are not sorted again: the buffer keeps those at its front and the few that
 * arrive below the last (a heap table's rows slightly out of key order) at its back, and compacting sorts only the
 * latter and merges the two. Sorting a chunk's million nearly ordered keys was two thirds of a staging validation's
 * CPU (JFR of the scale bench, 2026-12-03).
 * Not thread-safe; sets filled apart are united with {@link #addAll}.
 */
final class SortedKeyRuns {
    /** 2^20 keys: an 8 MiB buffer per set, one spilled run per default chunk of a million rows. */
    static final int DEFAULT_RUN = 1 << 20;
    /** The fewest consecutive keys kept as an interval; shorter stretches stay keys. */
    static final int MIN_INTERVAL = 64;
    /**
     * The most intervals one buffer is kept as, and the most stretches followed as they arrive between two
     * {@link #runOut}s: beyond that their keys are written, so the intervals in memory stay a bounded few per chunk and
     * per full buffer (and each stands for at least {@link #MIN_INTERVAL} keys).
     */
    static final int MAX_INTERVALS = 1024;
    private static final int FIRST_BUFFER = 1 << 12;
    /**
     * The stretches climbed at once: as many streams of ascending keys as a chunk interleaves (a parallel scan's
     * workers, rows moved together by an update), and one for the keys out of place among them, which give up their
     * climbs to one another.
     */
    static final int CLIMBS = 4;
    /**
     * Keys in a row that extend no climb before climbing stops, until two keys in a row are consecutive: random keys
     * climbing cost a third more time to count than keys buffered straight away (2026-12-06).
     */
    static final int MISSES = 256;
    /**
     * Keys spanning fewer than this many values per key are compacted by their bits ({@link #compactDense}): at most
     * a bit per value spanned, an eighth of the keys' own bytes.
     */
    static final int DENSE = 8;

    private final int runLength;
    private final List<Run> runs = new ArrayList<>();
    // buffer[0, size) holds keys in ascending order (repeats allowed); the last `below` slots of the buffer hold the
    // keys that arrived below the key then last at the front, in any order.
    private long[] buffer;
    private int size;
    private int below;
    // Whether buffer[0, size) is sorted and free of repeats and nothing is below (so after compact(), until an add).
    private boolean compacted = true;
    // The stretches [bottoms[i], tops[i]] the keys are climbing, i < climbs, the one a key last extended first.
    private final long[] bottoms = new long[CLIMBS];
    private final long[] tops = new long[CLIMBS];
    private int climbs;
    // Keys that started a climb since a key last extended one; past MISSES, keys go straight to the buffer (`direct`)
    // until two in a row are consecutive.
    private int misses;
    private boolean direct;
    private long previous;
    // Stretches made intervals as they ended since the last runOut().
    private int stretchIntervals;
    private SpillFile spill;

    SortedKeyRuns() {
        this(DEFAULT_RUN);
    }

    /** {@code runLength} keys at most in memory (a test makes it small to spill early). */
    SortedKeyRuns(int runLength) {
        if (runLength < 2) {
            throw new IllegalArgumentException("runLength must be at least 2, got " + runLength);
        }
        this.runLength = runLength;
        this.buffer = new long[Math.min(FIRST_BUFFER, runLength)];
    }

    void add(long value) {
        if (direct) {
            if (value != previous + 1 || previous == Long.MAX_VALUE) {
                previous = value;
                keep(value);
                return;
            }
            direct = false;
            misses = 0;
        }
        for (int i = 0; i < climbs; i++) {
            // tops[i] + 1 overflows at the end of a long, where no key follows.
            if (value == tops[i] + 1 && tops[i] != Long.MAX_VALUE) {
                tops[i] = value;
                misses = 0;
                if (i > 0) {
                    toFront(i);
                }
                return;
            }
            if (value >= bottoms[i] && value <= tops[i]) {
                return;
            }
        }
        if (++misses > MISSES) {
            // Keys in no order (a hashed or random key): climbs that end a key long would cost more than they save.
            direct = true;
            previous = value;
            keep(value);
            return;
        }
        if (climbs == CLIMBS) {
            endLeastRecentClimb();
        }
        System.arraycopy(bottoms, 0, bottoms, 1, climbs);
        System.arraycopy(tops, 0, tops, 1, climbs);
        bottoms[0] = value;
        tops[0] = value;
        climbs++;
    }

    private void toFront(int i) {
        long bottom = bottoms[i];
        long top = tops[i];
        System.arraycopy(bottoms, 0, bottoms, 1, i);
        System.arraycopy(tops, 0, tops, 1, i);
        bottoms[0] = bottom;
        tops[0] = top;
    }

    /** Ends the last climb: an interval when it is long enough and one is allowed, else keys in the buffer. */
    private void endLeastRecentClimb() {
        climbs--;
        long bottom = bottoms[climbs];
        long top = tops[climbs];
        if (top - bottom >= MIN_INTERVAL - 1 && stretchIntervals < MAX_INTERVALS) {
            stretchIntervals++;
            runs.add(interval(bottom, top));
            return;
        }
        for (long key = bottom; ; key++) {
            keep(key);
            if (key == top) {
                return;
            }
        }
    }

    private void keep(long value) {
        if (size + below == buffer.length) {
            if (buffer.length < runLength) {
                long[] larger = new long[Math.min(runLength, buffer.length * 2)];
                System.arraycopy(buffer, 0, larger, 0, size);
                System.arraycopy(buffer, buffer.length - below, larger, larger.length - below, below);
                buffer = larger;
            } else {
                runOut();
            }
        }
        if (size == 0 || value >= buffer[size - 1]) {
            buffer[size++] = value;
        } else {
            buffer[buffer.length - ++below] = value;
        }
        compacted = false;
    }

    /**
     * Sorts the buffer now and spills it when it is mostly full, so that the thread that filled it does that work
     * rather than the one that later {@link #addAll unites} it with others.
     */
    void settle() {
        runOut();
        // A settled set may wait a while to be united (a part measured early, behind a slow one, and every part
        // after it): its buffer shrinks to the keys it still holds (none, or a chunk's few keys out of place)
        // rather than keeping a chunk's 8 MiB each, which would make memory grow with the number of files.
        if (buffer.length > FIRST_BUFFER && size < buffer.length / 4) {
            buffer = Arrays.copyOf(buffer, Math.max(FIRST_BUFFER, size));
        }
    }

    /** The keys' array's length: what the set keeps in memory besides its intervals and runs' bounds. */
    int bufferLength() {
        return buffer.length;
    }

    /** Unites {@code other}'s keys with these; {@code other} is not to be used afterwards. */
    void addAll(SortedKeyRuns other) {
        other.compact();
        runs.addAll(other.runs);
        for (int i = 0; i < other.size; i++) {
            add(other.buffer[i]);
        }
        // Intervals however short: a few per united set.
        for (int i = 0; i < other.climbs; i++) {
            runs.add(interval(other.bottoms[i], other.tops[i]));
        }
    }

    private static Run interval(long min, long max) {
        return new Run(min, max, max - min + 1, null, 0, true);
    }

    /** The number of distinct values added so far. Adding may go on afterwards. */
    long count() {
        compact();
        List<Run> all = new ArrayList<>(runs);
        if (size > 0) {
            all.add(new Run(buffer[0], buffer[size - 1], size, null, 0, false));
        }
        for (int i = 0; i < climbs; i++) {
            all.add(interval(bottoms[i], tops[i]));
        }
        return RunGroups.distinct(all, Run::min, Run::max, Comparator.<Long>naturalOrder(), Run::count, this::merged);
    }

    private long merged(List<Run> group) {
        List<RunReader> readers = new ArrayList<>(group.size());
        try {
            PriorityQueue<RunReader> heads = new PriorityQueue<>(Comparator.comparingLong(RunReader::head));
            for (Run run : group) {
                RunReader reader = run.interval() ? new IntervalReader(run.min(), run.max())
                        : run.spill() == null ? new BufferReader(buffer, size) : new SpilledReader(run);
                readers.add(reader);
                if (reader.advance()) {
                    heads.add(reader);
                }
            }
            // Every key of the group that is at most `last` has been counted, once; nothing above it has.
            long distinct = 0;
            boolean any = false;
            long last = 0;
            while (!heads.isEmpty()) {
                RunReader reader = heads.poll();
                if (reader instanceof IntervalReader interval) {
                    // It holds every key from its head (no other run holds a smaller one) to its end, so those above
                    // `last` are counted at once, and any other run's keys up to its end are repeats: a group of many
                    // intervals and a few keys out of place among them is merged in the time of the few.
                    if (!any || (last < interval.last() && last != Long.MAX_VALUE)) {
                        long from = any ? Math.max(interval.head(), last + 1) : interval.head();
                        distinct += interval.last() - from + 1;
                        last = interval.last();
                        any = true;
                    }
                    continue;
                }
                // No other run holds a key below its head, so this run's keys up to the least of those heads come
                // next in order, without the queue: runs that interleave by long stretches (a buffer that united
                // the tails of several chunks' ranges, beside their spilled runs) are merged a stretch at a time.
                long bound = heads.isEmpty() ? Long.MAX_VALUE : heads.peek().head();
                boolean more;
                do {
                    long value = reader.head();
                    if (!any || value > last) {
                        distinct++;
                        last = value;
                        any = true;
                    }
                    more = reader.advance();
                } while (more && reader.head() <= bound);
                if (more) {
                    heads.add(reader);
                }
            }
            return distinct;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read back spilled keys: " + e.getMessage(), e);
        } finally {
            readers.forEach(RunReader::close);
        }
    }

    private void compact() {
        if (compacted) {
            return;
        }
        if (below > 0 && compactDense()) {
            return;
        }
        if (below > 0) {
            // The keys below, sorted apart, merged with the ascending ones from the back; the merge writes at or
            // above the next ascending key it reads, so only the keys below need a copy.
            long[] sortedBelow = Arrays.copyOfRange(buffer, buffer.length - below, buffer.length);
            Arrays.sort(sortedBelow);
            int write = size + below - 1;
            int front = size - 1;
            for (int back = below - 1; back >= 0; ) {
                buffer[write--] = front >= 0 && buffer[front] > sortedBelow[back] ? buffer[front--]
                        : sortedBelow[back--];
            }
            size += below;
            below = 0;
        }
        int unique = size == 0 ? 0 : 1;
        for (int i = 1; i < size; i++) {
            if (buffer[i] != buffer[unique - 1]) {
                buffer[unique++] = buffer[i];
            }
        }
        size = unique;
        compacted = true;
    }

    /**
     * Compacts a buffer whose keys lie within {@link #DENSE} times their number of each other, as a surrogate key's
     * chunk does however its rows arrived, by marking each key's bit and reading the bits back in order: no sort. A
     * key table's rows come out of a parallel scan, or a table updated in place, in several interleaved ascending
     * streams, and sorting the keys that arrived below the last took a sixth of a chunk's measuring (JFR, 2026-12-05).
     * Returns false, having changed nothing, when the keys are sparser (the bits would outweigh the keys).
     */
    private boolean compactDense() {
        // The ascending keys' ends, then every key below.
        long min = size > 0 ? buffer[0] : Long.MAX_VALUE;
        long max = size > 0 ? buffer[size - 1] : Long.MIN_VALUE;
        for (int i = buffer.length - below; i < buffer.length; i++) {
            min = Math.min(min, buffer[i]);
            max = Math.max(max, buffer[i]);
        }
        long span = max - min;
        int keys = size + below;
        // A span that overflows is negative: keys at both ends of a long.
        if (span < 0 || span >= (long) keys * DENSE) {
            return false;
        }
        long[] bits = new long[(int) (span >>> 6) + 1];
        for (int i = 0; i < size; i++) {
            long offset = buffer[i] - min;
            bits[(int) (offset >>> 6)] |= 1L << offset;
        }
        for (int i = buffer.length - below; i < buffer.length; i++) {
            long offset = buffer[i] - min;
            bits[(int) (offset >>> 6)] |= 1L << offset;
        }
        int written = 0;
        for (int word = 0; word < bits.length; word++) {
            for (long w = bits[word]; w != 0; w &= w - 1) {
                buffer[written++] = min + ((long) word << 6) + Long.numberOfTrailingZeros(w);
            }
        }
        size = written;
        below = 0;
        compacted = true;
        return true;
    }

    /**
     * Sorts the buffer and, unless it is mostly repeats (then it keeps filling), empties it into runs: intervals
     * where its keys allow, else one run written to the spill file.
     */
    private void runOut() {
        stretchIntervals = 0;
        compact();
        takeIntervals();
        if (size > runLength / 2) {
            spillBuffer();
        }
    }

    /**
     * Re-cuts the intervals held and the compacted buffer's keys into their maximal stretches of consecutive keys: a
     * stretch that holds an interval becomes one interval (the keys of the buffer in it are repeats, or the strays that
     * filled its gaps), a stretch of the buffer's keys alone becomes an interval when it has at least
     * {@link #MIN_INTERVAL} keys, unless there are more than {@link #MAX_INTERVALS} such, and every other key stays in
     * order in the buffer. A chunk read in nearly key order is a few long stretches and some keys out of place (a heap
     * table's rows moved by updates, or loaded concurrently): the stretches climbed as the keys arrived broke at every
     * key that had come early, those keys fill the breaks here, and the chunk ends as a few intervals and the keys
     * still out of place, with nothing written. The same keys either way, so the same count.
     */
    private void takeIntervals() {
        int stretches = countStretches();
        boolean ownIntervals = stretches <= MAX_INTERVALS;
        List<Run> intervals = new ArrayList<>();
        List<Run> others = new ArrayList<>();
        for (Run run : runs) {
            (run.interval() ? intervals : others).add(run);
        }
        if (intervals.isEmpty() && (stretches == 0 || !ownIntervals)) {
            return;
        }
        intervals.sort(Comparator.comparingLong(Run::min));
        runs.clear();
        runs.addAll(others);
        int next = 0;
        int key = 0;
        int kept = 0;
        while (next < intervals.size() || key < size) {
            // A stretch starts at the lower of the next interval and the next buffered key.
            boolean holdsInterval = key == size
                    || (next < intervals.size() && intervals.get(next).min() <= buffer[key]);
            int firstKey = key;
            long low;
            long high;
            if (holdsInterval) {
                low = intervals.get(next).min();
                high = intervals.get(next++).max();
            } else {
                low = buffer[key];
                high = buffer[key++];
            }
            while (true) {
                if (next < intervals.size() && reaches(intervals.get(next).min(), high)) {
                    high = Math.max(high, intervals.get(next++).max());
                    holdsInterval = true;
                } else if (key < size && reaches(buffer[key], high)) {
                    high = Math.max(high, buffer[key++]);
                } else {
                    break;
                }
            }
            if (holdsInterval || (ownIntervals && key - firstKey >= MIN_INTERVAL)) {
                runs.add(interval(low, high));
            } else {
                System.arraycopy(buffer, firstKey, buffer, kept, key - firstKey);
                kept += key - firstKey;
            }
        }
        size = kept;
    }

    /** Whether {@code value} is at most one above {@code high}: it extends, or lies in, a stretch ending there. */
    private static boolean reaches(long value, long high) {
        return high == Long.MAX_VALUE || value <= high + 1;
    }

    /** The compacted buffer's stretches of at least {@link #MIN_INTERVAL} consecutive keys. */
    private int countStretches() {
        int stretches = 0;
        int from = 0;
        for (int i = 1; i <= size; i++) {
            // Sorted and distinct: a gap ends a stretch.
            if (i == size || buffer[i] != buffer[i - 1] + 1) {
                if (i - from >= MIN_INTERVAL) {
                    stretches++;
                }
                from = i;
            }
        }
        return stretches;
    }

    private void spillBuffer() {
        try {
            if (spill == null) {
                spill = new SpillFile();
            }
            long offset = spill.length();
            spill.writeLong(buffer[0]);
            for (int i = 1; i < size; i++) {
                spill.writeVarLong(buffer[i] - buffer[i - 1]);
            }
            spill.flush();
            runs.add(new Run(buffer[0], buffer[size - 1], size, spill, offset, false));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot spill keys to a temporary file: " + e.getMessage(), e);
        }
        size = 0;
        compacted = true;
    }

    /**
     * Sorted distinct values from {@code min} to {@code max}: every one of them when {@code interval}, else those
     * written to {@code spill} at {@code offset}, or those of the in-memory buffer when {@code spill} is null.
     */
    private record Run(long min, long max, long count, SpillFile spill, long offset, boolean interval) {
    }

    /** The intervals held (besides the stretches being climbed): each a run kept as its bounds. */
    int intervals() {
        return (int) runs.stream().filter(Run::interval).count();
    }

    /** Whether a run went to a temporary file. */
    boolean spilled() {
        return spill != null;
    }

    private interface RunReader {
        /** Moves to the next value; false at the end. */
        boolean advance() throws IOException;

        long head();

        void close();
    }

    private static final class BufferReader implements RunReader {
        private final long[] values;
        private final int size;
        private int next;
        private long head;

        BufferReader(long[] values, int size) {
            this.values = values;
            this.size = size;
        }

        @Override
        public boolean advance() {
            if (next == size) {
                return false;
            }
            head = values[next++];
            return true;
        }

        @Override
        public long head() {
            return head;
        }

        @Override
        public void close() {
        }
    }

    /** An interval's keys: its head is its first key; the merge counts the rest from its last, at once. */
    private static final class IntervalReader implements RunReader {
        private final long first;
        private final long last;
        private boolean started;

        IntervalReader(long first, long last) {
            this.first = first;
            this.last = last;
        }

        @Override
        public boolean advance() {
            boolean wasStarted = started;
            started = true;
            return !wasStarted;
        }

        @Override
        public long head() {
            return first;
        }

        long last() {
            return last;
        }

        @Override
        public void close() {
        }
    }

    private static final class SpilledReader implements RunReader {
        private final SpillFile.Input in;
        private long remaining;
        private long head;
        private boolean first = true;

        SpilledReader(Run run) throws IOException {
            this.in = run.spill().open(run.offset());
            this.remaining = run.count();
        }

        @Override
        public boolean advance() throws IOException {
            if (remaining == 0) {
                return false;
            }
            // The first value whole, then each as its (unsigned) distance from the one before.
            head = first ? in.readLong() : head + in.readVarLong();
            first = false;
            remaining--;
            return true;
        }

        @Override
        public long head() {
            return head;
        }

        @Override
        public void close() {
            in.close();
        }
    }
}

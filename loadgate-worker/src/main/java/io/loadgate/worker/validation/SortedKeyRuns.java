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
 * writing runs a byte per key (bench/RESULTS.md, 2026-12-02), and an overlap still merges it value by value. A
 * buffer of a few such stretches (a file load's chunk: the lines of several files, each a range of ids) is kept as
 * several intervals; two partitions' chunks then interleave by range without sharing a key, and nothing is merged.
 * Keys that arrive as a long stretch of consecutive values never enter the buffer: the stretch becomes its interval
 * as it ends. A partition read by a table scan gives its chunk's keys as one or two such stretches (two when the
 * server's synchronized scans start mid-table and wrap), and buffering and sorting a million of them was two thirds
 * of a staging validation's CPU (JFR, bench/RESULTS.md, 2026-12-03). A buffer filled in ascending order is not
 * sorted again.
 * Not thread-safe; sets filled apart are united with {@link #addAll}.
 */
final class SortedKeyRuns {
    /** 2^20 keys: an 8 MiB buffer per set, one spilled run per default chunk of a million rows. */
    static final int DEFAULT_RUN = 1 << 20;
    /**
     * The most intervals a buffer is kept as, and the fewest keys each of several must hold on average: beyond
     * either, its keys are written, so the intervals in memory stay a few per chunk and per full buffer.
     */
    static final int MAX_INTERVALS = 64;
    /**
     * The fewest consecutive keys arriving in order that become an interval without the buffer; a shorter stretch
     * goes into the buffer. Large enough that the intervals kept this way are at most one per 4,096 keys.
     */
    static final int MIN_STRETCH = 1 << 12;
    private static final int FIRST_BUFFER = 1 << 12;

    private final int runLength;
    private final List<Run> runs = new ArrayList<>();
    private long[] buffer = new long[FIRST_BUFFER];
    private int size;
    // Whether buffer[0, size) is sorted and free of repeats (it is after compact(), until the next add).
    private boolean compacted = true;
    // Whether buffer[0, size) is in ascending order (repeats allowed), so that compacting need not sort it.
    private boolean ascending = true;
    // The keys added last, when they are consecutive ascending values: stretchFirst..stretchLast, not in the buffer.
    private long stretchFirst;
    private long stretchLast;
    private long stretchLength;
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
    }

    void add(long value) {
        if (stretchLength > 0 && stretchLast != Long.MAX_VALUE && value == stretchLast + 1) {
            stretchLast = value;
            stretchLength++;
            return;
        }
        endStretch();
        stretchFirst = value;
        stretchLast = value;
        stretchLength = 1;
    }

    /** Ends the stretch of consecutive keys being added: its interval when it is long, else its keys buffered. */
    private void endStretch() {
        if (stretchLength == 0) {
            return;
        }
        long length = stretchLength;
        stretchLength = 0;
        if (length >= MIN_STRETCH) {
            runs.add(new Run(stretchFirst, stretchLast, length, null, 0, true));
            return;
        }
        for (long key = stretchFirst; ; key++) {
            buffer(key);
            if (key == stretchLast) {
                return;
            }
        }
    }

    private void buffer(long value) {
        if (size == buffer.length) {
            if (buffer.length < runLength) {
                buffer = Arrays.copyOf(buffer, Math.min(runLength, buffer.length * 2));
            } else {
                runOut();
            }
        }
        if (size > 0 && value < buffer[size - 1]) {
            ascending = false;
        }
        buffer[size++] = value;
        compacted = false;
    }

    /**
     * Sorts the buffer now and spills it when it is mostly full, so that the thread that filled it does that work
     * rather than the one that later {@link #addAll unites} it with others.
     */
    void settle() {
        endStretch();
        runOut();
        // A settled set may wait a while to be united (a part measured early, behind a slow one): an emptied
        // buffer goes back to its first size rather than keeping a chunk's 8 MiB.
        if (size == 0) {
            buffer = new long[FIRST_BUFFER];
        }
    }

    /** Unites {@code other}'s keys with these; {@code other} is not to be used afterwards. */
    void addAll(SortedKeyRuns other) {
        other.endStretch();
        runs.addAll(other.runs);
        for (int i = 0; i < other.size; i++) {
            add(other.buffer[i]);
        }
    }

    /** The number of distinct values added so far. Adding may go on afterwards. */
    long count() {
        endStretch();
        compact();
        List<Run> all = new ArrayList<>(runs);
        if (size > 0) {
            all.add(new Run(buffer[0], buffer[size - 1], size, null, 0, false));
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
            long distinct = 0;
            boolean any = false;
            long last = 0;
            while (!heads.isEmpty()) {
                RunReader reader = heads.poll();
                // No other run holds a key below its head, so this run's keys up to the least of those heads come
                // next in order, without the queue: runs that interleave by long stretches (a buffer that united
                // the tails of several chunks' ranges, beside their spilled runs) are merged a stretch at a time.
                long bound = heads.isEmpty() ? Long.MAX_VALUE : heads.peek().head();
                boolean more;
                do {
                    long value = reader.head();
                    if (!any || value != last) {
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
        if (!ascending) {
            Arrays.sort(buffer, 0, size);
            ascending = true;
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
     * Sorts the buffer and, unless it is mostly repeats (then it keeps filling), empties it into runs: intervals
     * where its keys allow, else one run written to the spill file.
     */
    private void runOut() {
        compact();
        if (!takeIntervals() && size > runLength / 2) {
            spillBuffer();
        }
    }

    /**
     * Empties the compacted buffer into interval runs when its keys form few stretches of consecutive values, and
     * says whether it did.
     */
    private boolean takeIntervals() {
        if (size == 0) {
            return false;
        }
        int stretches = 1;
        for (int i = 1; i < size; i++) {
            // Sorted and distinct: a gap starts a stretch.
            if (buffer[i] != buffer[i - 1] + 1 && ++stretches > MAX_INTERVALS) {
                return false;
            }
        }
        if (stretches > 1 && (long) stretches * MAX_INTERVALS > size) {
            return false;
        }
        int from = 0;
        for (int i = 1; i <= size; i++) {
            if (i == size || buffer[i] != buffer[i - 1] + 1) {
                runs.add(new Run(buffer[from], buffer[i - 1], i - from, null, 0, true));
                from = i;
            }
        }
        size = 0;
        return true;
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

    private static final class IntervalReader implements RunReader {
        private final long last;
        private long head;
        private boolean started;

        IntervalReader(long first, long last) {
            this.head = first;
            this.last = last;
        }

        @Override
        public boolean advance() {
            if (!started) {
                started = true;
                return true;
            }
            if (head == last) {
                return false;
            }
            head++;
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

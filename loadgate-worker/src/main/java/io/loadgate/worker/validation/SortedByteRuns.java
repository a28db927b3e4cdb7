package io.loadgate.worker.validation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The distinct count of a stream of keys encoded as bytes (a text or composite key, see {@link DistinctKeys}), in
 * memory that does not grow with the stream: {@link SortedKeyRuns}' scheme for keys of any length. Keys gather in a
 * buffer of at most {@link #DEFAULT_BUFFER_BYTES}; a full buffer is sorted (unsigned byte order), de-duplicated and
 * written to a temporary file as one run. Runs whose ranges overlap no other's add their counts; overlapping ones are
 * merged as a stream. Exact either way. Not thread-safe; sets filled apart are united with {@link #addAll}.
 */
final class SortedByteRuns {
    /** 16 MiB of keys, counted with their arrays' overhead. */
    static final long DEFAULT_BUFFER_BYTES = 16L << 20;
    // An array's header and the reference to it, on a 64-bit JVM.
    private static final int OVERHEAD = 24;
    private static final Comparator<byte[]> ORDER = Arrays::compareUnsigned;
    private static final int FIRST_BUFFER = 1 << 10;

    private final long bufferBytes;
    private final List<Run> runs = new ArrayList<>();
    private byte[][] buffer = new byte[FIRST_BUFFER][];
    private int size;
    private long bytes;
    // Whether buffer[0, size) is sorted and free of repeats (it is after compact(), until the next add).
    private boolean compacted = true;
    private SpillFile spill;

    SortedByteRuns() {
        this(DEFAULT_BUFFER_BYTES);
    }

    /** {@code bufferBytes} of keys at most in memory (a test makes it small to spill early). */
    SortedByteRuns(long bufferBytes) {
        if (bufferBytes < 2 * OVERHEAD) {
            throw new IllegalArgumentException("bufferBytes must be at least " + 2 * OVERHEAD + ", got " + bufferBytes);
        }
        this.bufferBytes = bufferBytes;
    }

    void add(byte[] key) {
        if (size > 0 && bytes + key.length + OVERHEAD > bufferBytes) {
            compact();
            // Mostly repeats: keep filling the same buffer; otherwise its keys become a run.
            if (bytes > bufferBytes / 2) {
                spillBuffer();
            }
        }
        if (size == buffer.length) {
            buffer = Arrays.copyOf(buffer, buffer.length * 2);
        }
        buffer[size++] = key;
        bytes += key.length + OVERHEAD;
        compacted = false;
    }

    /** As {@link SortedKeyRuns#settle}: the thread that filled the buffer sorts and spills it. */
    void settle() {
        compact();
        if (bytes > bufferBytes / 2) {
            spillBuffer();
        }
        if (size == 0) {
            buffer = new byte[FIRST_BUFFER][];
        }
    }

    /** Unites {@code other}'s keys with these; {@code other} is not to be used afterwards. */
    void addAll(SortedByteRuns other) {
        runs.addAll(other.runs);
        for (int i = 0; i < other.size; i++) {
            add(other.buffer[i]);
        }
    }

    /** The number of distinct keys added so far. Adding may go on afterwards. */
    long count() {
        compact();
        List<Run> all = new ArrayList<>(runs);
        if (size > 0) {
            all.add(new Run(buffer[0], buffer[size - 1], size, null, 0));
        }
        return RunGroups.distinct(all, Run::min, Run::max, ORDER, Run::count, this::merged);
    }

    private long merged(List<Run> group) {
        List<Reader> readers = new ArrayList<>(group.size());
        try {
            PriorityQueue<Reader> heads = new PriorityQueue<>(Comparator.comparing(Reader::head, ORDER));
            for (Run run : group) {
                Reader reader = new Reader(run, buffer);
                readers.add(reader);
                if (reader.advance()) {
                    heads.add(reader);
                }
            }
            long distinct = 0;
            byte[] last = null;
            while (!heads.isEmpty()) {
                Reader reader = heads.poll();
                if (last == null || !Arrays.equals(reader.head(), last)) {
                    distinct++;
                    last = reader.head();
                }
                if (reader.advance()) {
                    heads.add(reader);
                }
            }
            return distinct;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read back spilled keys: " + e.getMessage(), e);
        } finally {
            readers.forEach(Reader::close);
        }
    }

    private void compact() {
        if (compacted) {
            return;
        }
        Arrays.sort(buffer, 0, size, ORDER);
        int unique = size == 0 ? 0 : 1;
        long kept = size == 0 ? 0 : buffer[0].length + OVERHEAD;
        for (int i = 1; i < size; i++) {
            if (!Arrays.equals(buffer[i], buffer[unique - 1])) {
                kept += buffer[i].length + OVERHEAD;
                buffer[unique++] = buffer[i];
            }
        }
        Arrays.fill(buffer, unique, size, null);
        size = unique;
        bytes = kept;
        compacted = true;
    }

    private void spillBuffer() {
        try {
            if (spill == null) {
                spill = new SpillFile();
            }
            long offset = spill.length();
            for (int i = 0; i < size; i++) {
                spill.writeVarLong(buffer[i].length);
                spill.write(buffer[i]);
            }
            spill.flush();
            runs.add(new Run(buffer[0], buffer[size - 1], size, spill, offset));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot spill keys to a temporary file: " + e.getMessage(), e);
        }
        Arrays.fill(buffer, 0, size, null);
        size = 0;
        bytes = 0;
        compacted = true;
    }

    /** Sorted distinct keys from {@code min} to {@code max}; {@code spill} null for the in-memory buffer. */
    private record Run(byte[] min, byte[] max, long count, SpillFile spill, long offset) {
    }

    /** One run's keys in order, from its spill file or from the buffer. */
    private static final class Reader {
        private final SpillFile.Input in;
        private final byte[][] buffer;
        private final long count;
        private long read;
        private byte[] head;

        Reader(Run run, byte[][] buffer) throws IOException {
            this.in = run.spill() == null ? null : run.spill().open(run.offset());
            this.buffer = buffer;
            this.count = run.count();
        }

        boolean advance() throws IOException {
            if (read == count) {
                return false;
            }
            head = in == null ? buffer[(int) read] : in.readBytes(Math.toIntExact(in.readVarLong()));
            read++;
            return true;
        }

        byte[] head() {
            return head;
        }

        void close() {
            if (in != null) {
                in.close();
            }
        }
    }
}

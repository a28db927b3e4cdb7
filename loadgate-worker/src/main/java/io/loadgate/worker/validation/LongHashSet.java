package io.loadgate.worker.validation;

/**
 * A set of {@code long}s by open addressing with linear probing, for the duplicate-key count of a single integer
 * key: a {@code HashSet<Long>} of a few million keys costs an object and a node per key, this one 16 bytes a key
 * at most. Not thread-safe.
 */
final class LongHashSet {
    private static final float LOAD = 0.5f;
    private static final int MAX_CAPACITY = 1 << 30;
    // 0 marks an empty slot; whether 0 itself is in the set is kept apart.
    private long[] slots;
    private boolean hasZero;
    private int size;

    LongHashSet(int expected) {
        slots = new long[capacityFor(Math.max(expected, 16))];
    }

    /** Adds {@code value}; true when it was not there. */
    boolean add(long value) {
        if (value == 0) {
            if (hasZero) {
                return false;
            }
            hasZero = true;
            size++;
            return true;
        }
        if (insert(slots, value)) {
            size++;
            if (size > slots.length * LOAD) {
                grow();
            }
            return true;
        }
        return false;
    }

    void addAll(LongHashSet other) {
        if (other.hasZero) {
            add(0);
        }
        for (long value : other.slots) {
            if (value != 0) {
                add(value);
            }
        }
    }

    int size() {
        return size;
    }

    private void grow() {
        if (slots.length >= MAX_CAPACITY) {
            throw new IllegalStateException("more than " + (long) (MAX_CAPACITY * LOAD) + " distinct keys");
        }
        long[] larger = new long[slots.length * 2];
        for (long value : slots) {
            if (value != 0) {
                insert(larger, value);
            }
        }
        slots = larger;
    }

    private static boolean insert(long[] table, long value) {
        int mask = table.length - 1;
        for (int i = index(value, mask); ; i = (i + 1) & mask) {
            long slot = table[i];
            if (slot == 0) {
                table[i] = value;
                return true;
            }
            if (slot == value) {
                return false;
            }
        }
    }

    // Keys are often consecutive ids: mix the bits (Stafford's variant 13 of MurmurHash3's finaliser) so that they
    // spread over the table instead of forming one long run.
    private static int index(long value, int mask) {
        long h = value;
        h = (h ^ (h >>> 30)) * 0xbf58476d1ce4e5b9L;
        h = (h ^ (h >>> 27)) * 0x94d049bb133111ebL;
        h = h ^ (h >>> 31);
        return (int) h & mask;
    }

    private static int capacityFor(int expected) {
        long needed = (long) Math.ceil(expected / LOAD);
        long capacity = Long.highestOneBit(Math.max(needed, 2) - 1) << 1;
        if (capacity > MAX_CAPACITY) {
            throw new IllegalStateException("too many keys for one set: " + expected);
        }
        return (int) capacity;
    }
}

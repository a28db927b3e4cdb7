package io.loadgate.worker.validation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LongHashSetTest {
    @Test
    void holdsWhatAHashSetHoldsThroughGrowthZeroAndExtremes() {
        LongHashSet set = new LongHashSet(4);
        Set<Long> expected = new HashSet<>();
        Random random = new Random(11);
        long[] special = {0, -1, 1, Long.MIN_VALUE, Long.MAX_VALUE};
        for (int i = 0; i < 200_000; i++) {
            long value = i < special.length ? special[i] : random.nextInt(4) == 0 ? random.nextLong() : random.nextInt(150_000);
            assertThat(set.add(value)).as("add %d", value).isEqualTo(expected.add(value));
        }
        for (long value : special) {
            assertThat(set.add(value)).as("%d is held already", value).isFalse();
        }

        assertThat(set.size()).isEqualTo(expected.size());
    }

    @Test
    void addAllUnitesSets() {
        LongHashSet a = new LongHashSet(16);
        LongHashSet b = new LongHashSet(16);
        for (long i = 0; i < 1_000; i++) {
            a.add(i);
            b.add(i + 500);
        }
        a.addAll(b);

        assertThat(a.size()).as("0..1499").isEqualTo(1_500);
        assertThat(a.add(0)).isFalse();
        assertThat(a.add(1_500)).isTrue();
    }
}

package io.loadgate.worker.validation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Streams made of the shapes a chunk's keys take — climbing stretches long and short, stretches read backwards,
 * every other key, repeats, the ends of a long — spread over a few sets that are settled, counted midway and united as
 * a staging validation does: the distinct count must be a plain set's, whatever the buffer's size.
 */
class SortedKeyRunsPropertiesTest {
    private static final int SETS = 3;

    record Segment(long start, int length, int step, int set, boolean settle) {
    }

    @Property(tries = 300)
    void theCountIsAPlainSetsSize(@ForAll("segments") List<Segment> segments,
            @ForAll @IntRange(min = 2, max = 300) int run) {
        List<SortedKeyRuns> sets = new ArrayList<>();
        List<Set<Long>> expected = new ArrayList<>();
        for (int i = 0; i < SETS; i++) {
            sets.add(new SortedKeyRuns(run));
            expected.add(new HashSet<>());
        }
        for (Segment segment : segments) {
            SortedKeyRuns keys = sets.get(segment.set());
            for (int i = 0; i < segment.length(); i++) {
                long key = segment.start() + (long) i * segment.step();
                keys.add(key);
                expected.get(segment.set()).add(key);
            }
            if (segment.settle()) {
                keys.settle();
            }
        }
        Set<Long> union = new HashSet<>();
        for (int i = 0; i < SETS; i++) {
            // A count before the sets are united: adding (uniting) goes on after it.
            assertThat(sets.get(i).count()).as("set %d", i).isEqualTo(expected.get(i).size());
            union.addAll(expected.get(i));
        }
        SortedKeyRuns all = sets.get(0);
        for (int i = 1; i < SETS; i++) {
            all.addAll(sets.get(i));
        }
        assertThat(all.count()).isEqualTo(union.size());
    }

    @Provide
    Arbitrary<List<Segment>> segments() {
        Arbitrary<Long> start = Arbitraries.oneOf(
                Arbitraries.longs().between(-2_000, 2_000),
                Arbitraries.longs().between(Long.MAX_VALUE - 500, Long.MAX_VALUE),
                Arbitraries.longs().between(Long.MIN_VALUE, Long.MIN_VALUE + 500),
                Arbitraries.longs());
        Arbitrary<Integer> length = Arbitraries.oneOf(Arbitraries.integers().between(1, 10),
                Arbitraries.integers().between(50, 80), Arbitraries.integers().between(100, 700));
        Arbitrary<Integer> step = Arbitraries.of(1, 1, 1, -1, 2, 0);
        return Combinators.combine(start, length, step, Arbitraries.integers().between(0, SETS - 1),
                Arbitraries.of(true, false, false, false)).as(Segment::new).list().ofMinSize(1).ofMaxSize(40);
    }
}

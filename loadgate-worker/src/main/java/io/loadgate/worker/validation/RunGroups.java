package io.loadgate.worker.validation;

import java.util.Comparator;
import java.util.List;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * The distinct count over sorted, de-duplicated runs of keys, the rule {@link SortedKeyRuns} and {@link SortedByteRuns}
 * share: runs are grouped by value ranges that chain into one another; a key lies in the range of every run that holds
 * it, so no key is in two groups and the groups' counts add. A group of one run counts its length; a group of several
 * is counted by {@code merged}, which reads its runs as one stream. {@code runs} is sorted in place.
 */
final class RunGroups {
    private RunGroups() {
    }

    static <R, K> long distinct(List<R> runs, Function<R, K> min, Function<R, K> max, Comparator<? super K> order,
                                ToLongFunction<R> count, ToLongFunction<List<R>> merged) {
        runs.sort(Comparator.comparing(min, order));
        long distinct = 0;
        int from = 0;
        while (from < runs.size()) {
            int to = from + 1;
            K groupMax = max.apply(runs.get(from));
            while (to < runs.size() && order.compare(min.apply(runs.get(to)), groupMax) <= 0) {
                K next = max.apply(runs.get(to));
                groupMax = order.compare(next, groupMax) > 0 ? next : groupMax;
                to++;
            }
            distinct += to - from == 1 ? count.applyAsLong(runs.get(from)) : merged.applyAsLong(runs.subList(from, to));
            from = to;
        }
        return distinct;
    }
}

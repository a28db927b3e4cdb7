package io.loadgate.worker.validation;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/** Named metric values, formatted by {@link MetricValues}, sorted by name. */
public record MetricSet(Map<String, String> values) {
    public MetricSet {
        requireNonNull(values, "values is null");
        values = java.util.Collections.unmodifiableMap(new TreeMap<>(values));
    }

    public String get(String name) {
        String value = values.get(name);
        if (value == null) {
            throw new IllegalArgumentException("no metric " + name + " in " + values.keySet());
        }
        return value;
    }

    /**
     * One line per metric that differs or exists on one side only, as {@code name: this=x other=y}; empty when
     * the sets are equal.
     */
    public List<String> differences(MetricSet other) {
        Set<String> names = new TreeSet<>(values.keySet());
        names.addAll(other.values.keySet());
        List<String> differences = new ArrayList<>();
        for (String name : names) {
            String mine = values.get(name);
            String theirs = other.values.get(name);
            if (mine == null || !mine.equals(theirs)) {
                differences.add(name + ": this=" + mine + " other=" + theirs);
            }
        }
        return List.copyOf(differences);
    }
}

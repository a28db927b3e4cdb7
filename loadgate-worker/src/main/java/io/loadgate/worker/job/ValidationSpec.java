package io.loadgate.worker.job;

import java.util.ArrayList;
import java.util.List;

/**
 * The metrics a run compares between source, staging and target. COUNT is always computed; the lists name the
 * columns for each metric, and {@code primaryKey} (when not empty) adds a duplicate-key count over those columns.
 */
public record ValidationSpec(List<String> sum, List<String> min, List<String> max, List<String> nullCount, List<String> primaryKey) {
    public static final ValidationSpec COUNT_ONLY = new ValidationSpec(null, null, null, null, null);

    public ValidationSpec {
        sum = columns("validation.sum", sum);
        min = columns("validation.min", min);
        max = columns("validation.max", max);
        nullCount = columns("validation.null_count", nullCount);
        primaryKey = columns("validation.primary_key", primaryKey);
    }

    /** Every column some metric reads, each once, in spec order. */
    public List<String> referencedColumns() {
        List<String> all = new ArrayList<>();
        for (List<String> list : List.of(sum, min, max, nullCount, primaryKey)) {
            for (String column : list) {
                if (all.stream().noneMatch(column::equalsIgnoreCase)) {
                    all.add(column);
                }
            }
        }
        return List.copyOf(all);
    }

    private static List<String> columns(String key, List<String> columns) {
        if (columns == null) {
            return List.of();
        }
        for (int i = 0; i < columns.size(); i++) {
            SqlNames.column(key + "[" + i + "]", columns.get(i));
        }
        return List.copyOf(columns);
    }
}

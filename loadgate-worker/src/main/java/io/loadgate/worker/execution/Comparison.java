package io.loadgate.worker.execution;

import io.loadgate.api.StepApi.Metric;
import io.loadgate.api.StepApi.MetricResult;
import io.loadgate.worker.validation.MetricNames;
import io.loadgate.worker.validation.MetricSet;
import io.loadgate.worker.validation.MetricValues;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Source metrics beside the metrics measured on staged files or on the target, as the metrics the ledger judges.
 * COUNT is reported under the ledger's names STAGE_COUNT and TARGET_COUNT.
 */
final class Comparison {
    private Comparison() {
    }

    static List<Metric> metrics(Map<String, String> source, MetricSet measured, String countName) {
        List<Metric> metrics = new ArrayList<>();
        source.forEach((name, expected) -> {
            String actual = measured.values().get(name);
            MetricResult result = expected.equals(actual) ? MetricResult.PASS : MetricResult.FAIL;
            String reported = name.equals(MetricNames.COUNT) ? countName : name;
            metrics.add(new Metric(reported, expected, actual, null, result, Map.of()));
        });
        return metrics;
    }

    /** What the metrics of no rows at all are: counts are zero, sums and extremes are absent. */
    static MetricSet ofNoRows(Map<String, String> source) {
        Map<String, String> values = new java.util.TreeMap<>();
        for (String name : source.keySet()) {
            boolean counted = name.equals(MetricNames.COUNT) || name.equals(MetricNames.DUPLICATE_KEYS)
                    || name.startsWith("NULL_COUNT:");
            values.put(name, counted ? "0" : MetricValues.NONE);
        }
        return new MetricSet(values);
    }
}

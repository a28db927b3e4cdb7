package io.loadgate.ledger.validation;

import static java.util.Objects.requireNonNull;

import java.util.Map;

/** One validation metric as a caller reports it; values are exact decimal strings where they are numbers. */
public record Metric(String metricName, String expectedValue, String actualValue, String tolerance, Result result,
                     Map<String, Object> details) {
    public Metric {
        requireNonNull(metricName, "metricName is null");
        requireNonNull(result, "result is null");
        details = details == null ? Map.of() : Map.copyOf(details);
    }

    public enum Result {
        PASS,
        FAIL,
        WARN
    }

    public enum Stage {
        STAGING,
        TARGET
    }
}

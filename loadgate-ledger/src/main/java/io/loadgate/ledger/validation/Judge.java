package io.loadgate.ledger.validation;

import io.loadgate.api.StepApi;
import java.math.BigDecimal;
import java.util.regex.Pattern;

/**
 * The ledger's own verdict on a metric. A caller's PASS is not trusted: when expected and actual are both exact
 * decimals, the metric fails if they differ by more than the tolerance (absolute; none means zero). A caller's
 * FAIL always stands.
 */
public final class Judge {
    private static final Pattern EXACT_DECIMAL = Pattern.compile("-?[0-9]{1,60}(\\.[0-9]{1,60})?");

    private Judge() {
    }

    public static StepApi.MetricResult judge(StepApi.Metric metric) {
        if (metric.result() == StepApi.MetricResult.FAIL) {
            return StepApi.MetricResult.FAIL;
        }
        BigDecimal expected = decimal(metric.expectedValue());
        BigDecimal actual = decimal(metric.actualValue());
        if (expected == null || actual == null) {
            return metric.result();
        }
        BigDecimal tolerance = metric.tolerance() == null ? BigDecimal.ZERO : decimal(metric.tolerance());
        if (tolerance == null || tolerance.signum() < 0) {
            // A tolerance that is not a non-negative number cannot excuse a difference.
            tolerance = BigDecimal.ZERO;
        }
        return expected.subtract(actual).abs().compareTo(tolerance) > 0 ? StepApi.MetricResult.FAIL : metric.result();
    }

    static BigDecimal decimal(String text) {
        if (text == null || !EXACT_DECIMAL.matcher(text).matches()) {
            return null;
        }
        return new BigDecimal(text);
    }
}

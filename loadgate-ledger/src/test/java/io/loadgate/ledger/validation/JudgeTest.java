package io.loadgate.ledger.validation;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.api.StepApi;
import io.loadgate.api.StepApi.MetricResult;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JudgeTest {
    private static MetricResult judge(String expected, String actual, String tolerance, MetricResult claimed) {
        return Judge.judge(new StepApi.Metric("m", expected, actual, tolerance, claimed, Map.of()));
    }

    @Test
    void decimalsAreComparedAsNumbersWithinTheTolerance() {
        assertThat(judge("10.50", "10.5", null, MetricResult.PASS)).isEqualTo(MetricResult.PASS);
        assertThat(judge("10", "11", null, MetricResult.PASS)).isEqualTo(MetricResult.FAIL);
        assertThat(judge("10", "11", "1", MetricResult.PASS)).isEqualTo(MetricResult.PASS);
        assertThat(judge("10", "11.01", "1", MetricResult.PASS)).isEqualTo(MetricResult.FAIL);
        assertThat(judge("-5", "5", "-20", MetricResult.PASS)).isEqualTo(MetricResult.FAIL);
        assertThat(judge("123456789012345678901234567890", "123456789012345678901234567891", null, MetricResult.WARN))
                .isEqualTo(MetricResult.FAIL);
    }

    @Test
    void aCallersFailStandsAndNonNumbersKeepTheCallersVerdict() {
        assertThat(judge("1", "1", null, MetricResult.FAIL)).isEqualTo(MetricResult.FAIL);
        assertThat(judge("2026-01-01", "2026-01-01", null, MetricResult.PASS)).isEqualTo(MetricResult.PASS);
        assertThat(judge(null, "3", null, MetricResult.WARN)).isEqualTo(MetricResult.WARN);
    }
}

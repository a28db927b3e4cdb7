package io.loadgate.ledger.validation;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.ledger.validation.Metric.Result;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JudgeTest {
    private static Result judge(String expected, String actual, String tolerance, Result claimed) {
        return Judge.judge(new Metric("m", expected, actual, tolerance, claimed, Map.of()));
    }

    @Test
    void decimalsAreComparedAsNumbersWithinTheTolerance() {
        assertThat(judge("10.50", "10.5", null, Result.PASS)).isEqualTo(Result.PASS);
        assertThat(judge("10", "11", null, Result.PASS)).isEqualTo(Result.FAIL);
        assertThat(judge("10", "11", "1", Result.PASS)).isEqualTo(Result.PASS);
        assertThat(judge("10", "11.01", "1", Result.PASS)).isEqualTo(Result.FAIL);
        assertThat(judge("-5", "5", "-20", Result.PASS)).isEqualTo(Result.FAIL);
        assertThat(judge("123456789012345678901234567890", "123456789012345678901234567891", null, Result.WARN))
                .isEqualTo(Result.FAIL);
    }

    @Test
    void aCallersFailStandsAndNonNumbersKeepTheCallersVerdict() {
        assertThat(judge("1", "1", null, Result.FAIL)).isEqualTo(Result.FAIL);
        assertThat(judge("2026-01-01", "2026-01-01", null, Result.PASS)).isEqualTo(Result.PASS);
        assertThat(judge(null, "3", null, Result.WARN)).isEqualTo(Result.WARN);
    }
}

package io.loadgate.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DurationsTest {
    @ParameterizedTest
    @CsvSource({
            "500ms, PT0.5S",
            "1s, PT1S",
            "10s, PT10S",
            "90m, PT1H30M",
            "2h, PT2H",
            "3d, PT72H",
            "0s, PT0S",
    })
    void parsesEveryUnit(String text, Duration expected) {
        assertThat(Durations.parse(text)).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "90", "m", "1.5h", "-5m", "5 m", " 5m", "5m ", "5M", "5H", "10w", "5min", "1h30m",
            "PT5M", "0x10s"})
    void rejectsWhatIsNotOneNumberAndOneUnit(String text) {
        assertThatThrownBy(() -> Durations.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("expected a duration such as 500ms, 10s, 90m, 2h or 3d, got '" + text + "'");
    }

    @ParameterizedTest
    @ValueSource(strings = {"999999999999999999d", "999999999999999999h"})
    void rejectsDurationsTooLargeToRepresent(String text) {
        assertThatThrownBy(() -> Durations.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("duration '" + text + "' is too large");
    }

    @ParameterizedTest
    @ValueSource(strings = {"500ms", "1500ms", "10s", "90m", "2h", "3d", "14d", "0s"})
    void formatsBackToTheLargestExactUnit(String text) {
        assertThat(Durations.format(Durations.parse(text))).isEqualTo(text);
    }

    @ParameterizedTest
    @CsvSource({"60s, 1m", "60m, 1h", "24h, 1d", "1000ms, 1s"})
    void formatsWholeLargerUnitsAsThatUnit(String text, String formatted) {
        assertThat(Durations.format(Durations.parse(text))).isEqualTo(formatted);
    }

    @ParameterizedTest
    @CsvSource({"PT-5M, PT-5M", "PT0.0001S, PT0.0001S"})
    void showsValuesOutsideTheSyntaxAsIso(Duration duration, String formatted) {
        assertThat(Durations.format(duration)).isEqualTo(formatted);
    }
}

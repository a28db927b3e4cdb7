package io.loadgate.worker.source.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loadgate.worker.job.FileColumnSpec;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeParseException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The hand-read ISO dates and timestamps give what {@code LocalDate/LocalDateTime.parse} give, refusals included. */
class ColumnParserTest {
    private final ColumnParser timestamp = ColumnParser.of(new FileColumnSpec("ts", "timestamp", null, null));
    private final ColumnParser date = ColumnParser.of(new FileColumnSpec("day", "date", null, null));

    @Test
    void timestampsOfEveryShapeAreTheFormattersValues() {
        for (String text : List.of("2026-11-30T14:05:07", "2026-11-30T00:00:00", "2024-02-29T23:59:59",
                "0000-01-01T00:00:00", "9999-12-31T23:59:59", "2026-11-30T14:05", "2026-11-30T14:05:07.123456",
                "+12345-01-01T00:00:00", " 2026-11-30T14:05:07 ")) {
            assertThat(timestamp.parse(text)).as(text).isEqualTo(LocalDateTime.parse(text.trim()));
        }
        for (String text : List.of("2026-11-30", "2024-02-29", "0001-01-01", "+12345-01-01")) {
            assertThat(date.parse(text)).as(text).isEqualTo(LocalDate.parse(text));
        }
    }

    @Test
    void whatTheFormatterRefusesIsRefusedWithTheColumnsReason() {
        for (String text : List.of("2026-02-30T00:00:00", "2025-02-29T00:00:00", "2026-13-01T00:00:00",
                "2026-11-30T24:00:00", "2026-11-30T14:60:00", "2026-11-30T14:05:61", "2026-11-30 14:05:07",
                "2026-11-3xT14:05:07", "2026-11-30T1a:05:07", "20261130T140507", "2026-11-30T14:05:07Z")) {
            assertThatThrownBy(() -> LocalDateTime.parse(text)).as("the formatter refuses " + text)
                    .isInstanceOf(DateTimeParseException.class);
            assertThatThrownBy(() -> timestamp.parse(text)).as(text).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("ts: '" + text + "' is not of type timestamp");
        }
        for (String text : List.of("2026-02-30", "2026-00-10", "2026-1-10", "2026/11/30", "-026-11-30")) {
            assertThatThrownBy(() -> LocalDate.parse(text)).as("the formatter refuses " + text)
                    .isInstanceOf(DateTimeParseException.class);
            assertThatThrownBy(() -> date.parse(text)).as(text).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("day: '" + text + "' is not of type date");
        }
    }
}

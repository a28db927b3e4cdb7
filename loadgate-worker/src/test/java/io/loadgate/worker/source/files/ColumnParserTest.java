package io.loadgate.worker.source.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loadgate.worker.job.FileColumnSpec;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.BigRange;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * The hand-read ISO dates and timestamps give what {@code LocalDate/LocalDateTime.parse} give, refusals included;
 * the hand-matched booleans what lower-casing and a match gave.
 */
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

    /** Decimals are refused before {@code setScale} where it would refuse them, with the same values otherwise. */
    @Property(tries = 2000)
    void decimalsAreWhatSetScaleGives(@ForAll @BigRange(min = "-1000000000000000", max = "1000000000000000")
                                      BigInteger unscaled, @ForAll @IntRange(min = -20, max = 20) int scale,
                                      @ForAll @IntRange(min = 1, max = 20) int precision,
                                      @ForAll @IntRange(min = 0, max = 20) int s) {
        Assume.that(s <= precision);
        String text = new BigDecimal(unscaled, scale).toString();
        ColumnParser decimal = ColumnParser.of(new FileColumnSpec("d", "decimal(" + precision + "," + s + ")", null, null));
        Object expected;
        try {
            BigDecimal scaled = new BigDecimal(text).setScale(s, RoundingMode.UNNECESSARY);
            expected = scaled.precision() > precision ? "refused" : scaled;
        } catch (ArithmeticException e) {
            expected = "refused";
        }
        Object actual;
        try {
            actual = decimal.parse(text);
        } catch (IllegalArgumentException e) {
            assertThat(e).hasMessage("d: '" + text + "' is not of type decimal(" + precision + "," + s + ")");
            actual = "refused";
        }
        assertThat(actual).as(text).isEqualTo(expected);
    }

    @Test
    void decimalsWithHugeExponentsAreJudgedWithoutTheirPowersOfTen() {
        ColumnParser decimal = ColumnParser.of(new FileColumnSpec("d", "decimal(12,2)", null, null));
        assertThat(decimal.parse("0e999999999")).isEqualTo(new BigDecimal("0.00"));
        assertThat(decimal.parse("0e-999999999")).isEqualTo(new BigDecimal("0.00"));
        assertThat(decimal.parse("150e-2")).isEqualTo(new BigDecimal("1.50"));
        for (String text : List.of("1e999999999", "-1e-999999999", "1e12")) {
            assertThatThrownBy(() -> decimal.parse(text)).as(text).isInstanceOf(IllegalArgumentException.class);
        }
    }

    /** Booleans are what lower-casing then matching accepted: any case of ASCII letters, nothing else. */
    @Property(tries = 3000)
    void booleansAreAcceptedAsLowerCasingAcceptedThem(@ForAll("booleanLike") String text) {
        ColumnParser bool = ColumnParser.of(new FileColumnSpec("b", "boolean", null, null));
        Object expected = switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "true" -> Boolean.TRUE;
            case "false" -> Boolean.FALSE;
            default -> "refused";
        };
        Object actual;
        try {
            actual = bool.parse(text);
        } catch (IllegalArgumentException e) {
            assertThat(e).hasMessage("b: '" + text + "' is not of type boolean");
            actual = "refused";
        }
        assertThat(actual).as(text).isEqualTo(expected);
    }

    @Provide
    Arbitrary<String> booleanLike() {
        // The long s (upper case S), dotless i and Kelvin sign are the letters that case-folding rules confuse.
        Arbitrary<String> letters = Arbitraries.strings()
                .withChars("tTrRuUeEfFaAlLsS\u017f\u0131\u212a@` \t\u0001\u00a0").ofMinLength(0).ofMaxLength(6);
        return Arbitraries.oneOf(letters, Arbitraries.of("true", "FALSE", "True",
                " false ", "fal\u017fe", "tru", "truee", "TRUE\t"));
    }

    @Test
    void aLongSIsNoS() {
        ColumnParser bool = ColumnParser.of(new FileColumnSpec("b", "boolean", null, null));
        assertThat("fal\u017fe".equalsIgnoreCase("false")).as("equalsIgnoreCase takes it").isTrue();
        assertThatThrownBy(() -> bool.parse("fal\u017fe")).isInstanceOf(IllegalArgumentException.class);
        assertThat(bool.parse(" TrUe ")).isEqualTo(true);
        assertThat(bool.parse("FALSE")).isEqualTo(false);
    }
}

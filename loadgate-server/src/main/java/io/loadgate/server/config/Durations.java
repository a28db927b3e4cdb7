package io.loadgate.server.config;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The duration syntax of the configuration: a whole number and one unit, {@code 500ms 10s 90m 2h 3d}. */
public final class Durations {
    // Upper-case units are rejected on purpose: "5M" reads as months to some people, and guessing is repairing.
    private static final Pattern DURATION = Pattern.compile("(\\d{1,18})(ms|s|m|h|d)");
    private static final List<Unit> UNITS_LARGEST_FIRST = List.of(
            new Unit("d", ChronoUnit.DAYS.getDuration()),
            new Unit("h", ChronoUnit.HOURS.getDuration()),
            new Unit("m", ChronoUnit.MINUTES.getDuration()),
            new Unit("s", ChronoUnit.SECONDS.getDuration()),
            new Unit("ms", ChronoUnit.MILLIS.getDuration()));

    private Durations() {
    }

    /**
     * Parses {@code text} such as {@code 90m}; zero parses (whether zero is allowed is the key's rule).
     *
     * @throws IllegalArgumentException naming the accepted syntax when {@code text} does not match it
     */
    public static Duration parse(String text) {
        requireNonNull(text, "text is null");
        Matcher m = DURATION.matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException(
                    "expected a duration such as 500ms, 10s, 90m, 2h or 3d, got '" + text + "'");
        }
        long amount = Long.parseLong(m.group(1));
        Duration unit = UNITS_LARGEST_FIRST.stream().filter(u -> u.suffix().equals(m.group(2))).findFirst()
                .orElseThrow().length();
        try {
            return unit.multipliedBy(amount);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("duration '" + text + "' is too large", e);
        }
    }

    /** The inverse of {@link #parse}: the largest unit that represents {@code duration} exactly. */
    public static String format(Duration duration) {
        requireNonNull(duration, "duration is null");
        if (duration.isZero()) {
            return "0s";
        }
        for (Unit unit : UNITS_LARGEST_FIRST) {
            if (!duration.isNegative() && duration.toNanos() % unit.length().toNanos() == 0) {
                return duration.toNanos() / unit.length().toNanos() + unit.suffix();
            }
        }
        // Negative or sub-millisecond: not expressible in the config syntax, so show ISO-8601 rather than lie.
        return duration.toString();
    }

    private record Unit(String suffix, Duration length) {
    }
}

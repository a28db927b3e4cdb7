package io.loadgate.worker.source.files;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.job.FileGrouping;
import io.loadgate.worker.job.JobSpecException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The business key of a file source: one hour or one day of directory times, in the source's time zone. Thrive
 * writes such keys as {@code 2026/11/30/14} and {@code 2026/11/30}; the ledger's key alphabet has no slash, so the
 * canonical form (the one the ledger records and the derived key column holds) is {@code 2026-11-30T14} for an
 * hour and {@code 2026-11-30} for a day. Accepted: {@code 2026/11/30/14}, {@code 2026-11-30T14},
 * {@code 2026-11-30T14:00}, {@code 2026113014} for hours; {@code 2026/11/30}, {@code 2026-11-30}, {@code 20261130}
 * for days. Anything else, or an hour key for a job grouped by day, is refused rather than guessed.
 */
public record FileKey(FileGrouping grouping, LocalDateTime start) {
    private static final Pattern HOUR = Pattern.compile(
            "([0-9]{4})[/-]?([0-9]{2})[/-]?([0-9]{2})(?:/|T)?([0-9]{2})(?::00)?");
    private static final Pattern DAY = Pattern.compile("([0-9]{4})([/-]?)([0-9]{2})\\2([0-9]{2})");
    private static final DateTimeFormatter HOUR_FORM = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH");

    public FileKey {
        requireNonNull(grouping, "grouping is null");
        requireNonNull(start, "start is null");
        if (!start.equals(truncate(grouping, start))) {
            throw new IllegalArgumentException("a " + grouping + " key starts on the " + grouping + ": " + start);
        }
    }

    /** The key holding a directory of time {@code time}. */
    public static FileKey of(FileGrouping grouping, LocalDateTime time) {
        return new FileKey(grouping, truncate(grouping, time));
    }

    /** @throws JobSpecException when {@code text} is not a key of {@code grouping} in an accepted form */
    public static FileKey parse(FileGrouping grouping, String text) {
        requireNonNull(text, "text is null");
        try {
            if (grouping == FileGrouping.HOUR) {
                Matcher m = HOUR.matcher(text);
                if (m.matches()) {
                    return new FileKey(grouping, LocalDate.of(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)),
                            Integer.parseInt(m.group(3))).atTime(Integer.parseInt(m.group(4)), 0));
                }
            } else {
                Matcher m = DAY.matcher(text);
                if (m.matches()) {
                    return new FileKey(grouping, LocalDate.of(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(3)),
                            Integer.parseInt(m.group(4))).atStartOfDay());
                }
            }
        } catch (java.time.DateTimeException e) {
            // Falls through to the refusal: 2026/02/30 is no day.
        }
        throw new JobSpecException("business key '" + text + "' is not " + (grouping == FileGrouping.HOUR
                ? "an hour of the file source: write it as 2026/11/30/14 or 2026-11-30T14"
                : "a day of the file source: write it as 2026/11/30 or 2026-11-30"));
    }

    /** Whether a directory of time {@code time} belongs to this key. */
    public boolean contains(LocalDateTime time) {
        return !time.isBefore(start) && time.isBefore(end());
    }

    /** The first time after this key. */
    public LocalDateTime end() {
        return grouping == FileGrouping.HOUR ? start.plusHours(1) : start.plusDays(1);
    }

    /** Thrive's form, as its partitions files list keys: {@code 2026/11/30/14} or {@code 2026/11/30}. */
    public String slashed() {
        String day = start.toLocalDate().toString().replace('-', '/');
        return grouping == FileGrouping.HOUR ? day + "/" + String.format("%02d", start.getHour()) : day;
    }

    /** The canonical form; see the class comment. */
    @Override
    public String toString() {
        return grouping == FileGrouping.HOUR ? HOUR_FORM.format(start) : start.toLocalDate().toString();
    }

    private static LocalDateTime truncate(FileGrouping grouping, LocalDateTime time) {
        return time.truncatedTo(grouping == FileGrouping.HOUR ? ChronoUnit.HOURS : ChronoUnit.DAYS);
    }

}

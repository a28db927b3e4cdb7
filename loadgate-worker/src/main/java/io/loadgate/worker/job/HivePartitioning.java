package io.loadgate.worker.job;

import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;

/**
 * The Hive partition columns a business key becomes ({@code target.hive.partitioning}), all of Hive type string as
 * Hive users spell them. A date key fills {@code dt}; an hour key (a timestamp on the hour, as the file source's hour
 * partitions are) fills {@code dt, hr} or {@code year, month, day, hour}. A new layout is one more constant here.
 */
public enum HivePartitioning {
    /** {@code dt=2026-12-01}: a date key, or an hour key's day. */
    DT(List.of("dt")),
    /** {@code dt=2026-12-01/hr=05}: an hour key. */
    DT_HR(List.of("dt", "hr")),
    /** {@code year=2026/month=12/day=01/hour=05}: an hour key. */
    YEAR_MONTH_DAY_HOUR(List.of("year", "month", "day", "hour"));

    /** The file source's canonical hour key ({@code FileKey}): its key column is text, so the ledger records this. */
    private static final DateTimeFormatter FILE_SOURCE_HOUR = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH");

    private final List<String> columns;

    HivePartitioning(List<String> columns) {
        this.columns = columns;
    }

    public List<String> columns() {
        return columns;
    }

    /**
     * The partition values of a canonical business key ({@link BusinessKeyFormat}): {@code 2026-12-01} for a date,
     * {@code 2026-12-01T05:00:00} for an hour, or {@code 2026-12-01T05} for an hour of the file source (whose key
     * column is text holding that form).
     *
     * @throws JobSpecException when the key is not of the kind this layout takes, or an hour key is not on the hour
     */
    public List<String> values(String businessKey) {
        if (this == DT) {
            try {
                return List.of(LocalDate.parse(businessKey).toString());
            } catch (DateTimeParseException e) {
                // A whole hour's key may also go to a day partition only if the day holds nothing else: refused.
                throw new JobSpecException("target.hive.partitioning dt takes a date business key, got '"
                        + businessKey + "'");
            }
        }
        LocalDateTime hour;
        try {
            hour = LocalDateTime.parse(businessKey);
        } catch (DateTimeParseException e) {
            try {
                hour = LocalDateTime.parse(businessKey, FILE_SOURCE_HOUR);
            } catch (DateTimeParseException notFileSourceHour) {
                throw new JobSpecException("target.hive.partitioning " + name().toLowerCase(java.util.Locale.ROOT)
                        + " takes an hour business key (2026-12-01T05:00:00, or a file source's 2026-12-01T05), got '"
                        + businessKey + "'");
            }
        }
        if (hour.getMinute() != 0 || hour.getSecond() != 0 || hour.getNano() != 0) {
            throw new JobSpecException("an hour business key must be on the hour, got '" + businessKey + "'");
        }
        String day = String.format("%02d", hour.getDayOfMonth());
        String hr = String.format("%02d", hour.getHour());
        return switch (this) {
            case DT -> throw new AssertionError("handled above");
            case DT_HR -> List.of(hour.toLocalDate().toString(), hr);
            case YEAR_MONTH_DAY_HOUR -> List.of(Integer.toString(hour.getYear()),
                    String.format("%02d", hour.getMonthValue()), day, hr);
        };
    }

    /**
     * The canonical business key whose partition {@code values} are (the inverse of {@link #values}); empty for
     * values no business key of this layout becomes (a partition Loadgate did not make).
     */
    public Optional<String> businessKey(List<String> values) {
        if (values.size() != columns.size()) {
            return Optional.empty();
        }
        String key;
        try {
            key = switch (this) {
                case DT -> LocalDate.parse(values.get(0)).toString();
                case DT_HR -> DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(
                        LocalDate.parse(values.get(0)).atTime(Integer.parseInt(values.get(1)), 0));
                case YEAR_MONTH_DAY_HOUR -> DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(LocalDateTime.of(
                        Integer.parseInt(values.get(0)), Integer.parseInt(values.get(1)),
                        Integer.parseInt(values.get(2)), Integer.parseInt(values.get(3)), 0));
            };
        } catch (DateTimeException | NumberFormatException e) {
            return Optional.empty();
        }
        // Only the spelling values() writes maps back: dt=2026-12-1 or hr=5 is no key's partition.
        return values(key).equals(values) ? Optional.of(key) : Optional.empty();
    }
}

package io.loadgate.worker.job;

import java.net.URI;
import java.time.Duration;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A source of file drops ({@code source.files}): directories under {@code root} named by {@code layout}, their
 * time read in {@code time_zone} (default UTC), newline-delimited records in {@code format}, grouped into one
 * business key per hour or day. A directory is due once its time is older than now minus {@code processing_delay}
 * (e.g. {@code 15m}, {@code 1h}, {@code PT90S}; default 0). Columns are listed inline or in {@code columns_file}
 * (Thrive's {@code hive_columns.csv}, {@code name type} per line, a path or URI every worker can read), never both.
 * {@code partitions} is how many partitions a key's files are balanced into by bytes (more when their listing
 * does not fit the ledger's sourceRef).
 *
 * <p>As wide as the YAML section it mirrors: built by the loader, not by hand.
 */
public record FilesSpec(URI root, FileLayout layout, String timeZone, FileFormat format, Boolean header,
                        String delimiter, String quote, FileGrouping groupBy, String processingDelay,
                        List<FileColumnSpec> columns, String columnsFile, PartitionColumnsSpec partitionColumns,
                        Integer partitions) {
    private static final Pattern SHORT_DURATION = Pattern.compile("([0-9]{1,9})([smhd])");

    public FilesSpec {
        root = StagingSpec.fileSystemRoot("source.files.root", root);
        layout = layout == null ? FileLayout.CAMUS : layout;
        timeZone = timeZone == null ? "UTC" : timeZone;
        try {
            ZoneId.of(timeZone);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("source.files.time_zone is not a time zone: '" + timeZone + "'");
        }
        if (format == null) {
            throw new IllegalArgumentException("source.files.format is required (ndjson, csv, tsv or text)");
        }
        header = header != null && header;
        if (header && (format == FileFormat.NDJSON || format == FileFormat.TEXT)) {
            throw new IllegalArgumentException("source.files.header applies to csv and tsv only");
        }
        if (delimiter != null && (delimiter.length() != 1 || format == FileFormat.NDJSON || format == FileFormat.TEXT)) {
            throw new IllegalArgumentException("source.files.delimiter must be one character, for csv or tsv, got '"
                    + delimiter + "'");
        }
        if (quote != null && (quote.length() != 1 || format == FileFormat.NDJSON || format == FileFormat.TEXT)) {
            throw new IllegalArgumentException("source.files.quote must be one character, for csv or tsv, got '"
                    + quote + "'");
        }
        if (groupBy == null) {
            throw new IllegalArgumentException("source.files.group_by is required (hour or day)");
        }
        duration("source.files.processing_delay", processingDelay);
        columns = columns == null ? List.of() : List.copyOf(columns);
        if (columns.isEmpty() == (columnsFile == null)) {
            throw new IllegalArgumentException("source.files needs exactly one of columns and columns_file");
        }
        partitionColumns = partitionColumns == null ? PartitionColumnsSpec.DEFAULT : partitionColumns;
        partitions = partitions == null ? SourceSpec.DEFAULT_PARTITIONS : partitions;
        if (partitions < 1 || partitions > SourceSpec.MAX_PARTITIONS) {
            throw new IllegalArgumentException("source.files.partitions must be between 1 and "
                    + SourceSpec.MAX_PARTITIONS + ", got " + partitions);
        }
    }

    public ZoneId zone() {
        return ZoneId.of(timeZone);
    }

    /** How long after its time a directory is taken to be complete. */
    public Duration delay() {
        return duration("source.files.processing_delay", processingDelay);
    }

    /** The field delimiter of csv ({@code ,}) or tsv (tab) lines. */
    public char fieldDelimiter() {
        return delimiter != null ? delimiter.charAt(0) : format == FileFormat.TSV ? '\t' : ',';
    }

    /** The quote of csv lines ({@code "}); tsv has none unless one is named. */
    public Character fieldQuote() {
        return quote != null ? Character.valueOf(quote.charAt(0)) : format == FileFormat.CSV ? Character.valueOf('"') : null;
    }

    /** A duration written {@code 15m}, {@code 2h}, {@code 1d} or {@code PT90S}; zero when absent. */
    static Duration duration(String key, String text) {
        if (text == null) {
            return Duration.ZERO;
        }
        Matcher shortForm = SHORT_DURATION.matcher(text.toLowerCase(Locale.ROOT));
        if (shortForm.matches()) {
            long amount = Long.parseLong(shortForm.group(1));
            return switch (shortForm.group(2)) {
                case "s" -> Duration.ofSeconds(amount);
                case "m" -> Duration.ofMinutes(amount);
                case "h" -> Duration.ofHours(amount);
                default -> Duration.ofDays(amount);
            };
        }
        try {
            Duration parsed = Duration.parse(text);
            if (parsed.isNegative()) {
                throw new IllegalArgumentException(key + " must not be negative, got " + text);
            }
            return parsed;
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(key + " must be like 15m, 2h, 1d or PT90S, got '"
                    + text + "'");
        }
    }
}

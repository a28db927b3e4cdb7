package io.loadgate.worker.job;

/**
 * The names of the columns a file source derives from its business key and adds to every row as constants:
 * {@code key} (text, the canonical key itself, what a target replaces by), {@code date} (the key's day) and
 * {@code hour} (its hour, 0..23; for keys grouped by hour only). Absent names take the defaults.
 */
public record PartitionColumnsSpec(String key, String date, String hour) {
    public static final PartitionColumnsSpec DEFAULT = new PartitionColumnsSpec(null, null, null);

    public PartitionColumnsSpec {
        key = SqlNames.column("source.files.partition_columns.key", key == null ? "load_key" : key);
        date = SqlNames.column("source.files.partition_columns.date", date == null ? "dt" : date);
        hour = SqlNames.column("source.files.partition_columns.hour", hour == null ? "hr" : hour);
        if (key.equalsIgnoreCase(date) || key.equalsIgnoreCase(hour) || date.equalsIgnoreCase(hour)) {
            throw new IllegalArgumentException("source.files.partition_columns names one column twice: " + key
                    + ", " + date + ", " + hour);
        }
    }
}

package io.loadgate.worker.source.files;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.job.FileGrouping;
import io.loadgate.worker.job.PartitionColumnsSpec;
import io.loadgate.worker.source.ColumnType;
import io.loadgate.worker.source.SourceColumn;
import java.util.ArrayList;
import java.util.List;

/**
 * The columns a file source derives from its business key and adds to every row as constants, so that any target
 * sees them as ordinary columns: the key itself (text, canonical {@link FileKey} form, the column a target replaces
 * by), its day ({@code date}) and, for hourly keys, its hour ({@code int}, 0..23). A Hive-style target partitions
 * by {@link #date()} and {@link #hour()}; Iceberg and warehouse targets replace by {@link #key()}.
 */
public record KeyPartitionColumns(FileGrouping grouping, String key, String date, String hour) {
    public KeyPartitionColumns {
        requireNonNull(grouping, "grouping is null");
        requireNonNull(key, "key is null");
        requireNonNull(date, "date is null");
        if (grouping == FileGrouping.HOUR) {
            requireNonNull(hour, "hour is null");
        } else {
            hour = null;
        }
    }

    public static KeyPartitionColumns of(FileGrouping grouping, PartitionColumnsSpec names) {
        return new KeyPartitionColumns(grouping, names.key(), names.date(), names.hour());
    }

    /** The derived columns, in the order they follow the file's own columns. */
    public List<SourceColumn> columns() {
        List<SourceColumn> columns = new ArrayList<>(List.of(SourceColumn.of(key, ColumnType.STRING),
                SourceColumn.of(date, ColumnType.DATE)));
        if (hour != null) {
            columns.add(SourceColumn.of(hour, ColumnType.INT));
        }
        return List.copyOf(columns);
    }

    /** The values of {@link #columns()} for every row of {@code fileKey}, of the classes {@link ColumnType} names. */
    public List<Object> values(FileKey fileKey) {
        if (fileKey.grouping() != grouping) {
            throw new IllegalArgumentException("a " + fileKey.grouping() + " key for " + grouping + " columns");
        }
        List<Object> values = new ArrayList<>(List.of(fileKey.toString(), fileKey.start().toLocalDate()));
        if (hour != null) {
            values.add(fileKey.start().getHour());
        }
        return List.copyOf(values);
    }
}

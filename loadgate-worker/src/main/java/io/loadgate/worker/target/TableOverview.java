package io.loadgate.worker.target;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * What {@code loadgate table show} and {@code count} say of a target table, read through its target (never from the
 * stage, whose files include every attempt's): its columns in the target's own types, and the rows each business
 * key holds now, in business-key order.
 */
public record TableOverview(String table, String businessKeyColumn, List<Column> columns, List<Partition> partitions) {
    public TableOverview {
        requireNonNull(table, "table is null");
        requireNonNull(businessKeyColumn, "businessKeyColumn is null");
        columns = List.copyOf(columns);
        partitions = List.copyOf(partitions);
    }

    public record Column(String name, String type) {
        public Column {
            requireNonNull(name, "name is null");
            requireNonNull(type, "type is null");
        }
    }

    public record Partition(String businessKey, long rows) {
        public Partition {
            requireNonNull(businessKey, "businessKey is null");
        }
    }

    public long rows() {
        return partitions.stream().mapToLong(Partition::rows).sum();
    }
}

package io.loadgate.worker.source.jdbc;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.source.SourceColumn;
import java.util.List;

/** One partition's SELECT, the columns it yields and each column's type as the server names it. */
record PartitionQuery(BoundSql sql, List<SourceColumn> columns, List<String> typeNames) {
    PartitionQuery {
        requireNonNull(sql, "sql is null");
        columns = List.copyOf(columns);
        typeNames = List.copyOf(typeNames);
        if (columns.size() != typeNames.size()) {
            throw new IllegalArgumentException(columns.size() + " columns, " + typeNames.size() + " type names");
        }
    }
}

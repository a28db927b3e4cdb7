package io.loadgate.worker.job;

/**
 * One column a file source yields: its name, its type ({@code string, int, bigint, decimal(p,s), double, boolean,
 * date, timestamp}), where it comes from in a line ({@code from}: a JSON pointer such as {@code /user/id} for NDJSON,
 * a 0-based field index or a header name for CSV and TSV; absent means the column's own name, or field
 * {@code /name}), and, for dates and timestamps, the pattern they are written in ({@code format}, Java
 * {@code DateTimeFormatter} syntax; absent means ISO-8601).
 */
public record FileColumnSpec(String name, String type, String from, String format) {
    public FileColumnSpec {
        SqlNames.column("source.files.columns[].name", name);
        SourceSpec.requireText("source.files.columns[" + name + "].type", type);
        if (from != null && from.isBlank()) {
            throw new IllegalArgumentException("source.files.columns[" + name + "].from is empty");
        }
    }
}

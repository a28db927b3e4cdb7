package io.loadgate.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A plain text table: a header row and left-aligned columns two spaces apart. Nulls print as "-". */
final class Table {
    private final List<String> headers;
    private final List<List<String>> rows = new ArrayList<>();

    Table(String... headers) {
        this.headers = List.of(headers);
    }

    Table row(Object... cells) {
        if (cells.length != headers.size()) {
            throw new IllegalArgumentException("row has " + cells.length + " cells for " + headers.size() + " columns");
        }
        rows.add(Arrays.stream(cells).map(c -> c == null ? "-" : c.toString()).toList());
        return this;
    }

    boolean isEmpty() {
        return rows.isEmpty();
    }

    void print(PrintWriter out) {
        int[] widths = new int[headers.size()];
        for (int i = 0; i < widths.length; i++) {
            widths[i] = headers.get(i).length();
            for (List<String> row : rows) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        line(out, headers, widths);
        for (List<String> row : rows) {
            line(out, row, widths);
        }
    }

    private static void line(PrintWriter out, List<String> cells, int[] widths) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            line.append(cells.get(i));
            if (i < cells.size() - 1) {
                line.append(" ".repeat(widths[i] - cells.get(i).length() + 2));
            }
        }
        out.println(line);
    }
}

package io.loadgate.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A plain text table: a header row and left-aligned columns two spaces apart. Nulls print as "-". A column may be
 * capped at a width; longer cells are cut and end in "~", so a table fits a terminal of known width.
 */
final class Table {
    private final List<String> headers;
    private final List<List<String>> rows = new ArrayList<>();
    private int[] caps;
    private int maxWidth;
    private int[] keep;

    Table(String... headers) {
        this.headers = List.of(headers);
        this.caps = new int[headers.length];
    }

    /** The widest each column may be, in header order; 0 leaves a column uncapped. */
    Table cap(int... widths) {
        if (widths.length != headers.size()) {
            throw new IllegalArgumentException(widths.length + " caps for " + headers.size() + " columns");
        }
        caps = widths.clone();
        return this;
    }

    /**
     * Cuts columns until every line fits {@code width}: first the columns wider than their {@code keep} width (given
     * in header order), widest first, down to it; then, if that is not enough, those same columns widest first down to
     * their header. A {@code keep} of 0 marks a column that is never cut (counts, ages: short by design). Widest first
     * shares the cut between long cells rather than leaving one column a single character.
     */
    Table fitWidth(int width, int... keepWidths) {
        if (keepWidths.length != headers.size()) {
            throw new IllegalArgumentException(keepWidths.length + " widths for " + headers.size() + " columns");
        }
        maxWidth = width;
        keep = keepWidths.clone();
        return this;
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
        lines().forEach(out::println);
    }

    List<String> lines() {
        int[] widths = new int[headers.size()];
        for (int i = 0; i < widths.length; i++) {
            widths[i] = headers.get(i).length();
            for (List<String> row : rows) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
            if (caps[i] > 0) {
                widths[i] = Math.min(widths[i], caps[i]);
            }
        }
        if (keep != null) {
            int[] floors = new int[widths.length];
            for (int i = 0; i < widths.length; i++) {
                floors[i] = keep[i] == 0 ? Integer.MAX_VALUE : Math.max(keep[i], headers.get(i).length());
            }
            shrink(widths, floors);
            for (int i = 0; i < widths.length; i++) {
                floors[i] = keep[i] == 0 ? Integer.MAX_VALUE : headers.get(i).length();
            }
            shrink(widths, floors);
        }
        List<String> lines = new ArrayList<>();
        lines.add(line(headers, widths));
        for (List<String> row : rows) {
            lines.add(line(row, widths));
        }
        return lines;
    }

    /** Takes a character at a time from the widest column above its floor until the row fits maxWidth. */
    private void shrink(int[] widths, int[] floors) {
        int total = Arrays.stream(widths).sum() + 2 * (widths.length - 1);
        while (total > maxWidth) {
            int widest = -1;
            for (int i = 0; i < widths.length; i++) {
                if (widths[i] > floors[i] && (widest < 0 || widths[i] > widths[widest])) {
                    widest = i;
                }
            }
            if (widest < 0) {
                return;
            }
            widths[widest]--;
            total--;
        }
    }

    /** The text cut to {@code width} characters, ending in "~" when something was cut. */
    static String fit(String text, int width) {
        if (text.length() <= width) {
            return text;
        }
        return width <= 1 ? text.substring(0, Math.max(width, 0)) : text.substring(0, width - 1) + "~";
    }

    private static String line(List<String> cells, int[] widths) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            String cell = fit(cells.get(i), widths[i]);
            line.append(cell);
            if (i < cells.size() - 1) {
                line.append(" ".repeat(widths[i] - cell.length() + 2));
            }
        }
        return line.toString();
    }
}

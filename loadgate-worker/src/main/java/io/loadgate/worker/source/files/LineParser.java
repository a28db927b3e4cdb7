package io.loadgate.worker.source.files;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import io.loadgate.worker.job.FileColumnSpec;
import io.loadgate.worker.job.FilesSpec;
import io.loadgate.worker.job.TransformStep;
import io.loadgate.worker.source.ColumnType;
import java.util.ArrayList;
import java.util.List;

/**
 * Parses one line of a file source into the values of its columns, or rejects it with a reason ({@link Rejected}).
 * Not thread-safe: one per partition reader (CSV headers are remembered per file).
 */
abstract class LineParser {
    protected final List<ColumnParser> columns;

    private LineParser(List<ColumnParser> columns) {
        this.columns = List.copyOf(columns);
    }

    static LineParser of(FilesSpec spec, List<FileColumnSpec> columnSpecs) {
        List<ColumnParser> columns = columnSpecs.stream().map(ColumnParser::of).toList();
        return switch (spec.format()) {
            case NDJSON -> new Json(columns, columnSpecs);
            case CSV, TSV -> new Delimited(columns, columnSpecs, spec.fieldDelimiter(), spec.fieldQuote(), spec.header(),
                    "source.files.header is false");
            case TEXT -> new Text(columns);
        };
    }

    /** Parses the rows a mapper writes: JSON objects, or tab-separated fields without quoting or header. */
    static LineParser ofMapper(TransformStep.MapperOutput output, List<FileColumnSpec> columnSpecs) {
        List<ColumnParser> columns = columnSpecs.stream().map(ColumnParser::of).toList();
        return switch (output) {
            case JSON -> new Json(columns, columnSpecs);
            case TSV -> new Delimited(columns, columnSpecs, '\t', null, false, "a mapper's tsv rows have no header");
        };
    }

    /** Whether each file's first line names its fields rather than holding a row. */
    boolean hasHeader() {
        return false;
    }

    /** Takes a file's header line (only when {@link #hasHeader}). */
    void header(String line) {
        throw new IllegalStateException("this format has no header");
    }

    /** Fills {@code values} (one per column) from {@code line}; throws {@link Rejected} when it does not parse. */
    abstract void parse(String line, Object[] values);

    /** {@link #parse(String, Object[])} of the reader's current line. */
    void parse(LineReader line, Object[] values) {
        parse(line.text(), values);
    }

    /** A line that is not a row: the reason, for the rejects chunk. */
    static final class Rejected extends RuntimeException {
        Rejected(String reason) {
            super(reason, null, false, false);
        }
    }

    protected Object value(int column, String text) {
        try {
            return columns.get(column).parse(text);
        } catch (IllegalArgumentException e) {
            throw new Rejected(e.getMessage());
        }
    }

    private static final class Json extends LineParser {
        private final JsonFields fields;

        Json(List<ColumnParser> columns, List<FileColumnSpec> specs) {
            super(columns);
            List<JsonPointer> pointers = new ArrayList<>();
            for (FileColumnSpec spec : specs) {
                String from = spec.from() == null ? "/" + spec.name() : spec.from();
                try {
                    pointers.add(JsonPointer.compile(from));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("source.files.columns[" + spec.name() + "].from must be a JSON"
                            + " pointer such as /user/id, got '" + from + "'");
                }
            }
            this.fields = new JsonFields(pointers);
        }

        @Override
        void parse(String line, Object[] values) {
            // The fields first, the whole line read: a line malformed anywhere is refused before any value is judged.
            fields.read(line, values);
            typed(values);
        }

        @Override
        void parse(LineReader line, Object[] values) {
            if (line.ascii()) {
                fields.read(line.bytes(), line.offset(), line.length(), values);
            } else {
                fields.read(line.text(), values);
            }
            typed(values);
        }

        /** Turns what {@link JsonFields#read} gave into the columns' values. */
        private void typed(Object[] values) {
            for (int i = 0; i < values.length; i++) {
                if (values[i] instanceof JsonNode node) {
                    if (columns.get(i).column().type() != ColumnType.STRING) {
                        throw new Rejected(columns.get(i).column().name() + ": a JSON "
                                + (node.isArray() ? "array" : "object") + " is not a "
                                + columns.get(i).column().type().name().toLowerCase(java.util.Locale.ROOT));
                    }
                    values[i] = node.toString();
                } else if (values[i] instanceof Number number) {
                    try {
                        values[i] = columns.get(i).parse(number);
                    } catch (IllegalArgumentException e) {
                        throw new Rejected(e.getMessage());
                    }
                } else if (values[i] != null) {
                    values[i] = value(i, (String) values[i]);
                }
            }
        }
    }

    private static final class Delimited extends LineParser {
        /** Hive's text files write SQL NULL as this. */
        private static final String HIVE_NULL = "\\N";
        private final List<FileColumnSpec> specs;
        private final char delimiter;
        private final Character quote;
        private final boolean header;
        private int[] fields;

        /** @param headerless why fields are found by index (without a header), for the refusal of a named one */
        Delimited(List<ColumnParser> columns, List<FileColumnSpec> specs, char delimiter, Character quote,
                  boolean header, String headerless) {
            super(columns);
            this.specs = List.copyOf(specs);
            this.delimiter = delimiter;
            this.quote = quote;
            this.header = header;
            if (!header) {
                this.fields = new int[specs.size()];
                for (int i = 0; i < specs.size(); i++) {
                    String from = specs.get(i).from();
                    if (from != null && !from.matches("[0-9]{1,4}")) {
                        throw new IllegalArgumentException("source.files.columns[" + specs.get(i).name() + "].from"
                                + " names a header field, but " + headerless + ": give a 0-based index");
                    }
                    fields[i] = from == null ? i : Integer.parseInt(from);
                }
            }
        }

        @Override
        boolean hasHeader() {
            return header;
        }

        @Override
        void header(String line) {
            List<String> names = split(line);
            fields = new int[specs.size()];
            for (int i = 0; i < specs.size(); i++) {
                String from = specs.get(i).from() == null ? specs.get(i).name() : specs.get(i).from();
                int index = from.matches("[0-9]{1,4}") ? Integer.parseInt(from) : names.indexOf(from);
                // A header without the field makes every line of the file a reject with this reason.
                fields[i] = index;
            }
        }

        @Override
        void parse(String line, Object[] values) {
            List<String> parts = split(line);
            for (int i = 0; i < values.length; i++) {
                int field = fields[i];
                if (field < 0) {
                    throw new Rejected(specs.get(i).name() + ": the file's header has no field "
                            + (specs.get(i).from() == null ? specs.get(i).name() : specs.get(i).from()));
                }
                if (field >= parts.size()) {
                    throw new Rejected("the line has " + parts.size() + " fields; column " + specs.get(i).name()
                            + " is field " + field + " (0-based)");
                }
                String text = parts.get(field);
                boolean absent = HIVE_NULL.equals(text)
                        || text.isEmpty() && columns.get(i).column().type() != ColumnType.STRING;
                values[i] = absent ? null : value(i, text);
            }
        }

        private List<String> split(String line) {
            List<String> parts = new ArrayList<>();
            StringBuilder field = new StringBuilder();
            boolean quoted = false;
            for (int i = 0; i < line.length(); i++) {
                char c = line.charAt(i);
                if (quoted) {
                    if (c == quote) {
                        if (i + 1 < line.length() && line.charAt(i + 1) == quote) {
                            field.append(c);
                            i++;
                        } else {
                            quoted = false;
                        }
                    } else {
                        field.append(c);
                    }
                } else if (quote != null && c == quote && field.length() == 0) {
                    quoted = true;
                } else if (c == delimiter) {
                    parts.add(field.toString());
                    field.setLength(0);
                } else {
                    field.append(c);
                }
            }
            if (quoted) {
                throw new Rejected("a quoted field is not closed");
            }
            parts.add(field.toString());
            return parts;
        }
    }

    private static final class Text extends LineParser {
        Text(List<ColumnParser> columns) {
            super(columns);
            if (columns.size() != 1) {
                throw new IllegalArgumentException("source.files.format text gives one column, the line; "
                        + columns.size() + " are declared");
            }
        }

        @Override
        void parse(String line, Object[] values) {
            values[0] = value(0, line);
        }
    }
}

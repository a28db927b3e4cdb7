package io.loadgate.worker.warehouse;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import org.apache.iceberg.data.Record;

/**
 * Staged records as PostgreSQL {@code COPY ... (FORMAT csv)} lines. NULL is the empty unquoted field and every text
 * value is quoted, so an empty string stays an empty string; dates and times are ISO-8601, which PostgreSQL reads
 * whatever its DateStyle; binary is bytea's hex form.
 */
final class CsvRows {
    private static final HexFormat HEX = HexFormat.of();

    private final int width;

    CsvRows(int width) {
        this.width = width;
    }

    void append(StringBuilder out, Record record) {
        for (int i = 0; i < width; i++) {
            if (i > 0) {
                out.append(',');
            }
            Object value = record.get(i);
            if (value == null) {
                continue;
            }
            if (value instanceof CharSequence text) {
                quoted(out, text);
            } else if (value instanceof BigDecimal decimal) {
                out.append(decimal.toPlainString());
            } else if (value instanceof ByteBuffer bytes) {
                ByteBuffer copy = bytes.duplicate();
                byte[] array = new byte[copy.remaining()];
                copy.get(array);
                out.append("\\x").append(HEX.formatHex(array));
            } else {
                // Numbers, booleans, LocalDate, LocalDateTime, OffsetDateTime: their toString is what COPY reads.
                out.append(value);
            }
        }
        out.append('\n');
    }

    private static void quoted(StringBuilder out, CharSequence text) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"') {
                out.append('"');
            }
            out.append(c);
        }
        out.append('"');
    }
}

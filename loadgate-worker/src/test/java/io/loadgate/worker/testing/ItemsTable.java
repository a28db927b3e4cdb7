package io.loadgate.worker.testing;

import io.loadgate.ledger.testing.TestDatabases;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;

/**
 * The end-to-end tests' PostgreSQL source table {@code items (id, grp, amount, note, day)}, and its rows as canonical
 * lines ({@link #line}) to compare with what a target holds, shared by the worker's and the Spark module's tests.
 */
public final class ItemsTable {
    private ItemsTable() {
    }

    public static void create(TestDatabases.TestDatabase source) throws SQLException {
        try (Connection c = source.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE items (id bigint, grp integer NOT NULL, amount numeric(10,2), note text,"
                    + " day date NOT NULL)");
        }
    }

    /** Adds {@code rows} rows dated {@code day}; every 50th has a NULL split value, every 7th a NULL note. */
    public static void addRows(TestDatabases.TestDatabase source, LocalDate day, long firstId, long rows)
            throws SQLException {
        try (Connection c = source.connect(); Statement s = c.createStatement()) {
            s.execute("INSERT INTO items SELECT CASE WHEN g % 50 = 0 THEN NULL ELSE g END, (g % 13)::int,"
                    + " round((g % 10007) / 7.0, 2), CASE WHEN g % 7 = 0 THEN NULL ELSE 'n' || g END, DATE '" + day
                    + "' FROM generate_series(" + firstId + ", " + (firstId + rows - 1) + ") g");
        }
    }

    /** The source's rows of a day, each as one canonical line, sorted. */
    public static List<String> rows(TestDatabases.TestDatabase source, LocalDate day) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = source.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id, grp, amount, note, day FROM items WHERE day = DATE '" + day + "'")) {
            while (rs.next()) {
                rows.add(line(rs.getObject(1), rs.getObject(2), rs.getBigDecimal(3), rs.getString(4),
                        rs.getDate(5).toLocalDate()));
            }
        }
        Collections.sort(rows);
        return rows;
    }

    /** One row as one line: {@code id|grp|amount|note|day}, the amount in plain notation. */
    public static String line(Object id, Object grp, BigDecimal amount, String note, LocalDate day) {
        return id + "|" + grp + "|" + (amount == null ? null : amount.toPlainString()) + "|" + note + "|" + day;
    }

    /** The Iceberg table's rows of a day as it is now, in the form {@link #rows} gives the source's. */
    public static List<String> rows(Table table, LocalDate day) {
        table.refresh();
        List<String> rows = new ArrayList<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table)
                .where(Expressions.equal("day", day.toString())).build()) {
            for (Record r : records) {
                rows.add(line(r.getField("id"), r.getField("grp"), (BigDecimal) r.getField("amount"),
                        (String) r.getField("note"), (LocalDate) r.getField("day")));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Collections.sort(rows);
        return rows;
    }
}

package io.loadgate.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The oracle: row digests of the source and of the warehouse table, compared as multisets. Runs on the machine's
 * PostgreSQL (the suite's own databases, remade here).
 */
class OracleTest {
    @Test
    void lostAndDoubledCountCopiesNotDistinctRows() {
        assertThat(RowComparison.of(Map.of("a", 1L, "b", 2L), Map.of("a", 1L, "b", 2L)))
                .isEqualTo(new RowComparison(3, 3, 0, 0));
        assertThat(RowComparison.of(Map.of("a", 1L, "b", 2L), Map.of("a", 2L, "c", 1L)))
                .as("b's two copies lost; a doubled once; c is no source row").isEqualTo(new RowComparison(3, 3, 2, 2));
        assertThat(RowComparison.of(Map.of("a", 1L), Map.of())).isEqualTo(new RowComparison(1, 0, 1, 0));
    }

    private final Databases databases = new Databases("127.0.0.1", 5432, "loadgate_chaos_test");

    @AfterEach
    void drop() throws Exception {
        databases.drop();
    }

    @Test
    void aCopiedTableMatchesItsSourceAndEveryKindOfDamageIsCounted() throws Exception {
        databases.recreate();
        databases.insertDay("2026-01-01", 1, 1_000);
        databases.insertDay("2026-01-02", 10_001, 10);
        try (Connection c = databases.connect(databases.warehouse); Statement s = c.createStatement()) {
            // The warehouse as a publisher would make it: the same columns, the rows copied over by value.
            s.execute("CREATE SCHEMA chaos");
            s.execute("CREATE TABLE chaos.orders (id bigint, amount numeric(12,2), qty integer, label text,"
                    + " created_at timestamp(6) without time zone, flag boolean, day date)");
            try (Connection from = databases.connect(databases.source); Statement read = from.createStatement();
                 ResultSet rows = read.executeQuery("SELECT * FROM public.orders");
                 PreparedStatement insert = c.prepareStatement("INSERT INTO chaos.orders VALUES (?, ?, ?, ?, ?, ?, ?)")) {
                while (rows.next()) {
                    for (int column = 1; column <= 7; column++) {
                        insert.setObject(column, rows.getObject(column));
                    }
                    insert.addBatch();
                }
                insert.executeBatch();
            }
        }
        assertThat(compare("2026-01-01")).isEqualTo(new RowComparison(1_000, 1_000, 0, 0));
        assertThat(databases.sourceRows("2026-01-01")).as("rows differ in id at least: no two digests alike")
                .hasSize(1_000);

        try (Connection c = databases.connect(databases.warehouse); Statement s = c.createStatement()) {
            s.execute("DELETE FROM chaos.orders WHERE id IN (1, 2, 3)");
            s.execute("INSERT INTO chaos.orders SELECT * FROM chaos.orders WHERE id BETWEEN 10 AND 14");
            // A changed value, and NULL against the text 'NULL': both a lost row and a foreign one.
            s.execute("UPDATE chaos.orders SET amount = amount + 0.01 WHERE id = 20");
            s.execute("UPDATE chaos.orders SET label = 'NULL' WHERE id = 21 AND label IS NULL");
        }
        assertThat(compare("2026-01-01")).isEqualTo(new RowComparison(1_000, 1_002, 5, 7));
        assertThat(compare("2026-01-02")).as("another day untouched")
                .isEqualTo(new RowComparison(10, 10, 0, 0));
    }

    private RowComparison compare(String day) throws Exception {
        return RowComparison.of(databases.sourceRows(day), databases.targetRows(day));
    }
}

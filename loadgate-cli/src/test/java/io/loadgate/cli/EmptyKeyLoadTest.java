package io.loadgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A business key without source rows: refused with its reason by default, loaded as "nothing" with allow_empty. */
@Timeout(180)
class EmptyKeyLoadTest {
    @TempDir
    static Path dir;
    private static JobFixture fixture;

    @BeforeAll
    static void start() throws Exception {
        fixture = new JobFixture(dir);
    }

    @AfterAll
    static void stop() {
        fixture.close();
    }

    @Test
    void anEmptyKeyIsRefusedWithItsReasonUnlessTheJobAllowsIt() throws Exception {
        Path allowing = fixture.job("EMPTY_ALLOWED", "empty_days", "allow_empty: true");
        Path refusing = fixture.job("EMPTY_REFUSED", "empty_days");
        for (String day : new String[] {"2026-11-28", "2026-11-29"}) {
            var loaded = fixture.run("load", allowing.toString(), "--business-key", day);
            assertThat(loaded.exit()).as(loaded.toString()).isZero();
        }
        assertThat(fixture.rowsByDay("empty_days")).isEqualTo(Map.of("2026-11-28", 1500L, "2026-11-29", 2000L));
        // The source withdraws the 29th: the day is now known to have no rows.
        try (Connection c = fixture.source.connect(); Statement s = c.createStatement()) {
            s.execute("DELETE FROM sales WHERE day = DATE '2026-11-29'");
        }

        var refused = fixture.run("load", refusing.toString(), "--business-key", "2026-11-29");
        assertThat(refused.exit()).as(refused.toString()).isEqualTo(10);
        assertThat(refused.errLines()).as(refused.toString()).singleElement().asString()
                .contains("EMPTY_SOURCE_BLOCKED: the source is empty", "source.allow_empty: true");
        assertThat(fixture.runs("EMPTY_REFUSED",
                " AND status = 'FAILED_MANIFEST' AND error_message LIKE 'EMPTY_SOURCE_BLOCKED: the source is empty%'"))
                .as("the run's error names the violation, not a count").isEqualTo(1);
        assertThat(fixture.rowsByDay("empty_days")).as("a refused plan changes nothing")
                .isEqualTo(Map.of("2026-11-28", 1500L, "2026-11-29", 2000L));

        for (int time = 1; time <= 2; time++) {
            var emptied = fixture.run("load", allowing.toString(), "--business-key", "2026-11-29");
            assertThat(emptied.exit()).as("load %d of the empty day: %s", time, emptied).isZero();
            assertThat(emptied.out()).contains("SUCCESS");
            assertThat(fixture.rowsByDay("empty_days")).as("after load %d of the empty day", time)
                    .isEqualTo(Map.of("2026-11-28", 1500L));
        }
    }

    @Test
    void anEmptyKeyReplacesAWarehousePartitionWithNothing() throws Exception {
        Path job = fixture.warehouseJob("EMPTY_WAREHOUSE", "empty_wh", "allow_empty: true");
        // The first load of the table is of an empty day: the table is made from the source's columns.
        var first = fixture.run("load", job.toString(), "--business-key", "2026-11-25");
        assertThat(first.exit()).as(first.toString()).isZero();
        assertThat(fixture.warehouseRowsByDay("empty_wh")).isEmpty();
        var loaded = fixture.run("load", job.toString(), "--business-key", "2026-11-27");
        assertThat(loaded.exit()).as(loaded.toString()).isZero();
        assertThat(fixture.warehouseRowsByDay("empty_wh")).isEqualTo(Map.of("2026-11-27", 1000L));

        // A day the source has no rows for replaces the key with nothing, and a second load of it changes nothing.
        for (String day : new String[] {"2026-11-26", "2026-11-26"}) {
            var emptied = fixture.run("load", job.toString(), "--business-key", day);
            assertThat(emptied.exit()).as(emptied.toString()).isZero();
            assertThat(emptied.out()).contains("SUCCESS");
        }
        try (Connection c = fixture.source.connect(); Statement s = c.createStatement()) {
            s.execute("UPDATE sales SET day = DATE '2026-11-20' WHERE day = DATE '2026-11-27'");
        }
        try {
            var emptied = fixture.run("load", job.toString(), "--business-key", "2026-11-27");
            assertThat(emptied.exit()).as(emptied.toString()).isZero();
            assertThat(fixture.warehouseRowsByDay("empty_wh")).as("the emptied day's rows are gone").isEmpty();
        } finally {
            try (Connection c = fixture.source.connect(); Statement s = c.createStatement()) {
                s.execute("UPDATE sales SET day = DATE '2026-11-27' WHERE day = DATE '2026-11-20'");
            }
        }
    }
}

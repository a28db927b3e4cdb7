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
        assertThat(fixture.ledger.count("SELECT count(*) FROM loadgate.load_run WHERE job_key = 'EMPTY_REFUSED'"
                + " AND status = 'FAILED_MANIFEST' AND error_message LIKE 'EMPTY_SOURCE_BLOCKED: the source is empty%'"))
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
}

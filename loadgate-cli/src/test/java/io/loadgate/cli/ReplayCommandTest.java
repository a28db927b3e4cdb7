package io.loadgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code loadgate replay}: several keys, one run each, in order; every key checked before the first run. */
@Timeout(180)
class ReplayCommandTest {
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
    void aKeysFileOfThreeDaysLoadsThreePartitions() throws Exception {
        Path job = fixture.job("REPLAY_OK", "replay_ok");
        Path keys = Files.writeString(dir.resolve("days.txt"), """
                # the last three days, oldest first
                2026-11-27

                2026-11-28   # reloaded after the source fix
                2026-11-29
                """);
        var result = fixture.run("replay", job.toString(), "--keys-file", keys.toString());
        assertThat(result.exit()).as(result.toString()).isZero();
        assertThat(result.out().lines().filter(l -> l.matches("2026-11-2[789] .*SUCCESS .*rows")))
                .as(result.toString()).hasSize(6);
        assertThat(result.out()).contains("1,000 rows", "1,500 rows", "2,000 rows",
                "Replayed REPLAY_OK: 3 of 3 business keys succeeded, 0 failed.");
        assertThat(fixture.rowsByDay("replay_ok")).isEqualTo(JobFixture.ROWS_BY_DAY);

        // Replayed again, each run replaces its key's partition: still one copy of each day.
        var again = fixture.run("replay", job.toString(), "--business-key", "2026-11-29", "--business-key",
                "2026-11-27");
        assertThat(again.exit()).as(again.toString()).isZero();
        assertThat(again.out().indexOf("replay 1/2: REPLAY_OK business key 2026-11-29"))
                .isLessThan(again.out().indexOf("replay 2/2: REPLAY_OK business key 2026-11-27"));
        assertThat(fixture.rowsByDay("replay_ok")).isEqualTo(JobFixture.ROWS_BY_DAY);
        assertThat(fixture.runs("REPLAY_OK")).isEqualTo(5);
    }

    @Test
    void aBadOrRepeatedKeyRunsNothing() throws Exception {
        Path job = fixture.job("REPLAY_BAD", "replay_bad");
        Map<String, String> files = Map.of(
                "line 3", "2026-11-27\n# fine so far\nnot a key\n2026-11-29\n",
                "repeats line 1", "2026-11-27\n2026-11-28\n2026-11-27\n",
                "holds no business keys", "# nothing\n\n");
        for (var f : files.entrySet()) {
            Path keys = Files.writeString(dir.resolve("bad.txt"), f.getValue());
            var result = fixture.run("replay", job.toString(), "--keys-file", keys.toString());
            assertThat(result.exit()).as(f.getKey() + "\n" + result).isEqualTo(2);
            assertThat(result.errLines()).as(result.toString()).hasSize(1);
            assertThat(result.err()).contains(f.getKey());
        }
        var both = fixture.run("replay", job.toString(), "--business-key", "2026-11-27", "--keys-file",
                dir.resolve("bad.txt").toString());
        assertThat(both.exit()).as(both.toString()).isEqualTo(2);
        var twice = fixture.run("replay", job.toString(), "--business-key", "2026-11-27", "--business-key",
                "2026-11-27");
        assertThat(twice.exit()).as(twice.toString()).isEqualTo(2);
        var oneDayTwoForms = fixture.run("replay", job.toString(), "--business-key", "2026-11-27", "--business-key",
                "20261127");
        assertThat(oneDayTwoForms.exit()).as(oneDayTwoForms.toString()).isEqualTo(2);
        assertThat(oneDayTwoForms.err()).contains("business keys 2026-11-27 and 20261127 are one value of day");
        var word = fixture.run("replay", job.toString(), "--business-key", "2026-11-27", "--business-key", "yesterday");
        assertThat(word.exit()).as(word.toString()).isEqualTo(2);
        assertThat(word.errLines()).hasSize(1);
        assertThat(word.err()).contains("business key 'yesterday' is not a date");
        assertThat(fixture.runs("REPLAY_BAD")).isZero();
        assertThat(fixture.table("replay_bad")).isNull();
    }

    @Test
    void theFirstFailureStopsTheReplayUnlessKeepGoing() throws Exception {
        Path job = fixture.job("REPLAY_BUSY", "replay_busy");
        fixture.activeRun("REPLAY_BUSY", "2026-11-28");
        String[] keys = {"--business-key", "2026-11-27", "--business-key", "2026-11-28", "--business-key", "2026-11-29"};

        var stopped = fixture.run(concat(new String[] {"replay", job.toString()}, keys));
        assertThat(stopped.exit()).as(stopped.toString()).isEqualTo(RunOutcome.ACTIVE_RUN_EXISTS);
        assertThat(stopped.out()).contains("NOT STARTED", "1 of 3 business keys succeeded, 1 failed, 1 not run")
                .doesNotContain("replay 3/3");
        assertThat(fixture.rowsByDay("replay_busy")).containsOnlyKeys("2026-11-27");

        var kept = fixture.run(concat(new String[] {"replay", job.toString(), "--keep-going"}, keys));
        assertThat(kept.exit()).as(kept.toString()).isEqualTo(RunOutcome.ACTIVE_RUN_EXISTS);
        assertThat(kept.out()).contains("2 of 3 business keys succeeded, 1 failed.");
        assertThat(fixture.rowsByDay("replay_busy")).containsOnlyKeys("2026-11-27", "2026-11-29");
    }

    private static String[] concat(String[] a, String[] b) {
        String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}

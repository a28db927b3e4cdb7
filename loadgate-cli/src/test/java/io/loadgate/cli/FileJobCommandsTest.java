package io.loadgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.api.BusinessKey;
import io.loadgate.server.metrics.LedgerGauges;
import io.loadgate.worker.ledger.HttpLedgerClient;
import io.loadgate.worker.ledger.LedgerClientConfig;
import io.loadgate.worker.ledger.LedgerToken;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The commands of a file job (Thrive's phases): {@code load} without a key (the watermark of loaded directories, late
 * directories, loads that run at once or are killed), {@code replay --dirs-file} and {@code rollback
 * --partitions-file}, on real files, the real ledger and an Iceberg table.
 */
@Timeout(600)
class FileJobCommandsTest {
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

    /** {@code count} lines {@code {"id": n}} from {@code first} in {@code root/directory/part-0.json}. */
    static void lines(Path root, String directory, long first, int count) throws IOException {
        Files.createDirectories(root.resolve(directory));
        StringBuilder text = new StringBuilder();
        for (long id = first; id < first + count; id++) {
            text.append("{\"id\": ").append(id).append("}\n");
        }
        Files.writeString(root.resolve(directory).resolve("part-0.json"), text);
    }

    /** The run each key's summary line names. */
    private static Map<String, String> keyRuns(String out) {
        Map<String, String> runs = new java.util.TreeMap<>();
        var m = java.util.regex.Pattern.compile("(?m)^(2026-11-30T[0-9]{2}) +([0-9a-f-]{36}) ").matcher(out);
        while (m.find()) {
            runs.put(m.group(1), m.group(2));
        }
        return runs;
    }

    @Test
    void loadsTheDueHoursOldestFirstThenOnlyALateDirectorysHour() throws Exception {
        Path root = dir.resolve("drops-late");
        lines(root, "d_20261130-1500", 100, 2);
        lines(root, "d_20261130-1400", 0, 3);
        lines(root, "d_20261130-1410", 10, 4);
        // Created by Camus, not filled yet: carries nothing and makes no key due.
        Files.createDirectories(root.resolve("d_20261130-1600"));
        Path job = fixture.fileJob("FILES_LATE", "files_late", root);

        var first = fixture.run("load", job.toString());

        assertThat(first.exit()).as(first.toString()).isZero();
        assertThat(first.out().indexOf("load 1/2: FILES_LATE business key 2026-11-30T14"))
                .as(first.toString()).isPositive()
                .isLessThan(first.out().indexOf("load 2/2: FILES_LATE business key 2026-11-30T15"));
        assertThat(first.out()).contains("Loaded FILES_LATE: 2 of 2 due keys loaded, 0 failed, 0 skipped.");
        assertThat(fixture.rowsBy("files_late", "load_key")).isEqualTo(Map.of("2026-11-30T14", 7L,
                "2026-11-30T15", 2L));

        var again = fixture.run("load", job.toString());
        assertThat(again.exit()).as(again.toString()).isZero();
        assertThat(again.out()).contains("Nothing to load for FILES_LATE: every due directory is loaded.");
        assertThat(fixture.runs("FILES_LATE")).isEqualTo(2);

        // A late directory of 14:00 and the 16:00 directory filled: both hours due, 14:00 replaced whole.
        lines(root, "d_20261130-1450", 20, 5);
        lines(root, "d_20261130-1600", 200, 1);
        var lateLoad = fixture.run("load", job.toString());

        String late = lateLoad.out();
        assertThat(lateLoad.exit()).as(lateLoad.toString()).isZero();
        assertThat(late).contains("business key 2026-11-30T14 (late: d_20261130-1450",
                "Loaded FILES_LATE: 2 of 2 due keys loaded, 0 failed, 0 skipped, 1 late directories caught.");
        assertThat(late.lines().filter(l -> l.startsWith("2026-11-30T14 ") && l.endsWith("late: d_20261130-1450")))
                .as(late).isNotEmpty();
        assertThat(late).doesNotContain("2026-11-30T15 ");
        // The ledger counted it with the SUCCESS: its /metrics has loadgate_late_directories_total{job_key}.
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (LedgerGauges gauges = LedgerGauges.start(fixture.ledger.ledger.views(), registry,
                Duration.ofMillis(100))) {
            Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(registry
                    .find("loadgate_late_directories").tag("job_key", "FILES_LATE").functionCounter())
                    .isNotNull().satisfies(c -> assertThat(c.count()).isEqualTo(1.0)));
        }
        assertThat(fixture.rowsBy("files_late", "load_key")).as("nothing lost, nothing doubled")
                .isEqualTo(Map.of("2026-11-30T14", 12L, "2026-11-30T15", 2L, "2026-11-30T16", 1L));
        var client = HttpLedgerClient.create(LedgerClientConfig.builder(fixture.ledger.baseUrl(),
                LedgerToken.of(fixture.ledger.workerToken)).build());
        assertThat(client.loadedDirectories("FILES_LATE")).filteredOn(k -> k.businessKey().equals(BusinessKey.of("2026-11-30T14")))
                .singleElement().satisfies(k -> assertThat(k.directories())
                        .containsExactly("d_20261130-1400", "d_20261130-1410", "d_20261130-1450"));
    }

    @Test
    void aTableJobStillNeedsItsKey() throws Exception {
        var result = fixture.run("load", fixture.job("FILES_TABLE", "files_table").toString());
        assertThat(result.exit()).as(result.toString()).isEqualTo(2);
        assertThat(result.errLines()).as(result.toString()).hasSize(1);
        assertThat(result.err()).contains("Missing required option: '--business-key=KEY'");
        assertThat(fixture.runs("FILES_TABLE")).isZero();
    }

    @Test
    void twoLoadsAtOnceLoadEveryHourOnceAndAKilledLoadLeavesNothingLocked() throws Exception {
        Path root = dir.resolve("drops-race");
        for (int hour = 10; hour < 14; hour++) {
            lines(root, "d_20261130-" + hour + "00", hour * 100L, 10);
        }
        Path job = fixture.fileJob("FILES_RACE", "files_race", root);
        String[] load = {"load", job.toString(), "--ledger", fixture.ledger.baseUrl(), "--token-file",
                fixture.tokens.toString()};
        Path home = dir.resolve("unused-home");
        CliProcess a = CliProcess.start(dir, home, load);
        CliProcess b = CliProcess.start(dir, home, load);

        assertThat(a.exit()).as(a.toString()).isZero();
        assertThat(b.exit()).as(b.toString()).isZero();
        assertThat(fixture.runs("FILES_RACE", " AND status = 'SUCCESS'")).as(a + "\n" + b).isEqualTo(4);
        assertThat(fixture.runs("FILES_RACE")).as("no run of a key twice\n" + a + "\n" + b).isEqualTo(4);
        // A key both loads reached is one run: the second followed the first's (its create came back idempotent).
        Map<String, String> runOfA = keyRuns(a.stdout());
        keyRuns(b.stdout()).forEach((key, run) -> {
            if (runOfA.containsKey(key)) {
                assertThat(run).as(key + "\n" + a + "\n" + b).isEqualTo(runOfA.get(key));
            }
        });
        assertThat(fixture.rowsBy("files_race", "load_key")).isEqualTo(Map.of("2026-11-30T10", 10L,
                "2026-11-30T11", 10L, "2026-11-30T12", 10L, "2026-11-30T13", 10L));

        // Two more hours; the load is killed (SIGKILL: no handler runs) once its first run exists.
        lines(root, "d_20261130-1400", 1400, 10);
        lines(root, "d_20261130-1500", 1500, 10);
        CliProcess killed = CliProcess.start(dir, home, load);
        Awaitility.await().atMost(Duration.ofSeconds(120)).until(() -> killed.runId() != null
                || !killed.process().isAlive());
        killed.signal("KILL");
        killed.process().waitFor();
        var after = fixture.run("load", job.toString());
        assertThat(after.exit()).as(killed + "\n" + after).isZero();
        // The killed load's run went on in the workers; once it ended, nothing is due and nothing is held.
        Awaitility.await().atMost(Duration.ofSeconds(120)).until(() -> fixture.runs("FILES_RACE",
                " AND completed_at IS NULL") == 0);
        var last = fixture.run("load", job.toString());
        assertThat(last.exit()).as(last.toString()).isZero();
        assertThat(last.out()).as(killed + "\n" + after + "\n" + last).contains("Nothing to load for FILES_RACE");
        String all = killed + "\n" + after + "\n" + last + "\n" + fixture.ledger.get("/v1/runs?jobKey=FILES_RACE").body();
        assertThat(fixture.runs("FILES_RACE", " AND status = 'SUCCESS'")).as(all).isEqualTo(6);
        assertThat(fixture.runs("FILES_RACE")).as(all).isEqualTo(6);
        assertThat(fixture.rowsBy("files_race", "load_key")).containsEntry("2026-11-30T14", 10L)
                .containsEntry("2026-11-30T15", 10L).hasSize(6);
    }

    @Test
    void replayTakesThrivesReplaydirsAndRollbackItsPartitionsFileBothRefusedWhileAKeyIsActive() throws Exception {
        Path root = dir.resolve("drops-thrive");
        lines(root, "d_20261130-0100", 0, 3);
        lines(root, "d_20261130-0110", 10, 2);
        lines(root, "d_20261130-0200", 20, 4);
        lines(root, "d_20261130-0300", 30, 1);
        Path job = fixture.fileJob("FILES_THRIVE", "files_thrive", root);
        assertThat(fixture.run("load", job.toString()).exit()).isZero();
        Map<String, Long> all = Map.of("2026-11-30T01", 5L, "2026-11-30T02", 4L, "2026-11-30T03", 1L);
        assertThat(fixture.rowsBy("files_thrive", "load_key")).isEqualTo(all);
        Path dirs = Files.writeString(dir.resolve("replaydirs.txt"), """
                d_20261130-0200
                # the source resent these
                d_20261130-0110
                d_20261130-0110
                """);
        Path partitions = Files.writeString(dir.resolve("partitions.txt"), "2026/11/30/03\n2015/10/03/19\n"
                + "2026/11/30/01\n");

        // A run of 02:00 is active: neither file is taken, and nothing runs.
        String busyRun = fixture.activeRun("FILES_THRIVE", "2026-11-30T02");
        var replayRefused = fixture.run("replay", job.toString(), "--dirs-file", dirs.toString());
        Files.writeString(dir.resolve("busy.txt"), "2026/11/30/03\n2026/11/30/02\n");
        var rollbackRefused = fixture.run("rollback", job.toString(), "--partitions-file", dir.resolve("busy.txt")
                .toString(), "--reason", "source resent the hour", "--yes");

        assertThat(replayRefused.exit()).as(replayRefused.toString()).isEqualTo(RunOutcome.ACTIVE_RUN_EXISTS);
        assertThat(replayRefused.errLines()).as(replayRefused.toString()).hasSize(1);
        assertThat(replayRefused.err()).contains("active run " + busyRun, "2026-11-30T02");
        assertThat(replayRefused.out()).doesNotContain("== replay");
        assertThat(rollbackRefused.exit()).as(rollbackRefused.toString()).isEqualTo(RunOutcome.ACTIVE_RUN_EXISTS);
        assertThat(rollbackRefused.errLines()).as(rollbackRefused.toString()).hasSize(1);
        assertThat(fixture.runs("FILES_THRIVE")).isEqualTo(4);
        assertThat(fixture.rowsBy("files_thrive", "load_key")).as("03:00 not rolled back").isEqualTo(all);
        assertThat(fixture.ledger.send("POST", "/v1/runs/" + busyRun + "/cancel",
                Map.of("reason", "made by the test"), fixture.ledger.operatorToken).status()).isEqualTo(200);

        var missing = fixture.run("replay", job.toString(), "--dirs-file", Files.writeString(
                dir.resolve("missing.txt"), "d_20261130-0100\nd_20261130-0500\n").toString());
        assertThat(missing.exit()).as(missing.toString()).isEqualTo(2);
        assertThat(missing.errLines()).hasSize(1);
        assertThat(missing.err()).contains("d_20261130-0500 is not a due directory");
        var replayed = fixture.run("replay", job.toString(), "--dirs-file", dirs.toString());

        assertThat(replayed.exit()).as(replayed.toString()).isZero();
        assertThat(replayed.out()).contains("replay 1/2: FILES_THRIVE business key 2026-11-30T01 (for d_20261130-0110)",
                "replay 2/2: FILES_THRIVE business key 2026-11-30T02 (for d_20261130-0200)",
                "Replayed FILES_THRIVE: 2 of 2 business keys succeeded, 0 failed.");
        assertThat(fixture.runs("FILES_THRIVE", " AND status = 'SUCCESS'")).isEqualTo(5);
        assertThat(fixture.rowsBy("files_thrive", "load_key")).as("replaced, not doubled").isEqualTo(all);

        var badLine = fixture.run("rollback", job.toString(), "--partitions-file", Files.writeString(
                dir.resolve("bad.txt"), "2026/11/30/01\nyesterday\n").toString(), "--reason", "source resent it",
                "--yes");
        assertThat(badLine.exit()).as(badLine.toString()).isEqualTo(2);
        assertThat(badLine.err()).contains("line 2");
        var rolledBack = fixture.run("rollback", job.toString(), "--partitions-file", partitions.toString(),
                "--reason", "source resent the hours", "--yes");

        assertThat(rolledBack.exit()).as(rolledBack.toString()).isZero();
        assertThat(rolledBack.out()).contains("Business key 2015-10-03T19 has no rows in",
                "nothing to roll back", "ROLLED_BACK on run");
        assertThat(rolledBack.out().indexOf("2015-10-03T19")).as("oldest first")
                .isLessThan(rolledBack.out().indexOf("Removed"));
        assertThat(fixture.rowsBy("files_thrive", "load_key")).isEqualTo(Map.of("2026-11-30T02", 4L));
        // A rolled-back hour keeps its directories loaded: the hourly load does not bring it back.
        var after = fixture.run("load", job.toString());
        assertThat(after.out()).as(after.toString()).contains("Nothing to load for FILES_THRIVE");
    }
}

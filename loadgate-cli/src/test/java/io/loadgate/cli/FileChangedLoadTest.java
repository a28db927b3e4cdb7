package io.loadgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 11: a file changed inside a directory its key already loaded makes the key due again, as a new directory
 * does: the latest SUCCESS's manifest holds every file's length and modification time, and the keyless load compares
 * them with the files as they are. Real files, the real ledger and workers, an Iceberg table.
 */
@Timeout(600)
class FileChangedLoadTest {
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
    void anAppendedOrTouchedFileMakesItsHourDueAndTheLoadSaysWhich() throws Exception {
        Path root = dir.resolve("drops-changed");
        FileJobCommandsTest.lines(root, "d_20261130-1400", 0, 3);
        FileJobCommandsTest.lines(root, "d_20261130-1500", 100, 2);
        Path job = fixture.fileJob("FILES_CHANGED", "files_changed", root);
        var first = fixture.run("load", job.toString());
        assertThat(first.exit()).as(first.toString()).isZero();
        assertThat(fixture.rowsBy("files_changed", "load_key")).isEqualTo(Map.of("2026-11-30T14", 3L,
                "2026-11-30T15", 2L));

        Path fourteen = root.resolve("d_20261130-1400/part-0.json");
        Files.writeString(fourteen, "{\"id\": 3}\n", StandardOpenOption.APPEND);
        var appended = fixture.run("load", job.toString());

        assertThat(appended.exit()).as(appended.toString()).isZero();
        assertThat(appended.out()).as(appended.toString())
                .contains("business key 2026-11-30T14 (changed: d_20261130-1400/part-0.json")
                .contains("Loaded FILES_CHANGED: 1 of 1 due keys loaded")
                .doesNotContain("business key 2026-11-30T15");
        assertThat(appended.out().lines().filter(l -> l.startsWith("2026-11-30T14 ")
                && l.endsWith("changed: d_20261130-1400/part-0.json"))).as(appended.toString()).isNotEmpty();
        assertThat(fixture.rowsBy("files_changed", "load_key")).as("the hour replaced, nothing doubled")
                .isEqualTo(Map.of("2026-11-30T14", 4L, "2026-11-30T15", 2L));

        // The same bytes, another time (touch): the data may differ, so the hour is read again.
        Path fifteen = root.resolve("d_20261130-1500/part-0.json");
        Files.setLastModifiedTime(fifteen, FileTime.fromMillis(Files.getLastModifiedTime(fifteen).toMillis() - 60_000));
        var touched = fixture.run("load", job.toString());
        assertThat(touched.exit()).as(touched.toString()).isZero();
        assertThat(touched.out()).as(touched.toString())
                .contains("business key 2026-11-30T15 (changed: d_20261130-1500/part-0.json")
                .doesNotContain("business key 2026-11-30T14");

        // A file added beside the loaded ones; then nothing changed, nothing due.
        Files.writeString(root.resolve("d_20261130-1500/part-1.json"), "{\"id\": 200}\n");
        var added = fixture.run("load", job.toString());
        assertThat(added.out()).as(added.toString()).contains("(changed: d_20261130-1500/part-1.json");
        var again = fixture.run("load", job.toString());
        assertThat(again.exit()).as(again.toString()).isZero();
        assertThat(again.out()).as(again.toString()).contains("Nothing to load for FILES_CHANGED");
        assertThat(fixture.rowsBy("files_changed", "load_key")).isEqualTo(Map.of("2026-11-30T14", 4L,
                "2026-11-30T15", 3L));
    }
}

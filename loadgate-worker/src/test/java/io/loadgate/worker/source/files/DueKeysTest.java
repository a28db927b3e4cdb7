package io.loadgate.worker.source.files;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.api.BusinessKey;
import io.loadgate.api.LoadedKey;
import io.loadgate.api.RunId;
import io.loadgate.worker.job.FileGrouping;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.List;
import java.util.UUID;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;

/** Which keys of a file job are due, from the listing and the ledger's loaded directories. */
class DueKeysTest {
    private static FileSource.SourceDirectory directory(String name, int files) {
        List<FileStatus> statuses = new java.util.ArrayList<>();
        for (int i = 0; i < files; i++) {
            statuses.add(new FileStatus(10, false, 1, 10, 0, new Path("/drops/" + name + "/part-" + i + ".json")));
        }
        return new FileSource.SourceDirectory(name, CamusLayout.time(name).orElseThrow(), statuses);
    }

    private static LoadedKey loaded(String key, String... directories) {
        return new LoadedKey(BusinessKey.of(key), new RunId(UUID.randomUUID()), Instant.EPOCH, List.of(directories),
                List.of());
    }

    /** Files {@code name/part-i.json} of length 10 and modification time 0, as {@link #directory} lists them. */
    private static List<LoadedKey.LoadedFile> files(String name, int files) {
        List<LoadedKey.LoadedFile> loaded = new java.util.ArrayList<>();
        for (int i = 0; i < files; i++) {
            loaded.add(new LoadedKey.LoadedFile(name + "/part-" + i + ".json", 10, 0));
        }
        return loaded;
    }

    @Test
    void keysNeverLoadedAreDueOldestFirstAndEmptyDirectoriesDecideNothing() {
        List<DueKeys.DueKey> due = DueKeys.of(FileGrouping.HOUR, List.of(directory("d_20261130-1400", 1),
                directory("d_20261130-1410", 2), directory("d_20261130-1500", 1), directory("d_20261130-1600", 0)),
                List.of(loaded("2026-11-30T15", "d_20261130-1500")));

        assertThat(due).singleElement().satisfies(k -> {
            assertThat(k.key()).isEqualTo(FileKey.of(FileGrouping.HOUR, LocalDateTime.of(2026, 11, 30, 14, 0)));
            assertThat(k.directories()).containsExactly("d_20261130-1400", "d_20261130-1410");
            assertThat(k.late()).isEmpty();
        });
    }

    @Test
    void aDirectoryTheKeysLatestSuccessDidNotLoadIsLateAndTheKeyLoadsWhole() {
        List<DueKeys.DueKey> due = DueKeys.of(FileGrouping.DAY, List.of(directory("d_20261129-2350", 1),
                directory("d_20261130-0000", 1), directory("d_20261130-2350", 1)),
                List.of(loaded("2026-11-29", "d_20261129-2350"), loaded("2026-11-30", "d_20261130-0000")));

        assertThat(due).singleElement().satisfies(k -> {
            assertThat(k.key().toString()).isEqualTo("2026-11-30");
            assertThat(k.directories()).containsExactly("d_20261130-0000", "d_20261130-2350");
            assertThat(k.late()).containsExactly("d_20261130-2350");
        });
    }

    @Test
    void aFileAddedRemovedOrChangedInALoadedDirectoryMakesItsKeyDueAndAGoneDirectoryDoesNot() {
        List<LoadedKey.LoadedFile> read = new java.util.ArrayList<>(files("d_20261130-1400", 2));
        read.addAll(files("d_20261130-1410", 1));
        read.addAll(files("d_20261130-1420", 1));
        LoadedKey fourteen = new LoadedKey(BusinessKey.of("2026-11-30T14"), new RunId(UUID.randomUUID()),
                Instant.EPOCH, List.of("d_20261130-1400", "d_20261130-1410", "d_20261130-1420"), read);

        assertThat(DueKeys.of(FileGrouping.HOUR, List.of(directory("d_20261130-1400", 2),
                directory("d_20261130-1410", 1)), List.of(fourteen))).as("d_20261130-1420 gone: retention").isEmpty();
        assertThat(DueKeys.of(FileGrouping.HOUR, List.of(directory("d_20261130-1400", 2), directory("d_20261130-1410", 1),
                directory("d_20261130-1420", 0)), List.of(fourteen))).as("d_20261130-1420 emptied: as if gone").isEmpty();
        assertThat(DueKeys.of(FileGrouping.HOUR, List.of(directory("d_20261130-1400", 0), directory("d_20261130-1410", 0),
                directory("d_20261130-1420", 0)), List.of(fourteen))).as("every directory emptied").isEmpty();

        FileSource.SourceDirectory changed = new FileSource.SourceDirectory("d_20261130-1400",
                LocalDateTime.of(2026, 11, 30, 14, 0), List.of(
                        new FileStatus(11, false, 1, 10, 0, new Path("/drops/d_20261130-1400/part-0.json")),
                        new FileStatus(10, false, 1, 10, 5, new Path("/drops/d_20261130-1400/part-1.json")),
                        new FileStatus(10, false, 1, 10, 0, new Path("/drops/d_20261130-1400/part-2.json"))));
        FileSource.SourceDirectory emptied = new FileSource.SourceDirectory("d_20261130-1410",
                LocalDateTime.of(2026, 11, 30, 14, 10), List.of(
                        new FileStatus(10, false, 1, 10, 0, new Path("/drops/d_20261130-1410/part-9.json"))));
        assertThat(DueKeys.of(FileGrouping.HOUR, List.of(changed, emptied), List.of(fourteen))).singleElement()
                .satisfies(k -> {
                    assertThat(k.late()).isEmpty();
                    assertThat(k.directories()).containsExactly("d_20261130-1400", "d_20261130-1410");
                    assertThat(k.changed()).as("longer, touched, added; removed and added").containsExactly(
                            "d_20261130-1400/part-0.json", "d_20261130-1400/part-1.json",
                            "d_20261130-1400/part-2.json", "d_20261130-1410/part-0.json",
                            "d_20261130-1410/part-9.json");
                });
    }
}

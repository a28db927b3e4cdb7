package io.loadgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code loadgate demo files}, as bin/loadgate runs it: a child process on its own home. */
@Timeout(900)
class DemoFilesTest {
    @TempDir
    Path dir;

    @Test
    void theFileDemoLoadsThreeHoursCatchesTheLateDirectoryAndReadsTheRowsBack() throws Exception {
        CliProcess demo = CliProcess.start(dir, dir.resolve("home"), "demo", "files", "--day", "2026-11-29");

        assertThat(demo.exit()).as(demo.toString()).isZero();
        assertThat(demo.stdout()).as(demo.toString())
                .contains("Loaded DEMO_EVENTS: 3 of 3 due keys loaded, 0 failed, 0 skipped.")
                .contains("business key 2026-11-29T10 (late: d_20261129-1050")
                .contains("Loaded DEMO_EVENTS: 1 of 1 due keys loaded, 0 failed, 0 skipped, 1 late directories caught.")
                // Six directories of 50 lines an hour, the malformed line kept aside.
                .contains("  2026-11-29T10  300 rows", "  2026-11-29T11  300 rows", "  2026-11-29T12  300 rows");
    }
}

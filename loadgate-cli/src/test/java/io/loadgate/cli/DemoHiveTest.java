package io.loadgate.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code loadgate demo --target hive}, as bin/loadgate runs it: a child process on an empty home, which starts a Hive
 * Metastore in a JVM of its own and must leave none behind, whether it ends or is killed.
 */
@Timeout(900)
class DemoHiveTest {
    private static final Pattern METASTORE = Pattern.compile("Hive Metastore \\(pid (\\d+)\\) serving thrift://");

    @TempDir
    Path dir;

    @Test
    void theHiveDemoLoadsIntoItsMetastoreReadsTheRowsBackAndStopsTheMetastore() throws Exception {
        Instant started = Instant.now();
        CliProcess demo = CliProcess.start(dir, dir.resolve("home"), "demo", "--target", "hive", "--rows", "3000",
                "--partitions", "2", "--business-key", "2026-11-29");

        // The metastore's JVM starts in seconds on an idle machine, in a minute or more on a busy one.
        assertThat(demo.exit(Duration.ofMinutes(10))).as(demo.toString()).isZero();
        System.out.println("demo --target hive took " + Duration.between(started, Instant.now()).toMillis() + " ms");
        assertThat(demo.stdout()).as(demo.toString())
                .contains("Hive table lake.orders, partition dt=2026-11-29: 3,000 rows (read with parquet-java")
                .contains("SUCCESS");
        long metastore = metastorePid(demo).orElseThrow(() -> new AssertionError("no metastore pid\n" + demo));
        assertThat(ProcessHandle.of(metastore).filter(ProcessHandle::isAlive)).as("the metastore JVM, pid "
                + metastore + ", once the demo has exited").isEmpty();
    }

    @Test
    void aKilledDemoTakesItsMetastoreWithIt() throws Exception {
        Path home = dir.resolve("killed");
        CliProcess demo = CliProcess.start(dir, home, "demo", "--target", "hive", "--rows", "3000");
        await().atMost(Duration.ofMinutes(5)).until(() -> metastorePid(demo).isPresent() || !demo.process().isAlive());
        long metastore = metastorePid(demo).orElseThrow(() -> new AssertionError("no metastore pid\n" + demo));
        try {
            demo.signal("KILL");
            demo.process().waitFor();
            // The metastore reads its standard input, whose pipe the killed demo's end closed.
            await().atMost(Duration.ofMinutes(1)).until(() -> ProcessHandle.of(metastore)
                    .filter(ProcessHandle::isAlive).isEmpty());
        } finally {
            stopEmbeddedPostgres(home);
        }
    }

    @Test
    void anUnknownTargetIsOneLineAndAUsageExitBeforeAnyWork() throws Exception {
        Path home = dir.resolve("nosuch");
        CliProcess demo = CliProcess.start(dir, home, "demo", "--target", "nosuch");

        assertThat(demo.exit()).as(demo.toString()).isEqualTo(2);
        assertThat(demo.stderr().strip()).isEqualTo("loadgate: --target must be iceberg or hive, not 'nosuch'");
        assertThat(home).as("no home made, no PostgreSQL started").doesNotExist();
    }

    private static Optional<Long> metastorePid(CliProcess demo) {
        Matcher m = METASTORE.matcher(demo.stdout());
        return m.find() ? Optional.of(Long.parseLong(m.group(1))) : Optional.empty();
    }

    /**
     * A killed demo leaves its embedded PostgreSQL (a server of its own) running: the postmaster's pid file says. It is
     * waited for, so that the temporary directory is not deleted while the server still writes into it (a delete that
     * failed on {@code pg_multixact}, 2026-12-06).
     */
    private static void stopEmbeddedPostgres(Path home) throws Exception {
        Path pidFile = home.resolve("pg").resolve("postmaster.pid");
        if (Files.exists(pidFile)) {
            List<String> lines = Files.readAllLines(pidFile);
            Optional<ProcessHandle> postmaster = ProcessHandle.of(Long.parseLong(lines.get(0).strip()));
            if (postmaster.isPresent()) {
                // SIGTERM: a smart shutdown, which ends once the killed demo's connections have gone.
                postmaster.get().destroy();
                try {
                    postmaster.get().onExit().get(1, TimeUnit.MINUTES);
                } catch (TimeoutException e) {
                    postmaster.get().destroyForcibly();
                    postmaster.get().onExit().get(1, TimeUnit.MINUTES);
                }
            }
        }
    }
}

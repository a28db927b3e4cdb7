package io.loadgate.worker.target.hive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loadgate.worker.job.HivePartitioning;
import io.loadgate.worker.job.HivePublishMode;
import io.loadgate.worker.job.HiveServer2Spec;
import io.loadgate.worker.job.HiveSpec;
import io.loadgate.worker.job.SchemaPolicy;
import io.loadgate.worker.job.TargetSpec;
import io.loadgate.worker.target.TargetException;
import io.loadgate.worker.testing.StagedRuns;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.apache.commons.cli.Options;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The check before a run refuses, in one line naming the key, a {@code jdbc_driver_path} that holds no Hive JDBC
 * driver, before anything is asked of the metastore or HiveServer2.
 */
class HiveServer2ConnectorTest {
    @TempDir
    Path dir;

    private static HiveTarget target(String driverPath) {
        HiveServer2Spec server = new HiveServer2Spec("jdbc:hive2://127.0.0.1:1/default;auth=noSasl", null, null,
                driverPath);
        TargetSpec spec = new TargetSpec("loader.orders", "order_date", null, null, SchemaPolicy.EXACT,
                new HiveSpec("thrift://127.0.0.1:1", Map.of(), HivePartitioning.DT, HivePublishMode.INSERT_OVERWRITE,
                        server));
        return new HiveTarget("job", spec, () -> {
            throw new AssertionError("the metastore is not asked before the driver loads");
        }, new Configuration(false), Set.of(), HiveServer2Connector.of(server, Map.of()));
    }

    @Test
    void aDriverPathWithoutHivesDriverIsRefusedAtCheckTimeInOneLine() throws Exception {
        String aJarWithoutIt = Path.of(Options.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .toString();
        Path empty = Files.createDirectories(dir.resolve("empty"));
        for (String path : new String[] {aJarWithoutIt, empty.toString(), dir.resolve("absent.jar").toString()}) {
            assertThatThrownBy(() -> target(path).check(StagedRuns.ORDERS))
                    .isInstanceOf(TargetException.class)
                    .hasMessageContaining("target.hive.hiveserver2.jdbc_driver_path " + path)
                    .satisfies(e -> assertThat(e.getMessage()).as("one line").doesNotContain("\n"));
        }
        assertThatThrownBy(() -> target(aJarWithoutIt).check(StagedRuns.ORDERS))
                .hasMessageContaining("holds no loadable org.apache.hive.jdbc.HiveDriver: ClassNotFoundException");
    }

    @Test
    void theDriverIsLoadedApartFromTheWorkersClassPath() throws Exception {
        String standalone = System.getProperty("loadgate.hive.jdbc.standalone");
        org.junit.jupiter.api.Assumptions.assumeTrue(standalone != null && Files.isRegularFile(Path.of(standalone)),
                "no hive-jdbc standalone jar in the local Maven repository");
        java.sql.Driver driver = HiveServer2Connector.driver(standalone);

        assertThat(driver.getClass().getName()).isEqualTo(HiveServer2Connector.DRIVER_CLASS);
        assertThat(driver.getClass().getClassLoader().loadClass(Configuration.class.getName()))
                .as("its own unshaded Hadoop, not the worker's shaded client").isNotSameAs(Configuration.class);
        assertThat(driver.getClass().getClassLoader().getParent()).isSameAs(ClassLoader.getPlatformClassLoader());
        assertThatThrownBy(() -> target(standalone).check(StagedRuns.ORDERS))
                .as("loaded, it is asked to connect, which nothing on port 1 answers")
                .isInstanceOf(TargetException.class)
                .hasMessageStartingWith("target.hive.hiveserver2 jdbc:hive2://127.0.0.1:1/default;... cannot be used:")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }
}

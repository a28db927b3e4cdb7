package io.loadgate.worker.target.hive;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/**
 * A Hive Metastore 4.0.1 and an HDFS minicluster for the tests, in a JVM of their own ({@link HiveMetastoreProcess},
 * started as {@link HiveMetastoreChild} starts the demo's) so that a test may also run the ledger: the metastore
 * server links Jetty 9 (for an HTTP mode Loadgate does not use), the ledger Jetty 12, and the two cannot share a class
 * path. Started once per test JVM on first use; ends when this JVM does (its standard input closes).
 */
public final class HiveMetastoreFixture {
    private static final Duration START_LIMIT = Duration.ofMinutes(3);
    private static HiveMetastoreFixture shared;

    /** A client configuration of the fixture's HDFS: {@code fs.defaultFS} is its name node. */
    public final Configuration hadoop;
    public final String metastoreUri;
    public final Duration startup;
    private final String hdfsUri;

    private HiveMetastoreFixture(Configuration hadoop, String hdfsUri, String metastoreUri, Duration startup) {
        this.hadoop = hadoop;
        this.hdfsUri = hdfsUri;
        this.metastoreUri = metastoreUri;
        this.startup = startup;
    }

    public static synchronized HiveMetastoreFixture shared() {
        if (shared == null) {
            try {
                shared = start();
            } catch (Exception e) {
                throw new IllegalStateException("cannot start the test metastore: " + e.getMessage(), e);
            }
        }
        return shared;
    }

    /** {@code hdfs://localhost:port}: where the fixture's tables and staging live. */
    public String hdfsUri() {
        return hdfsUri;
    }

    private static HiveMetastoreFixture start() throws Exception {
        Path base = Files.createTempDirectory("loadgate-hms");
        Path lib = Path.of(property("loadgate.metastore.lib"));
        HiveMetastoreChild child = HiveMetastoreChild.start(lib, HiveMetastoreProcess.class.getName(),
                List.of(base.toString(), HiveMetastoreChild.scriptsHome(lib).toString()), Map.of(), base,
                START_LIMIT);
        Configuration hadoop = new Configuration();
        hadoop.set("fs.defaultFS", child.defaultFs());
        return new HiveMetastoreFixture(hadoop, child.defaultFs(), child.metastoreUri(), child.startup());
    }

    private static String property(String name) {
        String value = System.getProperty(name);
        if (value == null) {
            throw new IllegalStateException("system property " + name + " is not set (Maven's surefire sets it)");
        }
        return value;
    }
}

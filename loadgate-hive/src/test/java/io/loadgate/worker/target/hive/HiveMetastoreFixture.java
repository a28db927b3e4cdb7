package io.loadgate.worker.target.hive;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;

/**
 * A Hive Metastore 4.0.1 and an HDFS minicluster for the tests, in a JVM of their own ({@link HiveMetastoreProcess})
 * so that a test may also run the ledger: the metastore server links Jetty 9 (for an HTTP mode Loadgate does not
 * use), the ledger Jetty 12, and the two cannot share a class path. The child runs on this module's test class path
 * with Jetty 12 taken out and the Jetty 9 jars Maven copies to {@code loadgate.hms.jetty9} put in. Started once per
 * test JVM on first use; ends when this JVM does (its standard input closes, and a shutdown hook stops it).
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
        Instant started = Instant.now();
        Path base = Files.createTempDirectory("loadgate-hms");
        Path ready = base.resolve("ready");
        Path log = base.resolve("metastore.log");
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-Dloadgate.hms.home=" + property("loadgate.hms.home"), "-cp", childClassPath(),
                HiveMetastoreProcess.class.getName(), ready.toString(), base.toString());
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroy, "hms-process-stop"));
        Instant deadline = started.plus(START_LIMIT);
        while (!Files.exists(ready)) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the metastore JVM exited " + process.exitValue() + "; its log "
                        + log + " ends: " + tail(log));
            }
            if (Instant.now().isAfter(deadline)) {
                process.destroy();
                throw new IllegalStateException("the metastore JVM did not serve within " + START_LIMIT
                        + "; its log " + log + " ends: " + tail(log));
            }
            Thread.sleep(100);
        }
        List<String> uris = Files.readAllLines(ready);
        Configuration hadoop = new Configuration();
        hadoop.set("fs.defaultFS", uris.get(0));
        return new HiveMetastoreFixture(hadoop, uris.get(0), uris.get(1), Duration.between(started, Instant.now()));
    }

    /**
     * This JVM's test class path (surefire names it in {@code surefire.test.class.path}; its own class path is a
     * manifest jar) without Jetty 12 and its servlet API, with the Jetty 9 jars instead.
     */
    private static String childClassPath() throws IOException {
        String own = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> entries = new ArrayList<>();
        for (String entry : own.split(File.pathSeparator)) {
            String path = entry.replace(File.separatorChar, '/');
            if (!path.contains("/org/eclipse/jetty/") && !path.contains("/jakarta/servlet/")) {
                entries.add(entry);
            }
        }
        try (Stream<Path> jars = Files.list(Path.of(property("loadgate.hms.jetty9")))) {
            jars.filter(p -> p.toString().endsWith(".jar")).sorted().forEach(p -> entries.add(p.toString()));
        }
        return String.join(File.pathSeparator, entries);
    }

    private static String property(String name) {
        String value = System.getProperty(name);
        if (value == null) {
            throw new IllegalStateException("system property " + name + " is not set (Maven's surefire sets it)");
        }
        return value;
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }
}

package io.loadgate.worker.target.hive;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.MalformedURLException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * A HiveServer2 4.0.1 in a JVM of its own, serving Hive SQL on a free loopback port (binary Thrift, no SASL), with its
 * own embedded Derby metastore or the test metastore ({@link HiveMetastoreFixture}), and local MapReduce: Hive SQL needs unshaded Hadoop 3.3, which cannot share a class
 * path with the shaded client the rest of Loadgate uses, so its 319 jars come from their own dependency set
 * ({@code src/test/hs2/pom.xml}, resolved by Maven at start, from the network when the local repository lacks them)
 * and its JDBC driver is loaded in a class loader of its own. {@link #start} throws {@link Unavailable} with the reason
 * when that JVM cannot start (its jars neither local nor reachable, say); a test then aborts with that reason printed.
 */
final class HiveServer2Fixture implements AutoCloseable {
    private static final Duration START_LIMIT = Duration.ofMinutes(4);
    /** Kryo (Hive's plan serialiser) reflects into these on Java 17 (notes/hive-hdfs.md, Q5). */
    private static final List<String> OPENS = List.of("java.base/java.lang", "java.base/java.lang.reflect",
            "java.base/java.util", "java.base/java.net", "java.base/java.io", "java.base/java.nio",
            "java.base/sun.nio.ch", "java.base/java.util.concurrent", "java.base/java.util.concurrent.atomic",
            "java.base/java.util.concurrent.locks", "java.base/java.util.regex", "java.base/java.time",
            "java.base/java.math", "java.base/java.text", "java.base/java.lang.invoke", "java.base/jdk.internal.misc",
            "java.sql/java.sql");

    /** Why HiveServer2 could not be started here. */
    static final class Unavailable extends Exception {
        Unavailable(String reason) {
            super(reason);
        }
    }

    private final Process process;
    private final URLClassLoader drivers;
    private final Driver driver;
    private final String url;
    final Duration startup;
    /** HiveServer2's Thrift port on 127.0.0.1. */
    final int port;
    /** {@code hive-jdbc-4.0.1-standalone.jar}, the driver a job's {@code jdbc_driver_path} names. */
    final Path standaloneDriver;

    private HiveServer2Fixture(Process process, URLClassLoader drivers, Driver driver, int port, Duration startup,
                               Path standaloneDriver) {
        this.process = process;
        this.drivers = drivers;
        this.driver = driver;
        this.port = port;
        this.url = "jdbc:hive2://127.0.0.1:" + port + "/default;auth=noSasl";
        this.startup = startup;
        this.standaloneDriver = standaloneDriver;
    }

    /** With an embedded Derby metastore of its own. */
    static HiveServer2Fixture start(Path work) throws Unavailable, IOException, InterruptedException {
        return start(work, null);
    }

    /**
     * @param metastoreUri the metastore HiveServer2 uses ({@code thrift://...}), so that a test reads and writes the
     *     same tables through it; null for an embedded Derby one
     */
    static HiveServer2Fixture start(Path work, String metastoreUri) throws Unavailable, IOException,
            InterruptedException {
        Instant started = Instant.now();
        List<String> classPath = new ArrayList<>(classPath(work));
        Path standalone = classPath.stream().filter(e -> e.endsWith("-standalone.jar")).findFirst().map(Path::of)
                .orElseThrow(() -> new Unavailable("no hive-jdbc standalone jar among HiveServer2's jars"));
        classPath.remove(standalone.toString());
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xmx1g"));
        OPENS.forEach(open -> command.add("--add-opens=" + open + "=ALL-UNNAMED"));
        command.addAll(List.of("-cp", String.join(File.pathSeparator, classPath),
                "org.apache.hive.service.server.HiveServer2"));
        String w = work.toAbsolutePath().toString();
        List<String> metastore = metastoreUri != null ? List.of("hive.metastore.uris=" + metastoreUri)
                : List.of("hive.metastore.uris=",
                        "javax.jdo.option.ConnectionURL=jdbc:derby:;databaseName=" + w + "/metastore_db;create=true",
                        "datanucleus.schema.autoCreateAll=true", "hive.metastore.schema.verification=false");
        List<String> settings = new ArrayList<>(metastore);
        settings.addAll(List.of("hive.server2.thrift.port=" + port, "hive.server2.thrift.bind.host=127.0.0.1",
                "hive.server2.transport.mode=binary", "hive.server2.authentication=NOSASL",
                "hive.server2.enable.doAs=false", "hive.server2.webui.port=0",
                // Polls the metastore's notification log, which a metastore serves only to its proxy users ("User
                // root is not allowed to perform this API call"), and fails the start; Loadgate needs none of it.
                "hive.notification.event.poll.interval=0s",
                "hive.execution.engine=mr", "mapreduce.framework.name=local", "hive.support.concurrency=false",
                "hive.stats.autogather=false", "hive.in.test=true", "fs.defaultFS=file:///",
                "hive.metastore.warehouse.dir=file://" + w + "/warehouse",
                "hive.metastore.warehouse.external.dir=file://" + w + "/external",
                "hive.exec.scratchdir=" + w + "/scratch", "hive.exec.local.scratchdir=" + w + "/local-scratch",
                "hive.querylog.location=" + w + "/query-log",
                "hive.server2.logging.operation.log.location=" + w + "/operation-log"));
        for (String setting : settings) {
            command.add("--hiveconf");
            command.add(setting);
        }
        Path log = work.resolve("hiveserver2.log");
        // In the work directory: Derby writes its derby.log in the working directory.
        Process process = new ProcessBuilder(command).directory(work.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        Instant deadline = started.plus(START_LIMIT);
        while (!listening(port)) {
            if (!process.isAlive()) {
                throw new Unavailable("the HiveServer2 JVM exited " + process.exitValue() + "; its log " + log
                        + " ends: " + tail(log));
            }
            if (Instant.now().isAfter(deadline)) {
                process.destroyForcibly();
                throw new Unavailable("HiveServer2 did not listen within " + START_LIMIT + "; its log " + log
                        + " ends: " + tail(log));
            }
            Thread.sleep(200);
        }
        URL[] jars = new URL[classPath.size()];
        for (int i = 0; i < jars.length; i++) {
            jars[i] = toUrl(classPath.get(i));
        }
        // Hive's JDBC driver and its Thrift, apart from this JVM's: only java.sql is shared.
        URLClassLoader drivers = new URLClassLoader(jars, ClassLoader.getPlatformClassLoader());
        try {
            Driver driver = (Driver) drivers.loadClass("org.apache.hive.jdbc.HiveDriver").getDeclaredConstructor()
                    .newInstance();
            return new HiveServer2Fixture(process, drivers, driver, port, Duration.between(started, Instant.now()),
                    standalone);
        } catch (ReflectiveOperationException e) {
            process.destroyForcibly();
            drivers.close();
            throw new Unavailable("cannot load Hive's JDBC driver: " + e);
        }
    }

    Connection connect() throws SQLException {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(drivers);
        try {
            Properties properties = new Properties();
            properties.setProperty("user", "loadgate");
            return driver.connect(url, properties);
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    @Override
    public void close() throws IOException, InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
        drivers.close();
    }

    /** HiveServer2's dependency set, resolved from the local repository by Maven into the class path file. */
    private static List<String> classPath(Path work) throws Unavailable, IOException, InterruptedException {
        String pom = System.getProperty("loadgate.hs2.pom");
        if (pom == null || !Files.isRegularFile(Path.of(pom))) {
            throw new Unavailable("no HiveServer2 dependency set at " + pom + " (loadgate.hs2.pom, set by surefire)");
        }
        Path file = work.resolve("hs2-classpath.txt");
        Path log = work.resolve("hs2-resolve.log");
        // From the local repository first; a fresh machine (CI's) has not got the 290 MB yet, and fetches them once.
        for (boolean offline : new boolean[] {true, false}) {
            List<String> command = new java.util.ArrayList<>(List.of("mvn", "-B", "-q", "-f", pom,
                    "dependency:build-classpath", "-Dmdep.outputFile=" + file));
            if (offline) {
                command.add(2, "-o");
            }
            Process maven;
            try {
                maven = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            } catch (IOException e) {
                throw new Unavailable("cannot run mvn to resolve HiveServer2's jars: " + e.getMessage());
            }
            if (maven.waitFor(10, TimeUnit.MINUTES) && maven.exitValue() == 0 && Files.isRegularFile(file)) {
                break;
            }
            maven.destroyForcibly();
            if (!offline) {
                throw new Unavailable("HiveServer2's jars are neither in the local Maven repository nor fetched"
                        + " (mvn -f " + pom + " dependency:resolve): " + tail(log));
            }
        }
        return List.of(Files.readString(file).strip().split(File.pathSeparator));
    }

    private static boolean listening(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static URL toUrl(String entry) throws Unavailable {
        try {
            return Path.of(entry).toUri().toURL();
        } catch (MalformedURLException e) {
            throw new Unavailable("not a class path entry: " + entry);
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }
}

package io.loadgate.worker.target.hive;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.stream.Stream;

/**
 * A Hive Metastore in a JVM of its own ({@link HiveMetastoreServer}, or a test's main that prepares more before it),
 * started from this JVM: the tests' fixture and {@code loadgate demo --target hive} start it so. The child runs on
 * this JVM's class path without Jetty 12 and its servlet API (the ledger's), with the jars of the metastore lib
 * directory instead: the Jetty 9 and servlet 3 the metastore server links, which never join this JVM's class path.
 * This JVM's class path must hold HDFS's {@code SnapshotException} (Hive's {@code FileUtils} names it; the shaded
 * Hadoop client lacks it): the tests' has the HDFS minicluster, the distribution's its own copy of the class.
 *
 * <p>The child ends when its standard input does: {@link #close} closes it, and so does this JVM's end, however it
 * ends (a killed parent's pipe closes too), so no metastore outlives the JVM that started it.
 */
public final class HiveMetastoreChild implements AutoCloseable {
    private static final Duration STOP_LIMIT = Duration.ofSeconds(20);

    private final Process process;
    private final String metastoreUri;
    private final String defaultFs;
    private final Duration startup;
    private final Path log;

    private HiveMetastoreChild(Process process, String metastoreUri, String defaultFs, Duration startup, Path log) {
        this.process = process;
        this.metastoreUri = metastoreUri;
        this.defaultFs = defaultFs;
        this.startup = startup;
        this.log = log;
    }

    /**
     * Starts {@code mainClass} with {@code args} (after the ready file, which comes first) and waits until it serves.
     *
     * @param metastoreLib the directory of the jars only the metastore's JVM has (Maven's {@code metastore-lib})
     * @param directory where the ready file and the child's log ({@code metastore.log}) go
     * @param environment added to the child's environment
     */
    public static HiveMetastoreChild start(Path metastoreLib, String mainClass, List<String> args,
                                           Map<String, String> environment, Path directory, Duration limit)
            throws IOException, InterruptedException {
        Instant started = Instant.now();
        Files.createDirectories(directory);
        Path ready = directory.resolve("metastore.ready");
        Path log = directory.resolve("metastore.log");
        Files.deleteIfExists(ready);
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xmx512m", "-cp", classPath(metastoreLib), mainClass, ready.toString()));
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().putAll(environment);
        Process process = builder.start();
        // The pipe closes when this JVM ends anyway; the hook only makes a normal exit wait less.
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroy, "metastore-child-stop"));
        Instant deadline = started.plus(limit);
        while (!Files.exists(ready)) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the metastore JVM exited " + process.exitValue() + "; its log " + log
                        + " ends:\n" + tail(log));
            }
            if (Instant.now().isAfter(deadline)) {
                process.destroyForcibly();
                throw new IllegalStateException("the metastore JVM did not serve within " + limit + "; its log "
                        + log + " ends:\n" + tail(log));
            }
            Thread.sleep(100);
        }
        List<String> lines = Files.readAllLines(ready);
        return new HiveMetastoreChild(process, lines.get(0), lines.get(1), Duration.between(started, Instant.now()),
                log);
    }

    /** {@code thrift://127.0.0.1:port}. */
    public String metastoreUri() {
        return metastoreUri;
    }

    /** The child's {@code fs.defaultFS}: where its warehouse is. */
    public String defaultFs() {
        return defaultFs;
    }

    /** From the start of the JVM to its serving. */
    public Duration startup() {
        return startup;
    }

    public long pid() {
        return process.pid();
    }

    public Path log() {
        return log;
    }

    /** Closes the child's standard input, which ends it, and waits for it; kills it if it does not end in time. */
    @Override
    public void close() {
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            // A child that is gone has closed the pipe already.
        }
        try {
            if (!process.waitFor(STOP_LIMIT.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(STOP_LIMIT.toSeconds(), TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The schema scripts' home in {@code metastoreLib}: the top directory of the binary distribution that Maven
     * unpacks its PostgreSQL scripts from ({@code apache-hive-metastore-<version>-bin}); the scripts are in no jar.
     */
    public static Path scriptsHome(Path metastoreLib) throws IOException {
        try (Stream<Path> entries = Files.list(metastoreLib)) {
            return entries.filter(p -> p.getFileName().toString().startsWith("apache-hive-metastore-")
                    && Files.isDirectory(p)).findFirst().orElseThrow(() -> new IllegalStateException(
                    "no metastore schema scripts in " + metastoreLib + " (Maven's build unpacks them there)"));
        }
    }

    /**
     * This JVM's class path (surefire names a test JVM's in {@code surefire.test.class.path}; a manifest-only jar's
     * {@code Class-Path} is read through) without Jetty 12 and the Jakarta servlet API, then the metastore lib's jars.
     */
    static String classPath(Path metastoreLib) throws IOException {
        if (!Files.isDirectory(metastoreLib)) {
            throw new IllegalStateException("no metastore lib directory " + metastoreLib
                    + " (Maven's build makes it: mvn -DskipTests package)");
        }
        String own = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Set<Path> entries = new LinkedHashSet<>();
        for (String entry : own.split(File.pathSeparator)) {
            if (!entry.isEmpty()) {
                expand(Path.of(entry).toAbsolutePath(), entries);
            }
        }
        List<String> kept = new ArrayList<>();
        for (Path entry : entries) {
            String name = entry.getFileName().toString();
            if (!(name.startsWith("jetty-") || name.startsWith("jakarta.servlet-api"))) {
                kept.add(entry.toString());
            }
        }
        try (Stream<Path> jars = Files.list(metastoreLib)) {
            jars.filter(p -> p.toString().endsWith(".jar")).sorted().forEach(p -> kept.add(p.toString()));
        }
        return String.join(File.pathSeparator, kept);
    }

    /** {@code entry}, and the entries its manifest's {@code Class-Path} names, relative to it. */
    private static void expand(Path entry, Set<Path> entries) throws IOException {
        if (!entries.add(entry) || !entry.toString().endsWith(".jar") || !Files.isRegularFile(entry)) {
            return;
        }
        String classPath;
        try (JarFile jar = new JarFile(entry.toFile())) {
            Manifest manifest = jar.getManifest();
            classPath = manifest == null ? null : manifest.getMainAttributes().getValue(Attributes.Name.CLASS_PATH);
        }
        if (classPath == null) {
            return;
        }
        URI base = entry.toUri();
        for (String item : classPath.trim().split("\\s+")) {
            expand(Path.of(base.resolve(item)), entries);
        }
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

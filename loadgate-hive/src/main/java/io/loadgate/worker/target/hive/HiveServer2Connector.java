package io.loadgate.worker.target.hive;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.job.HiveServer2Spec;
import io.loadgate.worker.target.TargetException;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * Opens JDBC connections to the HiveServer2 of {@code target.hive.hiveserver2}, through Hive's JDBC driver loaded from
 * {@code jdbc_driver_path} in a class loader of its own whose parent is the platform class loader: the driver brings
 * unshaded Hadoop, Thrift and Guava, which must not meet the worker's shaded Hadoop client and Iceberg's Thrift, so only
 * {@code java.sql} is shared. The seam where tests cut the connection.
 */
@FunctionalInterface
interface HiveServer2Connector {
    String DRIVER_CLASS = "org.apache.hive.jdbc.HiveDriver";

    /** A new connection; the caller closes it. */
    Connection open() throws SQLException;

    /**
     * Loads nothing yet: the driver is loaded on the first {@link #open} or {@link #driver} call (a job whose target
     * cannot be reached still gets its target, and its first call says why).
     */
    static HiveServer2Connector of(HiveServer2Spec spec, Map<String, String> environment) {
        requireNonNull(spec, "spec is null");
        requireNonNull(environment, "environment is null");
        return () -> {
            Driver driver = driver(spec.jdbcDriverPath());
            Properties properties = new Properties();
            if (spec.user() != null) {
                properties.setProperty("user", spec.user());
            }
            String password = spec.resolvePassword(environment);
            if (password != null) {
                properties.setProperty("password", password);
            }
            // Hive's driver (its Hadoop Configuration, its Thrift transport factories) loads classes through the
            // context class loader.
            Thread thread = Thread.currentThread();
            ClassLoader previous = thread.getContextClassLoader();
            thread.setContextClassLoader(driver.getClass().getClassLoader());
            try {
                Connection connection = driver.connect(spec.url(), properties);
                if (connection == null) {
                    throw new SQLException("Hive's JDBC driver does not take " + spec.redactedUrl());
                }
                return connection;
            } finally {
                thread.setContextClassLoader(previous);
            }
        };
    }

    /**
     * Hive's driver from {@code path} (a jar, or a directory whose jars are all taken), loaded once per process and
     * path: each load would hold the jars open and their classes in memory again.
     *
     * @throws TargetException in one line, naming the path, when it holds no loadable driver
     */
    static Driver driver(String path) {
        return Drivers.LOADED.computeIfAbsent(path, Drivers::load);
    }

    /** The drivers this process loaded, by path. */
    final class Drivers {
        private static final Map<String, Driver> LOADED = new ConcurrentHashMap<>();

        private Drivers() {
        }

        private static Driver load(String path) {
            String where = "target.hive.hiveserver2.jdbc_driver_path " + path;
            List<URL> jars = new ArrayList<>();
            Path location = Path.of(path);
            try {
                if (Files.isDirectory(location)) {
                    try (Stream<Path> entries = Files.list(location)) {
                        for (Path jar : entries.filter(p -> p.toString().endsWith(".jar")).sorted().toList()) {
                            jars.add(url(jar));
                        }
                    }
                } else if (Files.isRegularFile(location)) {
                    jars.add(url(location));
                }
            } catch (IOException e) {
                throw new TargetException(where + " cannot be read: " + e.getMessage(), e);
            }
            if (jars.isEmpty()) {
                throw new TargetException(where + " is neither a jar nor a directory of jars (Hive's JDBC driver, e.g."
                        + " hive-jdbc-4.0.1-standalone.jar, is needed for publish insert_overwrite)", null);
            }
            // Never closed: the driver's classes are used for the life of the process.
            URLClassLoader loader = new URLClassLoader("hive-jdbc", jars.toArray(URL[]::new),
                    ClassLoader.getPlatformClassLoader());
            try {
                return (Driver) loader.loadClass(DRIVER_CLASS).getDeclaredConstructor().newInstance();
            } catch (ReflectiveOperationException | LinkageError | ClassCastException e) {
                try {
                    loader.close();
                } catch (IOException closing) {
                    e.addSuppressed(closing);
                }
                throw new TargetException(where + " holds no loadable " + DRIVER_CLASS + ": "
                        + e.getClass().getSimpleName() + " " + TargetException.oneLine(e), e);
            }
        }

        private static URL url(Path jar) throws MalformedURLException {
            return jar.toUri().toURL();
        }
    }
}

package io.loadgate.spark;

import io.loadgate.worker.testing.ItemsTable;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Spark reading a table Loadgate published, through {@code iceberg-spark-runtime} and the same JDBC catalog, in a
 * JVM of its own. It cannot share the tests' JVM: the runtime bundles Iceberg with a shaded Parquet, while Loadgate
 * runs Iceberg with the plain one, and one class path cannot hold both Iceberg's ({@code org.apache.iceberg.parquet}
 * is in both, each expecting its own Parquet). A Spark cluster reading Loadgate's tables has no Loadgate on its class
 * path, which is what the child's class path (the tests' minus the plain Iceberg jars) is.
 */
public final class IcebergReadBack {
    /** What Spark read: each row as {@link ItemsTable#line}, sorted, and the data files of the current snapshot. */
    record Read(List<String> rows, List<String> dataFiles) {
    }

    private IcebergReadBack() {
    }

    /** Args: catalog uri, user, password, warehouse, table, day. */
    public static void main(String[] args) {
        SparkSession spark = SparkSession.builder().master("local[1]").appName("iceberg-read-back")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.datetime.java8API.enabled", "true")
                .config("spark.sql.catalog.loadgate", "org.apache.iceberg.spark.SparkCatalog")
                .config("spark.sql.catalog.loadgate.catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog")
                .config("spark.sql.catalog.loadgate.uri", args[0])
                .config("spark.sql.catalog.loadgate.jdbc.user", args[1])
                .config("spark.sql.catalog.loadgate.jdbc.password", args[2])
                .config("spark.sql.catalog.loadgate.jdbc.schema-version", "V1")
                .config("spark.sql.catalog.loadgate.warehouse", args[3])
                .getOrCreate();
        try {
            String table = "loadgate." + args[4];
            for (Row r : spark.sql("SELECT id, grp, amount, note, day FROM " + table + " WHERE day = DATE '" + args[5]
                    + "'").collectAsList()) {
                System.out.println("ROW " + ItemsTable.line(r.get(0), r.get(1), r.getDecimal(2), r.getString(3),
                        (LocalDate) r.get(4)));
            }
            for (Row r : spark.sql("SELECT file_path FROM " + table + ".files").collectAsList()) {
                System.out.println("FILE " + r.getString(0));
            }
        } finally {
            spark.stop();
        }
    }

    /** Runs the read in a child JVM and returns what it printed. */
    static Read read(String uri, String user, String password, Path warehouse, String table, LocalDate day)
            throws IOException, InterruptedException {
        String classPath = Arrays.stream(System.getProperty("surefire.test.class.path",
                        System.getProperty("java.class.path")).split(java.io.File.pathSeparator))
                .filter(entry -> !entry.matches(".*/org/apache/iceberg/iceberg-(api|core|common|data|parquet|bundled-guava)/.*"))
                .collect(Collectors.joining(java.io.File.pathSeparator));
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("--add-opens") || a.startsWith("-D") && !a.startsWith("-Dbasedir")
                        || a.startsWith("-XX:+IgnoreUnrecognized")).toList());
        command.addAll(List.of("-cp", classPath, IcebergReadBack.class.getName(), uri, user, password,
                warehouse.toAbsolutePath().toString(), table, day.toString()));
        Process child = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        List<String> rows = new ArrayList<>();
        List<String> files = new ArrayList<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                if (line.startsWith("ROW ")) {
                    rows.add(line.substring(4));
                } else if (line.startsWith("FILE ")) {
                    files.add(line.substring(5));
                }
            }
        }
        if (!child.waitFor(150, TimeUnit.SECONDS) || child.exitValue() != 0) {
            child.destroyForcibly();
            throw new IllegalStateException("the Spark read-back failed (exit " + (child.isAlive() ? "none"
                    : child.exitValue()) + ")");
        }
        Collections.sort(rows);
        return new Read(rows, files);
    }
}

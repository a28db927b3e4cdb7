package io.loadgate.spark;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.testing.ItemsTable;
import java.io.IOException;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Spark reading a table Loadgate published, through {@code iceberg-spark-runtime}, in a JVM of its own: through the
 * same JDBC catalog Loadgate publishes to, or through the ledger's Iceberg REST catalog as the README's
 * {@code spark-sql} line configures it. It cannot share the tests' JVM: the runtime bundles Iceberg with a shaded
 * Parquet, while Loadgate runs Iceberg with the plain one, and one class path cannot hold both Iceberg's
 * ({@code org.apache.iceberg.parquet} is in both, each expecting its own Parquet). A Spark cluster reading Loadgate's
 * tables has no Loadgate on its class path, which is what the child's class path (the tests' minus the plain Iceberg
 * jars) is.
 */
public final class IcebergReadBack {
    /** What Spark read: each row as {@link ItemsTable#line}, sorted, and the data files of the current snapshot. */
    record Read(List<String> rows, List<String> dataFiles) {
    }

    /**
     * A Spark catalog as the child configures it: {@code spark.sql.catalog.NAME} is Iceberg's {@code SparkCatalog}
     * and each property is set as {@code spark.sql.catalog.NAME.KEY}.
     */
    record SparkCatalog(String name, Map<String, String> properties) {
        SparkCatalog {
            requireNonNull(name, "name is null");
            properties = Map.copyOf(properties);
        }

        /**
         * Loadgate's JDBC catalog. Spark's catalog name is the JDBC catalog's name, which keys its rows: it must be
         * the name Loadgate publishes under ({@code loadgate}).
         */
        static SparkCatalog jdbc(String uri, String user, String password, Path warehouse) {
            return new SparkCatalog("loadgate", Map.of("catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog",
                    "uri", uri, "jdbc.user", user, "jdbc.password", password, "jdbc.schema-version", "V1",
                    "warehouse", warehouse.toAbsolutePath().toString()));
        }

        /** The ledger's REST catalog as the README's {@code spark-sql} line names it: {@code lake}, a bearer token. */
        static SparkCatalog rest(String uri, String token) {
            return new SparkCatalog("lake", Map.of("type", "rest", "uri", uri, "token", token));
        }
    }

    private IcebergReadBack() {
    }

    /** Args: catalog name, table, day, then the catalog's properties as KEY=VALUE. */
    public static void main(String[] args) {
        String catalog = args[0];
        SparkSession.Builder builder = SparkSession.builder().master("local[1]").appName("iceberg-read-back")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.datetime.java8API.enabled", "true")
                .config("spark.sql.catalog." + catalog, "org.apache.iceberg.spark.SparkCatalog");
        for (String property : Arrays.asList(args).subList(3, args.length)) {
            int eq = property.indexOf('=');
            builder.config("spark.sql.catalog." + catalog + "." + property.substring(0, eq), property.substring(eq + 1));
        }
        SparkSession spark = builder.getOrCreate();
        try {
            String table = catalog + "." + args[1];
            for (Row r : spark.sql("SELECT id, grp, amount, note, day FROM " + table + " WHERE day = DATE '" + args[2]
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
    static Read read(SparkCatalog catalog, String table, LocalDate day) throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of(catalog.name(), table, day.toString()));
        catalog.properties().forEach((key, value) -> args.add(key + "=" + value));
        ChildJvm.Ended child = ChildJvm.run(
                entry -> !entry.matches(".*/org/apache/iceberg/iceberg-(api|core|common|data|parquet|bundled-guava)/.*"),
                IcebergReadBack.class.getName(), args);
        if (child.exit() != 0) {
            throw new IllegalStateException("the Spark read-back failed (exit " + child.exit() + ")");
        }
        List<String> rows = new ArrayList<>();
        List<String> files = new ArrayList<>();
        for (String line : child.output()) {
            if (line.startsWith("ROW ")) {
                rows.add(line.substring(4));
            } else if (line.startsWith("FILE ")) {
                files.add(line.substring(5));
            }
        }
        Collections.sort(rows);
        return new Read(rows, files);
    }
}

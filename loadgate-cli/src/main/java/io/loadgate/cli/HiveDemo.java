package io.loadgate.cli;

import io.loadgate.ledger.db.EmbeddedPostgres;
import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.target.hive.HiveMetastoreChild;
import io.loadgate.worker.target.hive.HiveMetastoreServer;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.IMetaStoreClient;
import org.apache.hadoop.hive.metastore.Warehouse;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.conf.MetastoreConf;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;

/**
 * {@code loadgate demo --target hive}: a Hive Metastore 4.0.1 for the demo's length, in a JVM of its own
 * ({@link HiveMetastoreChild}: the metastore server links Jetty 9, the ledger in this JVM Jetty 12), its schema on the
 * embedded PostgreSQL's {@code metastore} database (kept, so the next demo finds its table again), its warehouse on
 * the local file system under {@code $LOADGATE_HOME/hive}. The jars only that JVM has are in the distribution's
 * {@code metastore-lib} directory, beside this jar's {@code lib}.
 */
final class HiveDemo {
    static final String DATABASE = "metastore";
    private static final Duration START_LIMIT = Duration.ofMinutes(5);

    private HiveDemo() {
    }

    static HiveMetastoreChild startMetastore(Path home, EmbeddedPostgres embedded) throws IOException,
            InterruptedException {
        Path lib = metastoreLib();
        embedded.ensureDatabase(DATABASE);
        Path directory = home.resolve("hive");
        Path warehouse = directory.resolve("warehouse").toAbsolutePath();
        Files.createDirectories(warehouse);
        System.out.println("Starting a Hive Metastore 4.0.1 in a JVM of its own (log: " + directory.resolve(
                "metastore.log") + ") ...");
        // The child logs only warnings unless asked: the metastore is verbose at INFO.
        HiveMetastoreChild metastore = HiveMetastoreChild.start(lib, HiveMetastoreServer.class.getName(),
                List.of(HiveMetastoreChild.scriptsHome(lib).toString(), embedded.jdbcUrl(DATABASE), embedded.user(),
                        "file://" + warehouse),
                Map.of("LOADGATE_LOG_LEVEL", System.getenv().getOrDefault("LOADGATE_LOG_LEVEL", "WARN")), directory,
                START_LIMIT);
        System.out.printf("Hive Metastore (pid %d) serving %s after %.1f s, schema in the %s database of %s%n",
                metastore.pid(), metastore.metastoreUri(), metastore.startup().toMillis() / 1000.0, DATABASE,
                embedded.jdbcUrl(DATABASE));
        return metastore;
    }

    /**
     * The distribution's {@code metastore-lib}: beside this class's jar (or, run from the build's classes, beside
     * that directory), which is {@code loadgate-cli/target} in a build.
     */
    static Path metastoreLib() {
        try {
            Path own = Path.of(HiveDemo.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return own.getParent().resolve("metastore-lib");
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot tell where the loadgate jar is: " + e.getMessage(), e);
        }
    }

    /**
     * The proof, read independently of the ledger and of Loadgate's readers: the partition's location as the
     * metastore returns it, and every row of the files Hive reads there (names starting with {@code _} or {@code .}
     * it skips), read with parquet-java.
     */
    static String readBack(String metastoreUri, JobSpec job, LocalDate day) throws Exception {
        Configuration conf = MetastoreConf.newMetastoreConf();
        MetastoreConf.setVar(conf, MetastoreConf.ConfVars.THRIFT_URIS, metastoreUri);
        String[] table = job.target().table().split("\\.");
        List<String> values = job.target().hive().partitioning().values(day.toString());
        String location;
        String partitionName;
        try (IMetaStoreClient client = new HiveMetaStoreClient(conf)) {
            Partition partition = client.getPartition(table[0], table[1], new ArrayList<>(values));
            location = partition.getSd().getLocation();
            partitionName = Warehouse.makePartName(client.getTable(table[0], table[1]).getPartitionKeys(), values);
        }
        org.apache.hadoop.fs.Path directory = new org.apache.hadoop.fs.Path(location);
        FileSystem fs = directory.getFileSystem(new Configuration());
        long rows = 0;
        int files = 0;
        for (FileStatus status : fs.listStatus(directory)) {
            String name = status.getPath().getName();
            if (!status.isFile() || name.startsWith("_") || name.startsWith(".")) {
                continue;
            }
            files++;
            try (ParquetReader<Group> reader = ParquetReader.builder(new GroupReadSupport(), status.getPath())
                    .withConf(new Configuration()).build()) {
                while (reader.read() != null) {
                    rows++;
                }
            }
        }
        return String.format("%nHive table %s, partition %s: %,d rows (read with parquet-java from the %d file(s) at"
                + " the partition's location, %s)%n", job.target().table(), partitionName, rows, files, location);
    }

    /** Where the data is, once the demo's metastore has stopped. */
    static String closingLines(String table, Path jobFile, Path home) {
        return """

                The data is the EXTERNAL Hive table %1$s: each partition points at a directory holding exactly the
                files the ledger recorded for its run (hard links of the staged ones). The metastore ran for the demo
                only and has stopped; its schema and the table stay in the %4$s database of the embedded
                PostgreSQL on %3$s, and the next `loadgate demo --target hive` serves them again and replaces
                the day's partition. The job spec is in %2$s.
                """.formatted(table, jobFile, home, DATABASE);
    }
}

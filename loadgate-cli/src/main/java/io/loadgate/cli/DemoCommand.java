package io.loadgate.cli;

import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.job.JobSpecLoader;
import io.loadgate.worker.publish.TargetTable;
import io.loadgate.worker.target.hive.HiveMetastoreChild;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.concurrent.Callable;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "demo", mixinStandardHelpOptions = true, subcommands = DemoFilesCommand.class,
        description = {"Loads a generated orders table into an Iceberg table, end to end, on the embedded defaults:",
                "the ledger and a 'demo' source database on the embedded PostgreSQL, one job, 4 partitions,",
                "business key = yesterday. Run it twice: the second run replaces the day's partition.",
                "'loadgate demo files' shows file drops instead: Camus directories, a late one caught.",
                "'--target hive' loads them into a Hive table instead, through a Hive Metastore started for the demo."})
final class DemoCommand implements Callable<Integer> {
    @Option(names = "--rows", defaultValue = "1000000", description = "rows in the orders table (default: ${DEFAULT-VALUE})")
    long rows;

    @Option(names = "--business-key", paramLabel = "DATE", description = "the day to load (default: yesterday)")
    LocalDate day;

    @Option(names = "--partitions", defaultValue = "4", description = "partitions (default: ${DEFAULT-VALUE})")
    int partitions;

    @Option(names = "--target", defaultValue = "iceberg", paramLabel = "iceberg|hive",
            description = "where to load: the lakehouse's Iceberg table, or a Hive table in a Hive Metastore this"
                    + " demo starts and stops (default: ${DEFAULT-VALUE})")
    String target;

    @Override
    public Integer call() throws Exception {
        Logging.quietUnlessAsked();
        if (rows < 1 || rows > 100_000_000L || partitions < 1 || partitions > 64) {
            throw new CliException("--rows must be 1..100000000 and --partitions 1..64", LedgerOptions.EXIT_USAGE);
        }
        if (!target.equals("iceberg") && !target.equals("hive")) {
            throw new CliException("--target must be iceberg or hive, not '" + target + "'", LedgerOptions.EXIT_USAGE);
        }
        LocalDate businessDay = day == null ? LocalDate.now().minusDays(1) : day;
        try (Interruption interruption = Interruption.install(Interruption.Mode.FINISH_OR_CANCEL);
             LocalLoadgate local = LocalLoadgate.start(partitions)) {
            interruption.cancelWith(local.operatorClient());
            var embedded = local.embedded().orElseThrow(() -> new CliException("the demo runs on its own embedded"
                    + " PostgreSQL; $LOADGATE_HOME/loadgate.yaml names another database, or a loadgate server runs on"
                    + " $LOADGATE_HOME (stop it, or use another LOADGATE_HOME)",
                    LedgerOptions.EXIT_USAGE));
            embedded.ensureDatabase("demo");
            String sourceUrl = embedded.jdbcUrl("demo");
            System.out.printf("Preparing the demo source: %,d orders dated %s in %s ...%n", rows, businessDay, sourceUrl);
            if (!DemoData.ensureOrders(sourceUrl, embedded.user(), businessDay, rows)) {
                System.out.println("(the orders table was already there)");
            }
            Path stage = local.home().resolve("stage");
            Files.createDirectories(stage);
            if (target.equals("hive")) {
                try (HiveMetastoreChild metastore = HiveDemo.startMetastore(local.home(), embedded)) {
                    // Not orders.yaml: this job names a metastore that serves only while the demo runs.
                    Path jobFile = local.home().resolve("demo").resolve("orders-hive.yaml");
                    String yaml = DemoData.jobYaml(sourceUrl, stage.toUri().toString(), partitions,
                            metastore.metastoreUri());
                    JobSpec job = writeJob(jobFile, yaml);
                    int exit = RunCommand.submitAndFollow(local.client(), local.sources(), local.catalogs(), job, yaml,
                            businessDay.toString(), false, interruption);
                    if (exit == 0) {
                        System.out.print(HiveDemo.readBack(metastore.metastoreUri(), job, businessDay));
                        System.out.print(HiveDemo.closingLines(job.target().table(), jobFile, local.home()));
                    } else {
                        System.out.println("The job spec is in " + jobFile);
                    }
                    return exit;
                }
            }
            String yaml = DemoData.jobYaml(sourceUrl, stage.toUri().toString(), partitions);
            Path jobFile = local.home().resolve("demo").resolve("orders.yaml");
            JobSpec job = writeJob(jobFile, yaml);
            int exit = RunCommand.submitAndFollow(local.client(), local.sources(), local.catalogs(), job, yaml,
                    businessDay.toString(), false, interruption);
            if (exit == 0) {
                readBack(local, job, businessDay);
                System.out.print(closingLines(job.target().table(), jobFile, businessDay, local.restCatalogUrl(),
                        local.home()));
            } else {
                System.out.println("The job spec is in " + jobFile);
            }
            return exit;
        }
    }

    private static JobSpec writeJob(Path jobFile, String yaml) throws IOException {
        Files.createDirectories(jobFile.getParent());
        Files.writeString(jobFile, yaml, StandardCharsets.UTF_8);
        return JobSpecLoader.parse(jobFile, yaml);
    }

    /**
     * Where the data is and how to read it: the table through its catalog, never the stage, whose files include
     * every attempt's (a replaced day's, a failed run's) and so more rows than the table holds.
     */
    static String closingLines(String table, Path jobFile, LocalDate day, String catalogUrl, Path home) {
        return """

                The data is the Iceberg table %1$s in the lakehouse catalog of the ledger on %5$s (the Parquet files
                under stage/ include every attempt's: read the table, never the stage).
                  bin/loadgate table count %2$s
                  bin/loadgate load %2$s --business-key %3$s    # again: the day is replaced, not doubled
                From Spark, Trino or PyIceberg: start `bin/loadgate server` on this LOADGATE_HOME; it serves the
                Iceberg REST catalog at %4$s to any token of %5$s/tokens (viewer= reads).
                  export TOKEN=$(sed -n 's/^viewer=//p' %5$s/tokens)
                  spark-sql --packages org.apache.iceberg:iceberg-spark-runtime-4.1_2.13:1.12.0 \\
                    --conf spark.sql.catalog.lake=org.apache.iceberg.spark.SparkCatalog \\
                    --conf spark.sql.catalog.lake.type=rest --conf spark.sql.catalog.lake.uri=%4$s \\
                    --conf spark.sql.catalog.lake.token=$TOKEN -e 'SELECT count(*) FROM lake.%1$s'
                  python -c 'from pyiceberg.catalog import load_catalog; import os
                  t = load_catalog("lake", type="rest", uri="%4$s", token=os.environ["TOKEN"]).load_table("%1$s")
                  print(t.scan().to_arrow().num_rows)'
                """.formatted(table, jobFile, day, catalogUrl, home);
    }

    /** The proof: count the day's rows through Iceberg itself, and the table's rows in all. */
    private static void readBack(LocalLoadgate local, JobSpec job, LocalDate day) throws Exception {
        var catalog = local.catalogs().forJob(job);
        TableIdentifier id = TableIdentifier.parse(job.target().table());
        Table table = catalog.loadTable(id);
        Snapshot current = table.currentSnapshot();
        TargetTable target = new TargetTable(id, table.schema(), job.target().businessKeyColumn());
        long dayRows = 0;
        try (CloseableIterable<Record> records = new io.loadgate.worker.publish.TargetReader(catalog)
                .readBusinessKey(target, day.toString(), current.snapshotId())) {
            for (Record ignored : records) {
                dayRows++;
            }
        }
        System.out.printf("%nIceberg table %s, snapshot %d: %,d rows for %s = %s, %s rows in all%n", id,
                current.snapshotId(), dayRows, job.target().businessKeyColumn(), day,
                current.summary().getOrDefault("total-records", "?"));
    }
}

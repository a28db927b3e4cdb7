package io.loadgate.cli;

import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.job.JobSpecLoader;
import io.loadgate.worker.publish.TargetTable;
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

@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Loads a generated orders table into an Iceberg table, end to end, on the embedded defaults:",
                "the ledger and a 'demo' source database on the embedded PostgreSQL, one job, 4 partitions,",
                "business key = yesterday. Run it twice: the second run replaces the day's partition."})
final class DemoCommand implements Callable<Integer> {
    @Option(names = "--rows", defaultValue = "1000000", description = "rows in the orders table (default: ${DEFAULT-VALUE})")
    long rows;

    @Option(names = "--business-key", paramLabel = "DATE", description = "the day to load (default: yesterday)")
    LocalDate day;

    @Option(names = "--partitions", defaultValue = "4", description = "partitions (default: ${DEFAULT-VALUE})")
    int partitions;

    @Override
    public Integer call() throws Exception {
        Logging.quietUnlessAsked();
        if (rows < 1 || rows > 100_000_000L || partitions < 1 || partitions > 64) {
            throw new CliException("--rows must be 1..100000000 and --partitions 1..64", LedgerOptions.EXIT_USAGE);
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
            String yaml = DemoData.jobYaml(sourceUrl, stage.toUri().toString(), partitions);
            Path jobFile = local.home().resolve("demo").resolve("orders.yaml");
            Files.createDirectories(jobFile.getParent());
            Files.writeString(jobFile, yaml, StandardCharsets.UTF_8);
            JobSpec job = JobSpecLoader.parse(jobFile, yaml);
            int exit = RunCommand.submitAndFollow(local.client(), local.sources(), local.catalogs(), job, yaml,
                    businessDay.toString(), false, interruption);
            if (exit == 0) {
                readBack(local, job, businessDay);
            }
            System.out.println("The job spec is in " + jobFile + "; the table's files under " + local.home()
                    .resolve("warehouse"));
            return exit;
        }
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

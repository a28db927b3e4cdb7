package io.loadgate.cli;

import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.job.JobSpecLoader;
import io.loadgate.worker.source.files.CamusLayout;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "files", mixinStandardHelpOptions = true,
        description = {"Thrive's data path, end to end on the embedded defaults: generates a Camus tree of NDJSON",
                "(three hours of d_YYYYMMDD-HHMM directories, one malformed line), loads it with 'load' and no key,",
                "then lets a late directory appear in an hour already loaded, loads again to show it caught (the",
                "hour replaced with all its directories), and reads the rows per hour back from the Iceberg table."})
final class DemoFilesCommand implements Callable<Integer> {
    /** Lines per directory file; 6 directories an hour, the late one adds as many to its hour. */
    static final int LINES = 50;
    static final int HOURS = 3;

    @Option(names = "--day", paramLabel = "DATE", description = "the day of the drops (default: yesterday)")
    LocalDate day;

    @Override
    public Integer call() throws Exception {
        Logging.quietUnlessAsked();
        LocalDate dropDay = day == null ? LocalDate.now().minusDays(1) : day;
        try (Interruption interruption = Interruption.install(Interruption.Mode.FINISH_OR_CANCEL);
             LocalLoadgate local = LocalLoadgate.start(2)) {
            interruption.cancelWith(local.operatorClient());
            Path root = local.home().resolve("demo").resolve("drops");
            LocalDateTime first = dropDay.atTime(10, 0);
            LocalDateTime late = first.plusMinutes(50);
            long lines = writeTree(root, first, late);
            Path stage = local.home().resolve("stage");
            Files.createDirectories(stage);
            String yaml = jobYaml(root, stage);
            Path jobFile = local.home().resolve("demo").resolve("events.yaml");
            Files.writeString(jobFile, yaml, StandardCharsets.UTF_8);
            JobSpec job = JobSpecLoader.parse(jobFile, yaml);
            System.out.printf("Generated %d hours of Camus directories under %s: %,d lines, one of them malformed;"
                    + " %s is held back.%n%n", HOURS, root, lines, CamusLayout.name(late));
            int exit = load(local, job, yaml, interruption);
            if (exit != 0) {
                return exit;
            }
            System.out.printf("%nThe late directory %s appears in hour %s, already loaded (Thrive would skip it"
                    + " for good):%n%n", CamusLayout.name(late), late.toLocalDate() + "T" + late.getHour());
            write(root, late, 900_000);
            exit = load(local, job, yaml, interruption);
            if (exit != 0) {
                return exit;
            }
            readBack(local, job);
            System.out.println("The job spec is in " + jobFile + "; load it every hour with: bin/loadgate load "
                    + jobFile);
            return 0;
        }
    }

    private static int load(LocalLoadgate local, JobSpec job, String yaml, Interruption interruption)
            throws InterruptedException {
        System.out.println("$ loadgate load " + job.jobKey().toLowerCase(java.util.Locale.ROOT) + ".yaml");
        return new DueLoad(local.client(), local.sources(), local.catalogs(), job, yaml, new LedgerOptions())
                .run(false, interruption);
    }

    /** Six directories an hour, one file each, the late one left out; one line of the first file is not JSON. */
    static long writeTree(Path root, LocalDateTime first, LocalDateTime late) throws IOException {
        long written = 0;
        for (int minutes = 0; minutes < HOURS * 60; minutes += 10) {
            LocalDateTime time = first.plusMinutes(minutes);
            if (!time.equals(late)) {
                write(root, time, minutes * 1000L);
                written += LINES;
            }
        }
        Path malformed = root.resolve(CamusLayout.name(first)).resolve("part-0.json");
        Files.writeString(malformed, "{\"id\": 1, \"user\": {\"name\": \"cut off\n",
                java.nio.file.StandardOpenOption.APPEND);
        return written + 1;
    }

    private static void write(Path root, LocalDateTime time, long firstId) throws IOException {
        Path directory = Files.createDirectories(root.resolve(CamusLayout.name(time)));
        StringBuilder text = new StringBuilder();
        for (long id = firstId; id < firstId + LINES; id++) {
            text.append("{\"id\": ").append(id).append(", \"user\": {\"name\": \"user-").append(id % 7)
                    .append("\"}, \"amount\": \"").append(id % 100).append(".50\"}\n");
        }
        Files.writeString(directory.resolve("part-0.json"), text);
    }

    static String jobYaml(Path root, Path stage) {
        return """
                # The file demo: Camus directories of NDJSON events, one hour per business key, into lake.events.
                job_key: DEMO_EVENTS
                source:
                  files:
                    root: "%s"
                    format: ndjson
                    group_by: hour
                    columns:
                      - {name: id, type: bigint}
                      - {name: user_name, type: string, from: /user/name}
                      - {name: amount, type: "decimal(10,2)"}
                target:
                  table: lake.events
                  business_key_column: load_key
                staging:
                  root: "%s"
                # A line that is not JSON is kept aside with its reason; more than max_rejected fail the run.
                transform:
                  max_rejected: 5
                validation:
                  sum: [amount]
                """.formatted(root.toUri(), stage.toUri());
    }

    /** The proof: the rows of each hour, counted through Iceberg. */
    private static void readBack(LocalLoadgate local, JobSpec job) throws IOException {
        TableIdentifier id = TableIdentifier.parse(job.target().table());
        Table table = local.catalogs().forJob(job).loadTable(id);
        Map<String, Long> rows = new TreeMap<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            for (Record r : records) {
                rows.merge(String.valueOf(r.getField("load_key")), 1L, Long::sum);
            }
        }
        System.out.printf("%nIceberg table %s, snapshot %d:%n", id, table.currentSnapshot().snapshotId());
        rows.forEach((key, count) -> System.out.printf("  %s  %,d rows%n", key, count));
    }
}

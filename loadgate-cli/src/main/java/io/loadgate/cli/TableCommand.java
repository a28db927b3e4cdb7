package io.loadgate.cli;

import io.loadgate.worker.execution.TargetCatalogs;
import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.job.JobSpecException;
import io.loadgate.worker.target.TableOverview;
import io.loadgate.worker.target.TableSnapshot;
import io.loadgate.worker.target.Target;
import io.loadgate.worker.target.TargetException;
import io.loadgate.worker.target.Targets;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.hadoop.conf.Configuration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "table", mixinStandardHelpOptions = true,
        description = {"Reads a job's target table through its target, as any reader of the table sees it (never the",
                "stage, whose files include every attempt's). An Iceberg table without target.catalog is read in the",
                "lakehouse catalog of the ledger on $LOADGATE_HOME (started for the command when none runs)."},
        subcommands = {TableCommand.Show.class, TableCommand.Count.class, TableCommand.Sample.class,
                TableCommand.Snapshots.class, TableCommand.History.class})
final class TableCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** What every reading takes: the job, an optional business key, a limit, JSON or a table. */
    abstract static class Reading implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Parameters(paramLabel = "JOB.yaml", description = "the job spec whose target to read")
        Path jobFile;

        @Option(names = "--business-key", paramLabel = "KEY", description = "only this business key's rows")
        String businessKey;

        @Option(names = "--limit", paramLabel = "N", defaultValue = "20",
                description = "at most this many rows or snapshots, the newest (default: ${DEFAULT-VALUE})")
        int limit;

        @Option(names = "--json", description = "print JSON for scripts instead of a table")
        boolean json;

        @Override
        public Integer call() {
            Logging.quietUnlessAsked();
            JobSpec job = JobInput.load(jobFile);
            if (businessKey != null) {
                JobInput.businessKey("--business-key", businessKey);
            }
            if (limit < 1 || limit > 100_000) {
                throw new CliException("--limit must be 1..100000, got " + limit, LedgerOptions.EXIT_USAGE);
            }
            PrintWriter out = spec.commandLine().getOut();
            if (!Targets.needsDefaultCatalog(job)) {
                // Where a job's own catalog puts new tables when it names no warehouse, as workers default it.
                Path warehouse = io.loadgate.server.config.ConfigLoader.home(System.getenv()).resolve("warehouse");
                try (TargetCatalogs catalogs = new TargetCatalogs(Optional.empty(), warehouse)) {
                    return read(catalogs, job, out);
                }
            }
            try (LocalLoadgate local = LocalLoadgate.start(0)) {
                return read(local.catalogs(), job, out);
            }
        }

        private int read(TargetCatalogs catalogs, JobSpec job, PrintWriter out) {
            Target target = new Targets(catalogs, System.getenv(), new Configuration()).forJob(job);
            // As the table holds it: 20261129 and 2026-11-29 name the same day of a date column.
            Optional<String> key = Optional.ofNullable(businessKey).map(k -> JobInput.canonicalKey(target, job, k));
            try {
                print(target, key, out);
            } catch (JobSpecException e) {
                throw new CliException(e.getMessage(), LedgerOptions.EXIT_USAGE);
            } catch (TargetException e) {
                throw new CliException(e.getMessage(), LedgerOptions.EXIT_REFUSED);
            }
            out.flush();
            return 0;
        }

        abstract void print(Target target, Optional<String> key, PrintWriter out);

        /** Prints {@code keysAndValues} (key, value, key, value...) as one JSON object; a null value is left out. */
        static void printJson(PrintWriter out, Object... keysAndValues) {
            Map<String, Object> body = new LinkedHashMap<>();
            for (int i = 0; i < keysAndValues.length; i += 2) {
                if (keysAndValues[i + 1] != null) {
                    body.put((String) keysAndValues[i], keysAndValues[i + 1]);
                }
            }
            out.println(LedgerOptions.toJson(body));
        }

        TableOverview overview(Target target) {
            return target.overview().orElseThrow(() -> new CliException("table " + target.table() + " does not exist"
                    + " (no run of the job has published yet)", LedgerOptions.EXIT_REFUSED));
        }

        static List<TableOverview.Partition> partitions(TableOverview overview, Optional<String> key) {
            return overview.partitions().stream().filter(p -> key.isEmpty() || p.businessKey().equals(key.get()))
                    .toList();
        }

        /** The newest {@code limit} of {@code all}, only the key's when one is given. */
        void printSnapshots(String table, List<TableSnapshot> all, Optional<String> key, PrintWriter out) {
            List<TableSnapshot> ofKey = all.stream().filter(s -> key.isEmpty() || key.get().equals(s.businessKey()))
                    .toList();
            List<TableSnapshot> snapshots = ofKey.subList(Math.max(0, ofKey.size() - limit), ofKey.size());
            if (json) {
                printJson(out, "table", table, "snapshots", snapshots);
                return;
            }
            Table rows = new Table("SNAPSHOT", "COMMITTED", "OPERATION", "ROWS ADDED", "BUSINESS KEY", "RUN",
                    "PUBLISH TOKEN");
            snapshots.forEach(s -> rows.row(s.id(), s.committedAt(), s.operation(), String.format("%,d", s.rows()),
                    s.businessKey(), s.runId(), s.publishToken()));
            rows.print(out);
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true,
            description = "The table's columns and the rows of each business key.")
    static final class Show extends Reading {
        @Override
        void print(Target target, Optional<String> key, PrintWriter out) {
            TableOverview overview = overview(target);
            List<TableOverview.Partition> partitions = partitions(overview, key);
            if (json) {
                printJson(out, "table", overview.table(), "businessKeyColumn", overview.businessKeyColumn(),
                        "columns", overview.columns(), "partitions", partitions,
                        "rows", partitions.stream().mapToLong(TableOverview.Partition::rows).sum());
                return;
            }
            out.println("Table " + overview.table() + ", business key " + overview.businessKeyColumn());
            Table columns = new Table("COLUMN", "TYPE");
            overview.columns().forEach(c -> columns.row(c.name(), c.type()));
            columns.print(out);
            out.println();
            Table rows = new Table(overview.businessKeyColumn().toUpperCase(java.util.Locale.ROOT), "ROWS");
            partitions.forEach(p -> rows.row(p.businessKey(), String.format("%,d", p.rows())));
            rows.print(out);
        }
    }

    @Command(name = "count", mixinStandardHelpOptions = true,
            description = "The table's rows, or one business key's.")
    static final class Count extends Reading {
        @Override
        void print(Target target, Optional<String> key, PrintWriter out) {
            TableOverview overview = overview(target);
            long rows = partitions(overview, key).stream().mapToLong(TableOverview.Partition::rows).sum();
            if (json) {
                printJson(out, "table", overview.table(), "businessKey", key.orElse(null), "rows", rows);
                return;
            }
            out.println(String.format("%,d", rows) + " rows in " + overview.table()
                    + key.map(k -> " for " + overview.businessKeyColumn() + " = " + k).orElse(""));
        }
    }

    @Command(name = "sample", mixinStandardHelpOptions = true,
            description = "Some of the table's rows (of one business key with --business-key), as a table.")
    static final class Sample extends Reading {
        @Override
        void print(Target target, Optional<String> key, PrintWriter out) {
            TableOverview overview = overview(target);
            List<Map<String, String>> rows = target.sample(key, limit);
            if (json) {
                printJson(out, "table", overview.table(), "rows", rows);
                return;
            }
            String[] headers = overview.columns().stream().map(TableOverview.Column::name).toArray(String[]::new);
            Table table = new Table(headers);
            rows.forEach(row -> table.row(overview.columns().stream().map(c -> row.get(c.name())).toArray()));
            table.print(out);
        }
    }

    @Command(name = "snapshots", mixinStandardHelpOptions = true,
            description = "The commits the table retains, with the run id and publish token of each Loadgate publish.")
    static final class Snapshots extends Reading {
        @Override
        void print(Target target, Optional<String> key, PrintWriter out) {
            printSnapshots(target.table(), target.snapshots(), key, out);
        }
    }

    @Command(name = "history", mixinStandardHelpOptions = true,
            description = "The table's states in the order they became current (a rollback shows again).")
    static final class History extends Reading {
        @Override
        void print(Target target, Optional<String> key, PrintWriter out) {
            printSnapshots(target.table(), target.history(), key, out);
        }
    }
}

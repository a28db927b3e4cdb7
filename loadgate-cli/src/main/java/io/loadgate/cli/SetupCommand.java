package io.loadgate.cli;

import io.loadgate.worker.execution.TargetCatalogs;
import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.job.JobSpecException;
import io.loadgate.worker.publish.TargetMismatchException;
import io.loadgate.worker.source.SourceColumn;
import io.loadgate.worker.source.SourceException;
import io.loadgate.worker.source.Sources;
import io.loadgate.worker.staging.SourceSchemas;
import io.loadgate.worker.target.Target;
import io.loadgate.worker.target.TargetException;
import io.loadgate.worker.target.Targets;
import io.loadgate.worker.transform.TransformChain;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Schema;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "setup", mixinStandardHelpOptions = true,
        description = {"The one-time phase before a job's first load: checks the job spec, checks the source (the",
                "table or query, and the split, extracted, business-key and validation columns) without reading",
                "rows, and creates the Iceberg target table from the source's columns, partitioned by the",
                "business-key column, unless it exists with that schema already. Running it again changes nothing.",
                "The catalog is the job's target.catalog, else --catalog, else the lakehouse catalog on",
                "$LOADGATE_HOME (the one 'loadgate run' uses without --ledger)."},
        footer = "Exit codes: 0 ready to load, 1 the catalog failed, 2 bad job, source or table (the line says which).")
final class SetupCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "JOB.yaml", description = "the job spec")
    Path jobFile;

    @Mixin
    CatalogOptions catalogOptions;

    @Override
    public Integer call() {
        Logging.quietUnlessAsked();
        PrintWriter out = spec.commandLine().getOut();
        JobSpec job = JobInput.load(jobFile);
        out.println("job       " + job.jobKey() + ": the spec in " + jobFile + " is valid");
        out.flush();
        List<SourceColumn> columns = sourceColumns(job);
        if (job.source().isFiles()) {
            out.println("source    " + job.source().files().root() + ": " + columns.size() + " columns "
                    + describe(columns) + "; one business key per " + job.source().files().groupBy().name()
                    .toLowerCase(Locale.ROOT) + " of " + job.source().files().layout().name().toLowerCase(Locale.ROOT)
                    + " directories");
        } else {
            String relation = job.source().table() != null ? job.source().table() : "source.query";
            out.println("source    " + relation + ": " + columns.size() + " columns to extract " + describe(columns)
                    + "; split on " + job.source().splitColumn());
        }
        if (!job.validation().referencedColumns().isEmpty()) {
            out.println("validate  " + String.join(", ", job.validation().referencedColumns())
                    + ": present, with types their metrics can compare");
        }
        if (!job.transform().steps().isEmpty()) {
            try {
                TransformChain.bind(job, SourceSchemas.toIceberg(columns), System.getenv());
            } catch (IllegalArgumentException e) {
                throw new CliException(e.getMessage(), LedgerOptions.EXIT_USAGE);
            }
            out.println("transform " + job.transform().steps().size() + " steps: each applies to its columns; at most "
                    + describeLimit(job) + " rows may be rejected");
        }
        out.flush();
        boolean created;
        if (Targets.needsDefaultCatalog(job) && !catalogOptions.given()) {
            try (LocalLoadgate local = LocalLoadgate.start(0)) {
                created = setUp(local.catalogs(), job, columns, out);
            }
        } else {
            try (TargetCatalogs catalogs = catalogOptions.open()) {
                created = setUp(catalogs, job, columns, out);
            }
        }
        String table = job.target().table();
        String businessKeyColumn = job.target().businessKeyColumn();
        if (created) {
            out.println("target    " + table + ": created, " + columns.size() + " columns, partitioned by "
                    + businessKeyColumn);
            out.println("Setup of " + job.jobKey() + " done; load a business key with: loadgate load " + jobFile
                    + " --business-key KEY");
        } else {
            out.println("target    " + table + ": exists with the job's schema, partitioned by "
                    + businessKeyColumn);
            out.println("Setup of " + job.jobKey() + " changed nothing: it was done before.");
        }
        out.flush();
        return 0;
    }

    private static List<SourceColumn> sourceColumns(JobSpec job) {
        try {
            return Sources.forJob(job, System.getenv()).columns();
        } catch (SourceException | JobSpecException e) {
            throw new CliException(e.getMessage(), LedgerOptions.EXIT_USAGE);
        }
    }

    /** True when this call created the table, false when it was there already. */
    private static boolean setUp(TargetCatalogs catalogs, JobSpec job, List<SourceColumn> columns, PrintWriter out) {
        Target target = new Targets(catalogs, System.getenv(), new Configuration()).forJob(job);
        Schema schema = SourceSchemas.toIceberg(columns);
        try {
            added(out, target.table(), target.check(schema));
            return target.setUp(schema);
        } catch (JobSpecException e) {
            throw new CliException(e.getMessage(), LedgerOptions.EXIT_USAGE);
        } catch (TargetMismatchException e) {
            throw new CliException("the target does not fit the job: " + e.getMessage(), LedgerOptions.EXIT_USAGE);
        } catch (IllegalArgumentException e) {
            throw new CliException("target.business_key_column: " + e.getMessage(), LedgerOptions.EXIT_USAGE);
        } catch (TargetException e) {
            throw new CliException(e.getMessage(), LedgerOptions.EXIT_REFUSED);
        }
    }

    private static void added(PrintWriter out, String table, List<String> columns) {
        if (!columns.isEmpty()) {
            out.println("target    " + table + ": added the source's new columns " + columns
                    + " (target.schema: add_columns)");
        }
    }

    private static String describeLimit(JobSpec job) {
        if (job.transform().maxRejected() != null) {
            return String.format("%,d", job.transform().maxRejected());
        }
        if (job.transform().maxRejectedRatio() != null) {
            return job.transform().maxRejectedRatio().toPlainString() + " of the source's";
        }
        return "0";
    }

    private static String describe(List<SourceColumn> columns) {
        return columns.stream().map(c -> c.name() + " " + c.type().name().toLowerCase(Locale.ROOT)).toList().toString();
    }
}

package io.loadgate.cli;

import io.loadgate.worker.cleanup.Cleaner;
import io.loadgate.worker.cleanup.CleanupMode;
import io.loadgate.worker.cleanup.RunCleanup;
import io.loadgate.worker.target.SnapshotExpiry;
import io.loadgate.worker.execution.RunContexts;
import io.loadgate.worker.execution.TargetCatalogs;
import io.loadgate.worker.ledger.LedgerClient;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.hadoop.conf.Configuration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "cleanup", mixinStandardHelpOptions = true,
        description = {"Deletes the staged files of finished runs past retention, except the files their target",
                "table references: a succeeded run keeps its published files and loses zombies, duplicates and",
                "failed attempts; a failed run loses everything the table does not hold. Runs whose table cannot",
                "be read are skipped with nothing deleted. Without --ledger, uses the ledger and lakehouse catalog on",
                "$LOADGATE_HOME (then --catalog and --warehouse are refused)."},
        footer = "Exit codes: 0 every due run cleaned (or listed with --dry-run), 1 a run was skipped or failed, or"
                + " the ledger refused, 2 bad input, 3 the ledger is unreachable.")
final class CleanupCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    LedgerOptions ledgerOptions;

    @Option(names = "--dry-run", description = "list what would be deleted; delete and record nothing")
    boolean dryRun;

    @Mixin
    CatalogOptions catalogOptions;

    @Mixin
    SnapshotRetentionOptions snapshotRetention;

    @Override
    public Integer call() {
        CleanupMode mode = dryRun ? CleanupMode.DRY_RUN : CleanupMode.DELETE;
        List<RunCleanup> reports;
        if (ledgerOptions.ledgerGiven()) {
            LedgerClient client = ledgerOptions.client(LedgerOptions.Role.WORKER);
            try (TargetCatalogs catalogs = catalogOptions.open()) {
                Cleaner cleaner = new Cleaner(client, new RunContexts(client), catalogs, new Configuration(),
                        snapshotRetention.expiry(SnapshotExpiry.Retention.DEFAULT));
                reports = ledgerOptions.call(client, c -> cleaner.clean(mode));
            }
        } else {
            if (catalogOptions.given()) {
                throw new CliException("--catalog and --warehouse need --ledger; the local ledger uses its own "
                        + "lakehouse catalog", LedgerOptions.EXIT_USAGE);
            }
            try (LocalLoadgate local = LocalLoadgate.start(0)) {
                Cleaner cleaner = new Cleaner(local.client(), new RunContexts(local.client()), local.catalogs(),
                        new Configuration(), snapshotRetention.expiry(local.snapshotRetention()));
                reports = ledgerOptions.call(local.client(), c -> cleaner.clean(mode));
            }
        }
        ledgerOptions.print(spec.commandLine().getOut(), reports, out -> print(out, reports, mode));
        List<RunCleanup> notDone = reports.stream().filter(r -> !r.outcome().isDone()).toList();
        if (notDone.isEmpty()) {
            return 0;
        }
        RunCleanup first = notDone.get(0);
        spec.commandLine().getErr().println("loadgate: " + notDone.size() + " of " + reports.size()
                + " run(s) not cleaned; run " + first.runId() + " " + first.outcome() + ": " + first.message());
        return 1;
    }

    private static void print(PrintWriter out, List<RunCleanup> reports, CleanupMode mode) {
        if (reports.isEmpty()) {
            out.println("No runs are due for cleanup.");
            return;
        }
        Table table = new Table("RUN_ID", "JOB", "BUSINESS_KEY", "STATUS", "OUTCOME", "KEPT", "DELETED", "BYTES",
                "NOTE");
        long files = 0;
        long bytes = 0;
        long kept = 0;
        for (RunCleanup r : reports) {
            table.row(r.runId(), r.jobKey(), r.businessKey(), r.status(), r.outcome(), r.kept().size(),
                    r.deleted().size(), r.deletedBytes(), r.message());
            files += r.deleted().size();
            bytes += r.deletedBytes();
            kept += r.kept().size();
        }
        table.print(out);
        out.println();
        if (mode == CleanupMode.DRY_RUN) {
            out.printf("Would delete %d file(s), %,d bytes; would keep %d file(s) the tables reference.%n",
                    files, bytes, kept);
            for (RunCleanup r : reports) {
                r.deleted().forEach(file -> out.println("  " + file));
            }
        } else {
            out.printf("Deleted %d file(s), %,d bytes; kept %d file(s) the tables reference.%n", files, bytes, kept);
        }
    }
}

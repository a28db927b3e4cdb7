package io.loadgate.cli;

import io.loadgate.api.BusinessKey;
import io.loadgate.api.JobKey;
import io.loadgate.api.OperatorApi.Rollback;
import io.loadgate.api.RunApi.RunFilter;
import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunStatus;
import io.loadgate.worker.execution.TargetCatalogs;
import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.job.JobSpecException;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.publish.TargetMismatchException;
import io.loadgate.worker.target.PendingRollback;
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
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "rollback", mixinStandardHelpOptions = true,
        description = {"Removes one business key's partition from the job's Iceberg table in one commit (the snapshot",
                "summary says loadgate.rollback=true, the key, the job and the reason) and records it as a",
                "ROLLED_BACK event of the key's latest successful run. Refused while the key has an active run.",
                "Without --yes, only says what would be removed. Needs the operator token. Without --ledger, uses",
                "the ledger and lakehouse catalog on $LOADGATE_HOME (then --catalog and --warehouse are refused).",
                "A file job takes Thrive's partitions file instead (--partitions-file: one hour 2015/10/03/19 or day",
                "2015/10/03 per line, any order): every key is checked first, the whole file is refused while one",
                "has an active run, and keys with nothing in the table are reported and skipped."},
        footer = "Exit codes: 0 rolled back, nothing to remove, or listed without --yes; 1 refused or failed (the line"
                + " says why; nothing was removed unless it says so); 2 bad input; 3 the ledger is unreachable;"
                + " 4 the key has an active run.")
final class RollbackCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "JOB.yaml", description = "the job spec")
    Path jobFile;

    @Option(names = "--business-key", paramLabel = "KEY", description = "the business key to remove")
    String businessKey;

    @Option(names = "--partitions-file", paramLabel = "FILE",
            description = "a file job's keys to remove, one per line as Thrive writes them (2015/10/03/19)")
    Path partitionsFile;

    @Option(names = "--reason", required = true, paramLabel = "TEXT",
            description = "why, for the snapshot summary and the run's events (at least " + Rollback.MIN_REASON
                    + " characters)")
    String reason;

    @Option(names = "--yes", description = "remove it; without this flag nothing changes")
    boolean yes;

    @Mixin
    LedgerOptions ledgerOptions;

    @Mixin
    CatalogOptions catalogOptions;

    @Override
    public Integer call() {
        Logging.quietUnlessAsked();
        JobSpec job = JobInput.load(jobFile);
        if ((businessKey == null) == (partitionsFile == null)) {
            throw new CliException("give the key either with --business-key or with --partitions-file",
                    LedgerOptions.EXIT_USAGE);
        }
        List<String> keys = partitionsFile == null ? List.of(JobInput.businessKey("--business-key", businessKey))
                : FileKeysInput.partitions(job, partitionsFile);
        String why = JobInput.reason(reason, Rollback.MIN_REASON);
        if (ledgerOptions.ledgerGiven()) {
            LedgerClient client = ledgerOptions.client(LedgerOptions.Role.OPERATOR);
            try (TargetCatalogs catalogs = catalogOptions.open()) {
                return rollback(client, catalogs, job, keys, why);
            }
        }
        if (catalogOptions.given()) {
            throw new CliException("--catalog and --warehouse need --ledger; the local ledger uses its own lakehouse"
                    + " catalog", LedgerOptions.EXIT_USAGE);
        }
        try (LocalLoadgate local = LocalLoadgate.start(0)) {
            return rollback(local.operatorClient(), local.catalogs(), job, keys, why);
        }
    }

    /**
     * Every key checked for an active run before the first is touched; then each key in turn. Returns 0, or the exit
     * code of the first key that could not be rolled back (the others are still tried: each is its own commit).
     */
    private int rollback(LedgerClient client, TargetCatalogs catalogs, JobSpec job, List<String> given, String why) {
        Target target = new Targets(catalogs, System.getenv(), new Configuration()).forJob(job);
        List<String> keys = partitionsFile != null ? given
                : List.of(JobInput.canonicalKey(target, job, given.get(0)));
        // Newest first: the first active run blocks, the first SUCCESS is the run whose rows the partition holds.
        Map<String, List<RunView>> runs = new LinkedHashMap<>();
        for (String key : keys) {
            List<RunView> ofKey = ledgerOptions.call(client, c -> c.listRuns(new RunFilter(JobKey.of(job.jobKey()),
                    BusinessKey.of(key), null, 1000)));
            Optional<RunView> active = ofKey.stream().filter(r -> r.status().isActive()).findFirst();
            if (active.isPresent()) {
                throw new CliException("job " + job.jobKey() + " has an active run " + active.get().runId() + " ("
                        + active.get().status() + ") for " + key + "; roll back once it has ended"
                        + (keys.size() > 1 ? " (nothing was rolled back)" : ""), RunOutcome.ACTIVE_RUN_EXISTS);
            }
            runs.put(key, ofKey);
        }
        if (keys.size() == 1) {
            return rollback(client, target, job, keys.get(0), runs.get(keys.get(0)), why);
        }
        int exit = 0;
        for (String key : keys) {
            try {
                rollback(client, target, job, key, runs.get(key), why);
            } catch (CliException e) {
                PrintWriter out = spec.commandLine().getOut();
                out.println(key + ": not rolled back: " + e.getMessage());
                out.flush();
                exit = exit == 0 ? e.exitCode() : exit;
            }
        }
        return exit;
    }

    private int rollback(LedgerClient client, Target target, JobSpec job, String businessKey, List<RunView> runs,
                         String why) {
        PrintWriter out = spec.commandLine().getOut();
        Optional<PendingRollback> found;
        try {
            found = target.rollback(businessKey);
        } catch (JobSpecException e) {
            throw new CliException(e.getMessage(), LedgerOptions.EXIT_USAGE);
        } catch (TargetMismatchException e) {
            throw new CliException("cannot roll back a business key of " + target.table() + ": " + e.getMessage(),
                    LedgerOptions.EXIT_USAGE);
        } catch (TargetException e) {
            throw new CliException(e.getMessage(), LedgerOptions.EXIT_REFUSED);
        }
        if (found.isEmpty() || found.get().rows() == 0) {
            out.println(found.isEmpty() ? "Table " + target.table() + " does not exist; nothing to roll back."
                    : "Business key " + businessKey + " has no rows in " + target.table() + "; nothing to roll back.");
            out.flush();
            return 0;
        }
        RunView published = latestSuccess(job, businessKey, runs);
        String what = found.get().describe() + " (published by run " + published.runId() + ")";
        if (!yes) {
            out.println("Would remove " + what + ". Nothing changed; pass --yes to roll back.");
            out.flush();
            return 0;
        }
        PendingRollback.RolledBack done;
        try {
            done = found.get().commit(published.runId().toString(), why);
        } catch (TargetException e) {
            throw new CliException(e.getMessage(), LedgerOptions.EXIT_REFUSED);
        }
        return record(client, published, why, what, done.committedAs(), done.ref(), out);
    }


    private static RunView latestSuccess(JobSpec job, String businessKey, List<RunView> runs) {
        return runs.stream().filter(r -> r.status() == RunStatus.SUCCESS).findFirst()
                .orElseThrow(() -> new CliException("the ledger has no successful run of " + job.jobKey() + " for "
                        + businessKey + " to record a rollback on; nothing removed", LedgerOptions.EXIT_REFUSED));
    }

    private int record(LedgerClient client, RunView published, String why, String what, String committedAs,
                       String ref, PrintWriter out) {
        try {
            ledgerOptions.call(client, c -> c.recordRollback(published.runId(), new Rollback(why, ref)));
        } catch (CliException e) {
            // The table has changed: say so whatever the ledger answered, with what it takes to record it by hand.
            throw new CliException("removed " + what + " in " + committedAs + ", but the ledger did not record"
                    + " it: " + e.getMessage() + "; record it with POST /v1/runs/" + published.runId()
                    + "/rollback {reason, targetRef: " + ref + "}", e.exitCode());
        }
        out.println("Removed " + what + " in " + committedAs + "; recorded as ROLLED_BACK on run "
                + published.runId() + ".");
        out.flush();
        return 0;
    }
}

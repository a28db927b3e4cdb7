package io.loadgate.cli;

import io.loadgate.api.ErrorCode;
import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunId;
import io.loadgate.api.RunStatus;
import io.loadgate.worker.execution.SourceCache;
import io.loadgate.worker.execution.TargetCatalogs;
import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.job.JobSpecException;
import io.loadgate.worker.ledger.LedgerCallException;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.source.SourceException;
import io.loadgate.worker.source.SourceUnavailableException;
import io.loadgate.worker.submit.RunFollower;
import io.loadgate.worker.submit.RunSubmitter;
import io.loadgate.worker.submit.TargetCheckException;
import io.loadgate.worker.submit.TargetChecks;
import io.loadgate.worker.target.Targets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "run", aliases = "load", mixinStandardHelpOptions = true,
        description = {"Loads one business key of a job exactly once: plan at one snapshot, extract, validate, publish.",
                "'loadgate load' is the same command under the name of its phase (after 'loadgate setup'): the one a",
                "scheduler runs for each new business key.",
                "A file job (source.files) loads without --business-key every due key whose directories are not all",
                "loaded yet, oldest first, one run each (a late directory makes its key due again): the command a",
                "scheduler runs every hour. It stops at the first failure unless --keep-going.",
                "Without --ledger, runs the ledger and workers in this process on $LOADGATE_HOME.",
                "Exit 0 on SUCCESS; 2 bad job, options or business key; 3 ledger unreachable; 4 an active run exists;",
                "5 source unreachable; 130/143 interrupted (SIGINT/SIGTERM) and the run cancelled;",
                "10..18 the run failed: MANIFEST, EXTRACT, SNAPSHOT_EXPIRED, STAGE_VALIDATION, PUBLISH,",
                "PUBLISH_UNKNOWN, TARGET_VALIDATION, TIMED_OUT, CANCELLED."})
final class RunCommand implements Callable<Integer> {
    @Parameters(paramLabel = "JOB.yaml", description = "the job spec")
    Path jobFile;

    @Option(names = "--business-key", paramLabel = "KEY",
            description = "the business key to load, e.g. a date (bound to :business_key in the job's filter);"
                    + " required unless the job reads files")
    String businessKey;

    @Option(names = "--keep-going", description = "without --business-key: load every due key even after one failed")
    boolean keepGoing;

    @Option(names = "--no-wait", description = "with --ledger: return once extraction is over instead of following"
            + " the run to its end (a PostgreSQL snapshot lives only as long as this process)")
    boolean noWait;

    @Option(names = "--cancel-on-interrupt", description = "with --ledger: on Ctrl-C or SIGTERM, cancel the run"
            + " (operator token) instead of leaving it to go on; without --ledger an interrupted run is always"
            + " cancelled, unless it has claimed its publish, which then finishes first")
    boolean cancelOnInterrupt;

    @Mixin
    ThreadsOption threads;

    @Mixin
    LedgerOptions ledgerOptions;

    @Mixin
    LedgerRetryOption ledgerRetry;

    // With --ledger: the catalog the workers publish jobs without target.catalog to, checked before the run.
    @Mixin
    CatalogOptions catalogOptions;

    @Override
    public Integer call() throws Exception {
        Logging.quietUnlessAsked();
        JobSpec job = JobInput.load(jobFile);
        if (businessKey == null) {
            return loadDue(job);
        }
        if (keepGoing) {
            throw new CliException("--keep-going is for a load without --business-key", LedgerOptions.EXIT_USAGE);
        }
        JobInput.businessKey(job, "--business-key", businessKey);
        threads.check();
        catalogOptions.requireLedger(ledgerOptions);
        String yaml = JobInput.text(jobFile);
        List<String> checked = JobInput.canonicalKeysBeforeLedger(job, List.of(businessKey), ledgerOptions);
        String key = checked == null ? null : checked.get(0);
        if (ledgerOptions.ledgerGiven()) {
            LedgerClient client = ledgerOptions.workerClient(ledgerRetry);
            LedgerClient operator = cancelOnInterrupt ? ledgerOptions.client(LedgerOptions.Role.OPERATOR) : null;
            try (Interruption interruption = Interruption.install(cancelOnInterrupt
                    ? Interruption.Mode.CANCEL_AND_LEAVE : Interruption.Mode.LEAVE);
                 TargetCatalogs catalogs = catalogOptions.openOrHome();
                 SourceCache sources = new SourceCache(System.getenv())) {
                if (operator != null) {
                    interruption.cancelWith(operator);
                }
                return submitAndFollow(client, sources, catalogs, job, yaml, key, noWait,
                        interruption);
            }
        }
        try (Interruption interruption = Interruption.install(Interruption.Mode.FINISH_OR_CANCEL)) {
            int exit;
            try (LocalLoadgate local = LocalLoadgate.start(threads.count)) {
                interruption.cancelWith(local.operatorClient());
                String localKey = key != null ? key : JobInput.canonicalKeys(job, List.of(businessKey)).get(0);
                exit = interruption.interrupted() ? interruption.exitCode()
                        : submitAndFollow(local.client(), local.sources(), local.catalogs(), job, yaml, localKey,
                                false, interruption);
            }
            // Returned only now, once this process's workers, ledger and database have stopped.
            return exit;
        }
    }

    /** Without a key: a file job's due keys (see {@link DueLoad}); a table job still needs its key. */
    private int loadDue(JobSpec job) throws InterruptedException {
        if (job.source().files() == null) {
            throw new CliException("Missing required option: '--business-key=KEY' (only a job reading files"
                    + " loads its due keys without one)", LedgerOptions.EXIT_USAGE);
        }
        threads.check();
        catalogOptions.requireLedger(ledgerOptions);
        if (noWait || cancelOnInterrupt) {
            throw new CliException("--no-wait and --cancel-on-interrupt need --business-key", LedgerOptions.EXIT_USAGE);
        }
        String yaml = JobInput.text(jobFile);
        if (ledgerOptions.ledgerGiven()) {
            LedgerClient client = ledgerOptions.workerClient(ledgerRetry);
            try (Interruption interruption = Interruption.install(Interruption.Mode.LEAVE);
                 TargetCatalogs catalogs = catalogOptions.openOrHome();
                 SourceCache sources = new SourceCache(System.getenv())) {
                return new DueLoad(client, sources, catalogs, job, yaml,
                        ledgerOptions)
                        .run(keepGoing, interruption);
            }
        }
        try (Interruption interruption = Interruption.install(Interruption.Mode.FINISH_OR_CANCEL)) {
            int exit;
            try (LocalLoadgate local = LocalLoadgate.start(threads.count)) {
                interruption.cancelWith(local.operatorClient());
                exit = new DueLoad(local.client(), local.sources(), local.catalogs(), job, yaml,
                        ledgerOptions)
                        .run(keepGoing, interruption);
            }
            return exit;
        }
    }

    /**
     * How a run ended. {@code runId} is null when the ledger refused the plan (FAILED_MANIFEST) in the call that would
     * have named the run to this process; {@code rows} are the target's rows, or the extracted ones when the run
     * ended before counting the target.
     */
    record Ended(RunId runId, RunStatus status, long rows) {
        Ended {
            java.util.Objects.requireNonNull(status, "status is null");
        }

        int exitCode() {
            return RunOutcome.exitCode(status);
        }

        /** The exit code, or the signal's when the signal cancelled the run. */
        int exitCode(Interruption interruption) {
            return status == RunStatus.CANCELLED && interruption.cancelledRun() ? interruption.exitCode() : exitCode();
        }
    }

    /** Submits a run and follows it to its end, printing progress and the summary; returns the exit code. */
    static int submitAndFollow(LedgerClient client, SourceCache sources, TargetCatalogs catalogs, JobSpec job,
                               String yaml, String businessKey, boolean returnAfterExtraction,
                               Interruption interruption) throws InterruptedException {
        if (!returnAfterExtraction) {
            return load(client, sources, catalogs, job, yaml, businessKey, interruption).exitCode(interruption);
        }
        Optional<RunSubmitter.Submission> submitted = submit(client, sources, catalogs, job, businessKey,
                s -> s.submit(job, yaml, businessKey));
        if (submitted.isEmpty()) {
            return RunOutcome.exitCode(RunStatus.FAILED_MANIFEST);
        }
        try (RunSubmitter.Submission submission = submitted.get()) {
            interruption.runStarted(submission.runId());
            RunView end = follower(client).followExtraction(submission.runId(), submission, ProgressDisplay.forStdout());
            System.out.println("Run " + end.runId() + " is " + end.status() + "; follow it with: loadgate runs show "
                    + end.runId());
            return end.status().isTerminal() ? RunOutcome.exitCode(end.status()) : 0;
        }
    }

    /**
     * Submits a run and follows it to its end, printing progress and the summary. Throws {@link CliException} when
     * no run could start: a bad job, source or target (exit 2), or an active run for the key (exit 4). The job's
     * target is checked in {@code catalogs} (its own catalog, else their default) or its warehouse.
     */
    static Ended load(LedgerClient client, SourceCache sources, TargetCatalogs catalogs, JobSpec job, String yaml,
                      String businessKey, Interruption interruption) throws InterruptedException {
        return load(client, sources, catalogs, job, businessKey, s -> s.submit(job, yaml, businessKey), interruption);
    }

    /**
     * {@link #load(LedgerClient, SourceCache, TargetCatalogs, JobSpec, String, String, Interruption)} at most once
     * per snapshot of the key after {@code previousRun} (see {@link RunSubmitter#submitOncePerSnapshot}): a load
     * that planned the same snapshot as another follows that one's run.
     */
    static Ended loadOncePerSnapshot(LedgerClient client, SourceCache sources, TargetCatalogs catalogs, JobSpec job,
                                     String yaml, String businessKey, RunId previousRun, Interruption interruption)
            throws InterruptedException {
        return load(client, sources, catalogs, job, businessKey,
                s -> s.submitOncePerSnapshot(job, yaml, businessKey, previousRun), interruption);
    }

    private static Ended load(LedgerClient client, SourceCache sources, TargetCatalogs catalogs, JobSpec job,
                              String businessKey, Function<RunSubmitter, RunSubmitter.Submission> submit,
                              Interruption interruption) throws InterruptedException {
        Optional<RunSubmitter.Submission> submitted = submit(client, sources, catalogs, job, businessKey, submit);
        if (submitted.isEmpty()) {
            return new Ended(null, RunStatus.FAILED_MANIFEST, 0);
        }
        try (RunSubmitter.Submission submission = submitted.get()) {
            interruption.runStarted(submission.runId());
            RunView end = follower(client).follow(submission.runId(), submission, ProgressDisplay.forStdout());
            RunReport.print(System.out, client, end);
            if (end.status() != RunStatus.SUCCESS) {
                System.err.println("loadgate: run " + end.runId() + " ended " + end.status() + ": "
                        + (end.errorMessage() == null ? RunOutcome.describe(end.status()) : end.errorMessage()));
            }
            return new Ended(end.runId(), end.status(),
                    end.targetCount() != null ? end.targetCount() : end.extractedCount());
        }
    }

    /** The submitted run, holding its snapshot; empty when the ledger refused the plan (already printed). */
    private static Optional<RunSubmitter.Submission> submit(LedgerClient client, SourceCache sources,
                                                            TargetCatalogs catalogs, JobSpec job, String businessKey,
                                                            Function<RunSubmitter, RunSubmitter.Submission> submit) {
        RunSubmitter.Submission submission;
        try {
            submission = submit.apply(new RunSubmitter(client, sources, System.getenv(),
                    new TargetChecks(new Targets(catalogs, System.getenv(), new Configuration()))));
        } catch (SourceUnavailableException e) {
            throw new CliException(e.getMessage(), RunOutcome.SOURCE_UNAVAILABLE);
        } catch (JobSpecException | SourceException | TargetCheckException e) {
            throw new CliException(e.getMessage(), LedgerOptions.EXIT_USAGE);
        } catch (LedgerCallException e) {
            if (e.is(ErrorCode.DUPLICATE_ACTIVE_RUN)) {
                throw new CliException("job " + job.jobKey() + " already has an active run "
                        + e.details().get("activeRunId") + " for " + businessKey
                        + " (see: loadgate runs show RUN_ID)", RunOutcome.ACTIVE_RUN_EXISTS);
            }
            if (e.is(ErrorCode.MANIFEST_INVALID)) {
                System.err.println("loadgate: the plan was refused: " + violations(e));
                return Optional.empty();
            }
            throw e;
        }
        System.out.printf("Run %s: %s, business key %s, %,d rows in %d partitions at snapshot %s%n",
                submission.runId(), job.jobKey(), submission.businessKey(), submission.plan().split().rowCount(),
                submission.plan().partitions().size(), submission.plan().snapshotRef());
        if (!submission.addedColumns().isEmpty()) {
            System.out.println("Added the source's new columns " + submission.addedColumns() + " to "
                    + job.target().table() + " (target.schema: add_columns)");
        }
        return Optional.of(submission);
    }

    /** The ledger's violations in one line, each code with its reason; an empty source also says how to allow it. */
    static String violations(LedgerCallException e) {
        List<String> lines = new ArrayList<>();
        boolean empty = false;
        if (e.details().get("violations") instanceof List<?> all) {
            for (Object v : all) {
                if (v instanceof Map<?, ?> violation) {
                    empty |= "EMPTY_SOURCE_BLOCKED".equals(violation.get("code"));
                    lines.add(violation.get("code") + ": " + violation.get("message"));
                }
            }
        }
        String text = lines.isEmpty() ? e.ledgerMessage() : String.join("; ", lines);
        return empty ? text + " (a job whose key may have no rows says so with source.allow_empty: true)" : text;
    }

    private static RunFollower follower(LedgerClient client) {
        return new RunFollower(client, Duration.ofMillis(250), Duration.ofSeconds(30));
    }
}

package io.loadgate.cli;

import io.loadgate.worker.execution.SourceCache;
import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.job.JobSpecException;
import io.loadgate.worker.job.JobSpecLoader;
import io.loadgate.worker.ledger.LedgerCallException;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.ledger.RunApi.RunView;
import io.loadgate.worker.ledger.RunStatus;
import io.loadgate.worker.source.SourceException;
import io.loadgate.worker.submit.RunFollower;
import io.loadgate.worker.submit.RunSubmitter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "run", mixinStandardHelpOptions = true,
        description = {"Loads one business key of a job exactly once: plan at one snapshot, extract, validate, publish.",
                "Without --ledger, runs the ledger and workers in this process on $LOADGATE_HOME.",
                "Exit 0 on SUCCESS; 2 bad job or options; 3 ledger unreachable; 4 an active run exists;",
                "10..18 the run failed: MANIFEST, EXTRACT, SNAPSHOT_EXPIRED, STAGE_VALIDATION, PUBLISH,",
                "PUBLISH_UNKNOWN, TARGET_VALIDATION, TIMED_OUT, CANCELLED."})
final class RunCommand implements Callable<Integer> {
    @Parameters(paramLabel = "JOB.yaml", description = "the job spec")
    Path jobFile;

    @Option(names = "--business-key", required = true, paramLabel = "KEY",
            description = "the business key to load, e.g. a date (bound to :business_key in the job's filter)")
    String businessKey;

    @Option(names = "--threads", paramLabel = "N", defaultValue = "4",
            description = "worker threads when running in this process (default: ${DEFAULT-VALUE})")
    int threads;

    @Option(names = "--no-wait", description = "with --ledger: return once extraction is over instead of following"
            + " the run to its end (a PostgreSQL snapshot lives only as long as this process)")
    boolean noWait;

    @Mixin
    LedgerOptions ledgerOptions;

    @Override
    public Integer call() throws Exception {
        Logging.quietUnlessAsked();
        JobSpec job = loadJob();
        if (!businessKey.matches("[0-9A-Za-z_.:\\-]{1,200}")) {
            throw new CliException("--business-key must match ^[0-9A-Za-z_.:\\-]{1,200}$", LedgerOptions.EXIT_USAGE);
        }
        if (threads < 1 || threads > 256) {
            throw new CliException("--threads must be between 1 and 256", LedgerOptions.EXIT_USAGE);
        }
        String yaml = Files.readString(jobFile, StandardCharsets.UTF_8);
        if (ledgerOptions.ledgerGiven()) {
            LedgerClient client = ledgerOptions.client(LedgerOptions.Role.WORKER);
            return execute(client, new SourceCache(System.getenv()), job, yaml, noWait);
        }
        try (LocalLoadgate local = LocalLoadgate.start(threads)) {
            return execute(local.client(), local.sources(), job, yaml, false);
        }
    }

    private JobSpec loadJob() {
        try {
            return JobSpecLoader.load(jobFile);
        } catch (JobSpecException e) {
            throw new CliException(e.getMessage(), LedgerOptions.EXIT_USAGE);
        }
    }

    private int execute(LedgerClient client, SourceCache sources, JobSpec job, String yaml,
                        boolean returnAfterExtraction) throws InterruptedException {
        return submitAndFollow(client, sources, job, yaml, businessKey, returnAfterExtraction);
    }

    /** Submits a run and follows it to its end, printing progress and the summary; returns the exit code. */
    static int submitAndFollow(LedgerClient client, SourceCache sources, JobSpec job, String yaml, String businessKey,
                               boolean returnAfterExtraction) throws InterruptedException {
        RunSubmitter.Submission submission;
        try {
            submission = new RunSubmitter(client, sources, System.getenv()).submit(job, yaml, businessKey);
        } catch (JobSpecException | SourceException e) {
            throw new CliException(e.getMessage(), LedgerOptions.EXIT_USAGE);
        } catch (LedgerCallException e) {
            if ("DUPLICATE_ACTIVE_RUN".equals(e.code())) {
                throw new CliException("job " + job.jobKey() + " already has an active run "
                        + e.details().get("activeRunId") + " for " + businessKey
                        + " (see: loadgate runs show RUN_ID)", RunOutcome.ACTIVE_RUN_EXISTS);
            }
            if ("MANIFEST_INVALID".equals(e.code())) {
                System.out.println("the plan was refused: " + e.details().get("violations"));
                return RunOutcome.exitCode(RunStatus.FAILED_MANIFEST);
            }
            throw e;
        }
        try (submission) {
            System.out.printf("Run %s: %s, business key %s, %,d rows in %d partitions at snapshot %s%n",
                    submission.runId(), job.jobKey(), businessKey, submission.plan().split().rowCount(),
                    submission.plan().partitions().size(), submission.plan().snapshotRef());
            ProgressDisplay display = ProgressDisplay.forStdout();
            RunFollower follower = new RunFollower(client, Duration.ofMillis(250), Duration.ofSeconds(30));
            RunView end;
            if (returnAfterExtraction) {
                end = follower.followExtraction(submission.runId(), submission, display);
                System.out.println("Run " + end.runId() + " is " + end.status() + "; follow it with: loadgate runs show "
                        + end.runId());
                return end.status().isTerminal() ? RunOutcome.exitCode(end.status()) : 0;
            }
            end = follower.follow(submission.runId(), submission, display);
            RunReport.print(System.out, client, end);
            if (end.status() != RunStatus.SUCCESS) {
                System.err.println("loadgate: run " + end.runId() + " ended " + end.status() + ": "
                        + (end.errorMessage() == null ? RunOutcome.describe(end.status()) : end.errorMessage()));
            }
            return RunOutcome.exitCode(end.status());
        }
    }
}

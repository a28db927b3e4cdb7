package io.loadgate.cli;

import io.loadgate.api.BusinessKey;
import io.loadgate.api.JobKey;
import io.loadgate.api.RunApi.RunFilter;
import io.loadgate.worker.execution.SourceCache;
import io.loadgate.worker.execution.TargetCatalogs;
import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.source.SourceException;
import io.loadgate.worker.source.files.FileKey;
import io.loadgate.worker.source.files.FileSource;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "replay", mixinStandardHelpOptions = true,
        description = {"Loads several business keys of a job again, one run each, in the order given: each run",
                "replaces its key's partition in the target. Every key is checked before the first run starts.",
                "Stops at the first run that does not succeed unless --keep-going. Prints one line per key and a",
                "summary. Without --ledger, runs the ledger and workers in this process on $LOADGATE_HOME."},
        footer = {"A file job (source.files) takes Thrive's replaydirs file instead (--dirs-file: one d_YYYYMMDD-HHMM",
                "directory per line): each key those directories belong to is loaded again, whole. Every directory",
                "must be a due one under the source's root, and the whole file is refused while one of its keys has",
                "an active run (exit 4), before any run.",
                "Keys file: one business key per line; blank lines and '#' comments are ignored; a key may appear",
                "once. Exit codes: 0 every run succeeded; 2 bad job, options or key (nothing was run); 3 ledger",
                "unreachable; otherwise the exit code of the first run that failed, as 'loadgate run' has them."})
final class ReplayCommand implements Callable<Integer> {
    @Parameters(paramLabel = "JOB.yaml", description = "the job spec")
    Path jobFile;

    @Option(names = "--business-key", paramLabel = "KEY", description = "a business key to load; repeat for more")
    List<String> businessKeys = new ArrayList<>();

    @Option(names = "--keys-file", paramLabel = "FILE", description = "the business keys, one per line")
    Path keysFile;

    @Option(names = "--dirs-file", paramLabel = "FILE",
            description = "a file job's directories (d_20261130-1400), one per line: their keys are loaded again")
    Path dirsFile;

    @Option(names = "--keep-going", description = "run every key even after a run failed")
    boolean keepGoing;

    @Mixin
    ThreadsOption threads;

    @Mixin
    LedgerOptions ledgerOptions;

    @Mixin
    LedgerRetryOption ledgerRetry;

    @Mixin
    CatalogOptions catalogOptions;

    /** One key's line of the summary; {@code ended} is null for a run that could not start. */
    private record Outcome(String businessKey, RunCommand.Ended ended, String failure, int exitCode) {
        Outcome {
            java.util.Objects.requireNonNull(businessKey, "businessKey is null");
        }

        String line() {
            if (ended == null) {
                return String.format("%-24s %-36s %-26s %s", businessKey, "-", "NOT STARTED", failure);
            }
            return String.format("%-24s %-36s %-26s %,d rows", businessKey,
                    ended.runId() == null ? "-" : ended.runId(), ended.status(), ended.rows());
        }
    }

    @Override
    public Integer call() throws Exception {
        Logging.quietUnlessAsked();
        JobSpec job = JobInput.load(jobFile);
        int given = (businessKeys.isEmpty() ? 0 : 1) + (keysFile == null ? 0 : 1) + (dirsFile == null ? 0 : 1);
        if (given != 1) {
            throw new CliException("give the keys either with --business-key, with --keys-file or with --dirs-file",
                    LedgerOptions.EXIT_USAGE);
        }
        Map<String, List<String>> directories = dirsFile == null ? Map.of() : dueDirectories(job);
        // A source on the embedded PostgreSQL answers only once the ledger is up: its keys are checked then.
        List<String> named = dirsFile == null ? keys() : List.copyOf(directories.keySet());
        List<String> checked = dirsFile == null ? JobInput.canonicalKeysBeforeLedger(job, named, ledgerOptions) : named;
        threads.check();
        catalogOptions.requireLedger(ledgerOptions);
        String yaml = JobInput.text(jobFile);
        if (ledgerOptions.ledgerGiven()) {
            LedgerClient client = ledgerOptions.workerClient(ledgerRetry);
            refuseActive(client, job, directories.keySet());
            try (Interruption interruption = Interruption.install(Interruption.Mode.LEAVE);
                 TargetCatalogs catalogs = catalogOptions.openOrHome();
                 SourceCache sources = new SourceCache(System.getenv())) {
                return replay(client, sources, catalogs, job, yaml, checked, directories,
                        interruption);
            }
        }
        try (Interruption interruption = Interruption.install(Interruption.Mode.FINISH_OR_CANCEL)) {
            try (LocalLoadgate local = LocalLoadgate.start(threads.count)) {
                interruption.cancelWith(local.operatorClient());
                refuseActive(local.client(), job, directories.keySet());
                List<String> keys = checked != null ? checked : JobInput.canonicalKeys(job, named);
                return replay(local.client(), local.sources(), local.catalogs(), job, yaml, keys, directories,
                        interruption);
            }
        }
    }

    /**
     * The keys of the replaydirs file, oldest first, each with the directories named for it; every one must be a due
     * directory of the source now, or the replay would load a key without the data it was asked for.
     */
    private Map<String, List<String>> dueDirectories(JobSpec job) {
        Map<FileKey, List<String>> named = FileKeysInput.directories(job, dirsFile);
        Set<String> due;
        try {
            due = new FileSource(job.source().files(), new Configuration(), Clock.systemUTC()).directories().stream()
                    .map(FileSource.SourceDirectory::name).collect(Collectors.toSet());
        } catch (SourceException e) {
            throw new CliException(e.getMessage(), RunOutcome.SOURCE_UNAVAILABLE);
        }
        Map<String, List<String>> byKey = new LinkedHashMap<>();
        named.forEach((key, names) -> {
            for (String name : names) {
                if (!due.contains(name)) {
                    throw new CliException(dirsFile + ": directory " + name + " is not a due directory under "
                            + job.source().files().root() + " (absent, or newer than source.files.processing_delay)",
                            LedgerOptions.EXIT_USAGE);
                }
            }
            byKey.put(key.toString(), names);
        });
        return byKey;
    }

    /** Refuses the whole replay, before any run, while one of {@code keys} has an active run. */
    private void refuseActive(LedgerClient client, JobSpec job, Set<String> keys) {
        for (String key : keys) {
            ledgerOptions.call(client, c -> c.listRuns(new RunFilter(JobKey.of(job.jobKey()), BusinessKey.of(key), null,
                    1))).stream()
                    .filter(r -> r.status().isActive()).findFirst().ifPresent(active -> {
                        throw new CliException("job " + job.jobKey() + " has an active run " + active.runId() + " ("
                                + active.status() + ") for " + key + "; replay once it has ended (nothing was run)",
                                RunOutcome.ACTIVE_RUN_EXISTS);
                    });
        }
    }

    private List<String> keys() {
        if (keysFile == null) {
            Map<String, Integer> seen = new LinkedHashMap<>();
            for (String key : businessKeys) {
                JobInput.businessKey("--business-key", key);
                if (seen.putIfAbsent(key, seen.size() + 1) != null) {
                    throw new CliException("--business-key " + key + " is given twice", LedgerOptions.EXIT_USAGE);
                }
            }
            return List.copyOf(seen.keySet());
        }
        return readKeysFile(keysFile);
    }

    static List<String> readKeysFile(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new CliException("cannot read --keys-file " + file + ": " + CliErrors.oneLine(e),
                    LedgerOptions.EXIT_USAGE);
        }
        Map<String, Integer> lineOf = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            int hash = lines.get(i).indexOf('#');
            String key = (hash < 0 ? lines.get(i) : lines.get(i).substring(0, hash)).strip();
            if (key.isEmpty()) {
                continue;
            }
            String where = file + " line " + (i + 1);
            JobInput.businessKey(where, key);
            Integer first = lineOf.putIfAbsent(key, i + 1);
            if (first != null) {
                throw new CliException(where + ": business key " + key + " repeats line " + first,
                        LedgerOptions.EXIT_USAGE);
            }
        }
        if (lineOf.isEmpty()) {
            throw new CliException(file + " holds no business keys", LedgerOptions.EXIT_USAGE);
        }
        return List.copyOf(lineOf.keySet());
    }

    private int replay(LedgerClient client, SourceCache sources, TargetCatalogs catalogs, JobSpec job, String yaml,
                       List<String> keys, Map<String, List<String>> directories, Interruption interruption)
            throws InterruptedException {
        List<Outcome> outcomes = new ArrayList<>();
        for (int i = 0; i < keys.size() && !interruption.interrupted(); i++) {
            String key = keys.get(i);
            System.out.println("== replay " + (i + 1) + "/" + keys.size() + ": " + job.jobKey() + " business key " + key
                    + (directories.containsKey(key) ? " (for " + String.join(" ", directories.get(key)) + ")" : ""));
            Outcome outcome;
            try {
                RunCommand.Ended ended = RunCommand.load(client, sources, catalogs, job, yaml, key, interruption);
                outcome = new Outcome(key, ended, null, ended.exitCode(interruption));
            } catch (CliException e) {
                // The run could not start (an active run for the key, the source refused): the key failed, and
                // the next keys are independent of it, so --keep-going goes on.
                System.err.println("loadgate: " + key + ": " + e.getMessage());
                outcome = new Outcome(key, null, e.getMessage(), e.exitCode());
            }
            outcomes.add(outcome);
            System.out.println(outcome.line());
            if (outcome.exitCode() != 0 && !keepGoing) {
                break;
            }
        }
        int exit = summarise(job, keys, outcomes);
        return interruption.interrupted() ? interruption.exitCode() : exit;
    }

    private static int summarise(JobSpec job, List<String> keys, List<Outcome> outcomes) {
        System.out.println();
        System.out.printf("%-24s %-36s %-26s %s%n", "BUSINESS_KEY", "RUN_ID", "STATUS", "ROWS");
        outcomes.forEach(o -> System.out.println(o.line()));
        long succeeded = outcomes.stream().filter(o -> o.exitCode() == 0).count();
        int notRun = keys.size() - outcomes.size();
        System.out.printf("Replayed %s: %d of %d business keys succeeded, %d failed%s.%n", job.jobKey(), succeeded,
                keys.size(), outcomes.size() - succeeded, notRun == 0 ? ""
                        : ", " + notRun + " not run (stopped at the first failure; --keep-going runs them all)");
        return outcomes.stream().mapToInt(Outcome::exitCode).filter(code -> code != 0).findFirst().orElse(0);
    }
}

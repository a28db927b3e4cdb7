package io.loadgate.cli;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.BusinessKey;
import io.loadgate.api.ErrorCode;
import io.loadgate.api.JobKey;
import io.loadgate.api.LoadedKey;
import io.loadgate.api.RunApi.RunFilter;
import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunId;
import io.loadgate.worker.execution.SourceCache;
import io.loadgate.worker.execution.TargetCatalogs;
import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.ledger.LedgerCallException;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.source.SourceException;
import io.loadgate.worker.source.files.DueKeys;
import io.loadgate.worker.source.files.DueKeys.DueKey;
import io.loadgate.worker.source.files.FileSource;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;

/**
 * {@code loadgate load JOB.yaml} without a key, for a file job: every due key whose directories are not all loaded
 * (the ledger's loaded-directories), oldest first, one run each. Two of these at once never run a key twice: the
 * ledger's one-active-run rule refuses the second run of a key while the first is active, a key is checked again
 * just before its run, so a key another load finished meanwhile is skipped, and the create is refused (STALE_PLAN)
 * when another run of the key was created between that check and the create, so an older plan never runs after a
 * newer one; the key is then checked again. Nothing is held in this process: a load
 * that is killed leaves at most its current run, which the workers finish or the sweeper ends.
 */
final class DueLoad {
    private final LedgerClient client;
    private final SourceCache sources;
    private final TargetCatalogs catalogs;
    private final JobSpec job;
    private final String yaml;
    private final LedgerOptions ledgerOptions;

    /** {@code ledgerOptions} explains the ledger's errors (unreachable: exit 3). */
    DueLoad(LedgerClient client, SourceCache sources, TargetCatalogs catalogs, JobSpec job, String yaml,
            LedgerOptions ledgerOptions) {
        this.client = requireNonNull(client, "client is null");
        this.sources = requireNonNull(sources, "sources is null");
        this.catalogs = requireNonNull(catalogs, "catalogs is null");
        this.job = requireNonNull(job, "job is null");
        this.yaml = requireNonNull(yaml, "yaml is null");
        this.ledgerOptions = requireNonNull(ledgerOptions, "ledgerOptions is null");
    }

    /** One key's line; {@code ended} null when no run of this load ran for it. */
    private record Outcome(DueKey due, RunCommand.Ended ended, String note, int exitCode) {
        String line() {
            String key = String.format("%-16s", due.key());
            String late = (due.late().isEmpty() ? "" : "  late: " + String.join(" ", due.late()))
                    + (due.changed().isEmpty() ? "" : "  changed: " + String.join(" ", due.changed()));
            if (ended == null) {
                return String.format("%s %-36s %-26s %s%s", key, "-", "NOT STARTED", note, late);
            }
            return String.format("%s %-36s %-26s %,d rows%s", key, ended.runId() == null ? "-" : ended.runId(),
                    ended.status(), ended.rows(), late);
        }
    }

    /** Loads the due keys; returns the exit code of the first key that failed, or 0. */
    int run(boolean keepGoing, Interruption interruption) throws InterruptedException {
        FileSource source;
        List<DueKey> due;
        try {
            source = new FileSource(job.source().files(), new Configuration(), Clock.systemUTC());
            due = DueKeys.of(job.source().files().groupBy(), source.directories(), loaded());
        } catch (SourceException e) {
            throw new CliException(e.getMessage(), RunOutcome.SOURCE_UNAVAILABLE);
        }
        if (due.isEmpty()) {
            System.out.println("Nothing to load for " + job.jobKey() + ": every due directory is loaded.");
            return 0;
        }
        List<Outcome> outcomes = new ArrayList<>();
        for (int i = 0; i < due.size() && !interruption.interrupted(); i++) {
            Outcome outcome = load(source, due.get(i), i + 1, due.size(), interruption);
            outcomes.add(print(outcome));
            if (outcome.exitCode() != 0 && !keepGoing) {
                break;
            }
        }
        int exit = summarise(due, outcomes);
        return interruption.interrupted() ? interruption.exitCode() : exit;
    }

    /** How many times a key is planned again after the ledger found its plan stale, before it is left to a next load. */
    private static final int PLANS = 3;

    /** One due key ({@code number} of {@code count}): its run, or why this load left it. */
    private Outcome load(FileSource source, DueKey due, int number, int count, Interruption interruption)
            throws InterruptedException {
        String name = due.key().toString();
        for (int plan = 1; ; plan++) {
            // The key's latest run first, then the watermark: a run seen ended here has its SUCCESS (and its
            // directories) visible to the read after, so a key another load has just loaded is not due any more.
            Optional<RunView> previous = ledger(c -> c.listRuns(new RunFilter(JobKey.of(job.jobKey()),
                    BusinessKey.of(name), null, 1))).stream().findFirst();
            if (previous.isPresent() && previous.get().status().isActive()) {
                return new Outcome(due, null, "another run is loading it: " + previous.get().runId(), 0);
            }
            Optional<DueKey> still = stillDue(source, due);
            if (still.isEmpty()) {
                return new Outcome(due, null, "loaded by another load meanwhile", 0);
            }
            DueKey key = still.get();
            System.out.println("== load " + number + "/" + count + ": " + job.jobKey() + " business key "
                    + key.key() + (key.late().isEmpty() ? "" : " (late: " + String.join(" ", key.late())
                    + ": the key is loaded again with all its directories)")
                    + (key.changed().isEmpty() ? "" : " (changed: " + String.join(" ", key.changed())
                    + ": files changed since the key was loaded; it is loaded again as its files are now)"));
            RunId after = previous.map(RunView::runId).orElse(null);
            try {
                // Once per snapshot after the run seen: a load that planned the same directories after the same
                // run meanwhile made the run this one follows (the ledger's idempotent create), never a second;
                // and none at all once another run of the key was created since that run (STALE_PLAN below).
                RunCommand.Ended ended = RunCommand.loadOncePerSnapshot(client, sources, catalogs, job, yaml,
                        name, after, interruption);
                // The ledger counts the late directories (loadgate_late_directories_total) with the SUCCESS.
                return new Outcome(key, ended, null, ended.exitCode(interruption));
            } catch (LedgerCallException e) {
                if (!e.is(ErrorCode.STALE_PLAN)) {
                    throw e;
                }
                // Another load ran the key between this one's plan and its create: this plan may be older than
                // that run's, so it is not run; the key's state is read again (loaded, active, or still due).
                String note = "another run " + e.details().get("latestRunId") + " was created since the plan";
                System.out.println(name + ": " + note + (plan < PLANS ? "; planning again" : ""));
                if (plan == PLANS) {
                    return new Outcome(key, null, note + " " + PLANS + " times; left to the next load", 0);
                }
            } catch (CliException e) {
                if (e.exitCode() == RunOutcome.ACTIVE_RUN_EXISTS) {
                    // Another load (or an operator's run) started this key since: not this load's failure; the
                    // next load finds the key loaded, or due again if that run failed.
                    return new Outcome(key, null, "another run is loading it: " + e.getMessage(), 0);
                }
                System.err.println("loadgate: " + key.key() + ": " + e.getMessage());
                return new Outcome(key, null, e.getMessage(), e.exitCode());
            }
        }
    }

    private <T> T ledger(Function<LedgerClient, T> call) {
        return ledgerOptions.call(client, call);
    }

    private List<LoadedKey> loaded() {
        return ledger(c -> c.loadedDirectories(job.jobKey()));
    }

    private static Outcome print(Outcome outcome) {
        System.out.println(outcome.line());
        return outcome;
    }

    /** The key as due now: another load may have loaded it since the first listing. */
    private Optional<DueKey> stillDue(FileSource source, DueKey key) {
        try {
            return DueKeys.of(job.source().files().groupBy(), source.directories(key.key()), loaded())
                    .stream().findFirst();
        } catch (SourceException e) {
            throw new CliException(e.getMessage(), RunOutcome.SOURCE_UNAVAILABLE);
        }
    }

    private int summarise(List<DueKey> due, List<Outcome> outcomes) {
        System.out.println();
        System.out.printf("%-16s %-36s %-26s %s%n", "BUSINESS_KEY", "RUN_ID", "STATUS", "ROWS");
        outcomes.forEach(o -> System.out.println(o.line()));
        long loadedKeys = outcomes.stream().filter(o -> o.ended() != null && o.exitCode() == 0).count();
        long failed = outcomes.stream().filter(o -> o.exitCode() != 0).count();
        long skipped = outcomes.size() - loadedKeys - failed;
        long late = outcomes.stream().filter(o -> o.ended() != null && o.exitCode() == 0)
                .mapToLong(o -> o.due().late().size()).sum();
        int notRun = due.size() - outcomes.size();
        System.out.printf("Loaded %s: %d of %d due keys loaded, %d failed, %d skipped%s%s.%n", job.jobKey(),
                loadedKeys, due.size(), failed, skipped, late == 0 ? "" : ", " + late + " late directories caught",
                notRun == 0 ? "" : ", " + notRun + " not run (stopped at the first failure; --keep-going runs them all)");
        return outcomes.stream().mapToInt(Outcome::exitCode).filter(code -> code != 0).findFirst().orElse(0);
    }
}

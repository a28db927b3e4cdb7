package io.loadgate.cli;

import io.loadgate.api.BusinessKey;
import io.loadgate.api.JobKey;
import io.loadgate.api.MonitorHistory;
import io.loadgate.api.RunApi.RunFilter;
import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunId;
import io.loadgate.api.RunStatus;
import io.loadgate.api.TargetState;
import io.loadgate.worker.ledger.LedgerClient;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "runs", mixinStandardHelpOptions = true,
        description = "Lists runs, shows one in detail, counts them per hour or day, shows the rows one rejected.",
        subcommands = {RunsCommand.ListRuns.class, RunsCommand.Show.class, RunsCommand.History.class,
                RejectsCommand.class})
final class RunsCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    static String time(Instant instant) {
        return instant == null ? null : instant.truncatedTo(ChronoUnit.SECONDS).toString();
    }

    /** SUCCESS, or SUCCESS (REPLACED) / (ROLLED_BACK) when the target no longer holds the run's rows. */
    static String status(RunView run) {
        return status(run.status(), run.targetState());
    }

    static String status(RunStatus status, TargetState targetState) {
        return targetState == null || targetState == TargetState.CURRENT ? status.name()
                : status + " (" + targetState + ")";
    }

    static String ratio(long done, Long of) {
        return done + "/" + (of == null ? "-" : of);
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "Lists runs, newest first.",
            footer = "Exit codes: 0 listed, 1 the ledger refused, 2 bad input, 3 the ledger is unreachable.")
    static final class ListRuns implements Runnable {
        @Spec
        CommandSpec spec;

        @Mixin
        LedgerOptions ledger;

        @Option(names = "--job", paramLabel = "K", description = "only runs of this job key")
        String jobKey;

        @Option(names = "--business-key", paramLabel = "B", description = "only runs for this business key")
        String businessKey;

        @Option(names = "--status", paramLabel = "S", description = "only runs in this status: ${COMPLETION-CANDIDATES}")
        RunStatus status;

        @Option(names = "--limit", paramLabel = "N", defaultValue = "100",
                description = "at most N runs, 1..1000 (default: ${DEFAULT-VALUE})")
        int limit;

        @Override
        public void run() {
            if (limit < 1 || limit > 1000) {
                throw new CliException("--limit must be between 1 and 1000, got " + limit, LedgerOptions.EXIT_USAGE);
            }
            LedgerClient client = ledger.client(LedgerOptions.Role.WORKER);
            List<RunView> runs = ledger.call(client, c -> c.listRuns(new RunFilter(
                    LedgerOptions.key("--job", jobKey, JobKey::of),
                    LedgerOptions.key("--business-key", businessKey, BusinessKey::of), status, limit)));
            ledger.print(spec.commandLine().getOut(), runs, out -> print(out, runs));
        }

        private static void print(PrintWriter out, List<RunView> runs) {
            if (runs.isEmpty()) {
                out.println("No runs.");
                return;
            }
            Table table = new Table("RUN_ID", "JOB", "BUSINESS_KEY", "STATUS", "PARTITIONS", "ROWS", "STARTED",
                    "ERROR");
            for (RunView run : runs) {
                table.row(run.runId(), run.jobKey(), run.businessKey(), status(run),
                        ratio(run.successPartitionCount(), run.expectedPartitionCount()),
                        ratio(run.extractedCount(), run.sourceCount()), time(run.startedAt()), run.errorCode());
            }
            table.print(out);
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true,
            description = "Shows a run: its state, its metrics (source, staged, target), partitions, dispatches and last "
                    + "events.",
            footer = "Exit codes: 0 shown, 1 the ledger refused (e.g. no such run), 2 bad input, 3 the ledger is unreachable.")
    static final class Show implements Runnable {
        @Spec
        CommandSpec spec;

        @Mixin
        LedgerOptions ledger;

        @Parameters(paramLabel = "RUN_ID", description = "the run's id")
        String runId;

        @Option(names = "--events", paramLabel = "N", defaultValue = "20",
                description = "how many of the last events to show (default: ${DEFAULT-VALUE})")
        int events;

        @Override
        public void run() {
            RunId id = LedgerOptions.runId("RUN_ID", runId);
            if (events < 0) {
                throw new CliException("--events must not be negative, got " + events, LedgerOptions.EXIT_USAGE);
            }
            RunDetail detail = RunDetail.read(ledger, ledger.client(LedgerOptions.Role.WORKER), id, events);
            Map<String, Object> shown = new LinkedHashMap<>();
            shown.put("run", detail.run());
            shown.put("validations", detail.validations());
            shown.put("events", detail.last());
            ledger.print(spec.commandLine().getOut(), shown, out -> detail.lines(0).forEach(out::println));
        }
    }

    @Command(name = "history", mixinStandardHelpOptions = true,
            description = "Counts the runs that ended per job and UTC hour (the last 24 h) or day (the last 14 days): "
                    + "outcomes, rows read, staged and published, the loss between them, durations.",
            footer = {"LOSS is the share of the rows the bucket's SUCCESS runs read that did not reach the target "
                    + "(rejected rows included); '-' when they read none.",
                "Exit codes: 0 shown, 1 the ledger refused, 2 bad input, 3 the ledger is unreachable."})
    static final class History implements Runnable {
        @Spec
        CommandSpec spec;

        @Mixin
        LedgerOptions ledger;

        @Option(names = "--job", paramLabel = "K", description = "only this job key")
        String jobKey;

        @Option(names = "--bucket", paramLabel = "B", defaultValue = "HOUR",
                description = "HOUR (the last 24 hours) or DAY (the last 14 days) (default: ${DEFAULT-VALUE})")
        MonitorHistory.Bucket bucket;

        @Override
        public void run() {
            LedgerClient client = ledger.client(LedgerOptions.Role.READER);
            MonitorHistory history = ledger.call(client, c -> c.monitorHistory(
                    LedgerOptions.key("--job", jobKey, JobKey::of), null, bucket));
            ledger.print(spec.commandLine().getOut(), history, out -> print(out, history));
        }

        private void print(PrintWriter out, MonitorHistory history) {
            if (history.rows().isEmpty()) {
                out.println("No run ended since " + time(history.from()) + (jobKey == null ? "." : " in job " + jobKey
                        + "."));
                return;
            }
            Table table = new Table("JOB", bucket == MonitorHistory.Bucket.HOUR ? "HOUR" : "DAY", "OUTCOMES",
                    "READ", "STAGED", "PUBLISHED", "LOSS", "AVG_S", "MAX_S");
            for (MonitorHistory.Row row : history.rows()) {
                String outcomes = row.runsByOutcome().entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
                        .collect(Collectors.joining(", "));
                table.row(row.jobKey(), time(row.bucketStart()), outcomes, row.rowsRead(), row.rowsStaged(),
                        row.rowsPublished(), row.percentLoss() == null ? null
                                : String.format(Locale.ROOT, "%.2f%%", row.percentLoss()),
                        Math.round(row.durationSecondsAvg()), Math.round(row.durationSecondsMax()));
            }
            table.print(out);
        }
    }
}

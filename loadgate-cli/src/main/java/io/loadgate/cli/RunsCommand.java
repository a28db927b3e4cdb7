package io.loadgate.cli;

import io.loadgate.api.PartitionStatus;
import io.loadgate.api.RunApi.DispatchView;
import io.loadgate.api.RunApi.Event;
import io.loadgate.api.RunApi.PartitionView;
import io.loadgate.api.RunApi.RunFilter;
import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunStatus;
import io.loadgate.api.TargetState;
import io.loadgate.worker.ledger.LedgerClient;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "runs", mixinStandardHelpOptions = true,
        description = "Lists runs, shows one in detail, shows the rows one rejected.",
        subcommands = {RunsCommand.ListRuns.class, RunsCommand.Show.class, RejectsCommand.class})
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
        return run.targetState() == null || run.targetState() == TargetState.CURRENT ? run.status().name()
                : run.status() + " (" + run.targetState() + ")";
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
            List<RunView> runs = ledger.call(client, c -> c.listRuns(new RunFilter(jobKey, businessKey, status, limit)));
            PrintWriter out = spec.commandLine().getOut();
            if (ledger.json) {
                out.println(LedgerOptions.toJson(runs));
            } else if (runs.isEmpty()) {
                out.println("No runs.");
            } else {
                Table table = new Table("RUN_ID", "JOB", "BUSINESS_KEY", "STATUS", "PARTITIONS", "ROWS", "STARTED",
                        "ERROR");
                for (RunView run : runs) {
                    table.row(run.runId(), run.jobKey(), run.businessKey(), status(run),
                            ratio(run.successPartitionCount(), run.expectedPartitionCount()),
                            ratio(run.extractedCount(), run.sourceCount()), time(run.startedAt()), run.errorCode());
                }
                table.print(out);
            }
            out.flush();
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true,
            description = "Shows a run: its state, partitions, dispatches and last events.",
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
            UUID id = LedgerOptions.uuid("RUN_ID", runId);
            if (events < 0) {
                throw new CliException("--events must not be negative, got " + events, LedgerOptions.EXIT_USAGE);
            }
            LedgerClient client = ledger.client(LedgerOptions.Role.WORKER);
            RunView run = ledger.call(client, c -> c.getRun(id));
            List<Event> all = events == 0 ? List.of() : ledger.call(client, c -> c.allEvents(id));
            List<Event> last = all.subList(Math.max(0, all.size() - events), all.size());
            PrintWriter out = spec.commandLine().getOut();
            if (ledger.json) {
                Map<String, Object> shown = new LinkedHashMap<>();
                shown.put("run", run);
                shown.put("events", last);
                out.println(LedgerOptions.toJson(shown));
            } else {
                print(out, run, last, all.size());
            }
            out.flush();
        }

        private static void print(PrintWriter out, RunView run, List<Event> last, int eventCount) {
            Table summary = new Table("FIELD", "VALUE");
            summary.row("run", run.runId());
            summary.row("job", run.jobKey());
            summary.row("business key", run.businessKey());
            summary.row("status", status(run));
            summary.row("executor", run.executor());
            summary.row("snapshot", run.snapshotScn() != null ? run.snapshotScn() : run.snapshotRef());
            summary.row("partitions", ratio(run.successPartitionCount(), run.expectedPartitionCount())
                    + " succeeded, " + run.failedPartitionCount() + " failed");
            summary.row("rows", ratio(run.extractedCount(), run.sourceCount()) + " extracted"
                    + (run.rejectedCount() == 0 ? "" : ", " + run.rejectedCount() + " rejected")
                    + (run.stagingCount() == null ? "" : ", " + run.stagingCount() + " staged")
                    + (run.targetCount() == null ? "" : ", " + run.targetCount() + " in target"));
            summary.row("stage path", run.hdfsRunPath());
            summary.row("stage table", run.stageTable());
            summary.row("target", run.targetRef());
            summary.row("started", time(run.startedAt()));
            summary.row("heartbeat", time(run.heartbeatAt()));
            summary.row("extracted", time(run.extractCompletedAt()));
            summary.row("completed", time(run.completedAt()));
            if (run.errorCode() != null || run.errorMessage() != null) {
                summary.row("error", (run.errorStage() == null ? "" : run.errorStage() + " ")
                        + (run.errorCode() == null ? "" : run.errorCode() + ": ")
                        + (run.errorMessage() == null ? "" : run.errorMessage()));
            }
            summary.print(out);

            out.println();
            out.println("Partitions (" + run.partitions().size() + ")");
            if (!run.partitions().isEmpty()) {
                Table partitions = new Table("PARTITION", "STATUS", "EXPECTED", "READ", "ACTUAL", "FILES", "ATTEMPTS",
                        "WORKER", "ERROR");
                for (PartitionView p : run.partitions()) {
                    // Rows read tell how far a partition being extracted is; once it is done, ACTUAL says it all.
                    Long read = p.status() == PartitionStatus.RUNNING ? p.rowsRead() : null;
                    partitions.row(p.partitionId(), p.status(), p.expectedRowCount(), read, p.actualRowCount(),
                            p.fileCount(), p.attemptCount(), p.workerNode(), p.errorCode());
                }
                partitions.print(out);
                long[] mapped = new long[3];
                boolean anyMapped = false;
                for (PartitionView p : run.partitions()) {
                    if (p.linesRead() != null) {
                        anyMapped = true;
                        mapped[0] += p.linesRead();
                        mapped[1] += p.linesSkipped();
                        mapped[2] += p.rowsEmitted();
                    }
                }
                if (anyMapped) {
                    // EXPECTED counts lines and ACTUAL rows: the mapper's counts are what reconciles the two.
                    out.println("mapper: " + mapped[0] + " lines read, " + mapped[1] + " skipped, " + mapped[2]
                            + " rows emitted (EXPECTED is lines, ACTUAL rows staged and rejected)");
                }
            }

            out.println();
            out.println("Dispatches (" + run.dispatches().size() + ")");
            if (!run.dispatches().isEmpty()) {
                Table dispatches = new Table("DISPATCH_ID", "TYPE", "PARTITION", "STATUS", "ATTEMPTS", "SENT", "ACKED");
                for (DispatchView d : run.dispatches()) {
                    dispatches.row(d.dispatchId(), d.dispatchType(), d.partitionId(), d.status(), d.attemptCount(),
                            time(d.sentAt()), time(d.ackedAt()));
                }
                dispatches.print(out);
            }

            out.println();
            out.println("Events (last " + last.size() + " of " + eventCount + ")");
            if (!last.isEmpty()) {
                Table events = new Table("TIME", "EVENT", "PARTITION", "CHANGE", "ACTOR");
                for (Event e : last) {
                    String change = e.fromStatus() == null && e.toStatus() == null ? null
                            : (e.fromStatus() == null ? "" : e.fromStatus() + " -> ") + (e.toStatus() == null ? "" : e.toStatus());
                    events.row(time(e.createdAt()), e.eventType(), e.partitionId(), change, e.actor());
                }
                events.print(out);
            }
        }
    }
}

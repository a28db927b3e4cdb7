package io.loadgate.cli;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.PartitionStatus;
import io.loadgate.api.RunApi.DispatchView;
import io.loadgate.api.RunApi.Event;
import io.loadgate.api.RunApi.PartitionView;
import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunId;
import io.loadgate.api.StepApi.MetricResult;
import io.loadgate.api.StepApi.Stage;
import io.loadgate.api.StepApi.ValidationView;
import io.loadgate.worker.ledger.LedgerClient;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Map;

/**
 * One run in detail — its state, its metrics side by side (source, staged, target), partitions, dispatches and last
 * events — as {@code loadgate runs show} prints it and the live monitor's detail view draws it.
 */
record RunDetail(RunView run, List<ValidationView> validations, List<Event> last, int eventCount) {
    RunDetail {
        requireNonNull(run, "run is null");
        validations = List.copyOf(validations);
        last = List.copyOf(last);
    }

    /** The run, its metrics and its last {@code events} events; ledger errors come as {@link CliException}s. */
    static RunDetail read(LedgerOptions ledger, LedgerClient client, RunId runId, int events) {
        RunView run = ledger.call(client, c -> c.getRun(runId));
        List<ValidationView> validations = ledger.call(client, c -> c.validations(runId));
        List<Event> all = events == 0 ? List.of() : ledger.call(client, c -> c.allEvents(runId));
        return new RunDetail(run, validations, all.subList(Math.max(0, all.size() - events), all.size()), all.size());
    }

    /**
     * The detail's lines; with {@code columns} > 0 every table is cut to fit that many columns (the monitor's pane),
     * with 0 the tables keep their natural width (a command's output, which may be piped).
     */
    List<String> lines(int columns) {
        List<String> lines = new ArrayList<>();
        Table summary = new Table("FIELD", "VALUE");
        summary.row("run", run.runId());
        summary.row("job", run.jobKey());
        summary.row("business key", run.businessKey());
        summary.row("status", RunsCommand.status(run));
        summary.row("executor", run.executor());
        summary.row("snapshot", run.snapshotScn() != null ? run.snapshotScn() : run.snapshotRef());
        summary.row("partitions", RunsCommand.ratio(run.successPartitionCount(), run.expectedPartitionCount())
                + " succeeded, " + run.failedPartitionCount() + " failed");
        summary.row("rows", RunsCommand.ratio(run.extractedCount(), run.sourceCount()) + " extracted"
                + (run.rejectedCount() == 0 ? "" : ", " + run.rejectedCount() + " rejected")
                + (run.stagingCount() == null ? "" : ", " + run.stagingCount() + " staged")
                + (run.targetCount() == null ? "" : ", " + run.targetCount() + " in target"));
        summary.row("stage path", run.hdfsRunPath());
        summary.row("stage table", run.stageTable());
        summary.row("target", run.targetRef());
        summary.row("started", RunsCommand.time(run.startedAt()));
        summary.row("heartbeat", RunsCommand.time(run.heartbeatAt()));
        summary.row("extracted", RunsCommand.time(run.extractCompletedAt()));
        summary.row("completed", RunsCommand.time(run.completedAt()));
        if (run.errorCode() != null || run.errorMessage() != null) {
            summary.row("error", (run.errorStage() == null ? "" : run.errorStage() + " ")
                    + (run.errorCode() == null ? "" : run.errorCode() + ": ")
                    + (run.errorMessage() == null ? "" : run.errorMessage()));
        }
        add(lines, summary, columns, 0, 20);

        lines.add("");
        lines.add("Metrics (source / staged / target)");
        Table metrics = new Table("METRIC", "SOURCE", "STAGED", "TARGET", "RESULT");
        // The run's own counts first: what the manifest promised, what staging and the target counted.
        metrics.row("rows (run)", run.sourceCount(), run.stagingCount(), run.targetCount(), null);
        metrics(metrics);
        add(lines, metrics, columns, 16, 12, 12, 12, 0);

        lines.add("");
        lines.add("Partitions (" + run.partitions().size() + ")");
        if (!run.partitions().isEmpty()) {
            Table partitions = new Table("PARTITION", "STATUS", "EXPECTED", "READ", "ACTUAL", "FILES", "ATTEMPTS",
                    "WORKER", "ERROR");
            for (PartitionView p : run.partitions()) {
                // Rows read tell how far a partition being extracted is; once it is done, ACTUAL says it all.
                Long read = p.status() == PartitionStatus.RUNNING ? p.rowsRead() : null;
                partitions.row(p.partitionId(), p.status(), p.expectedRowCount(), read, p.actualRowCount(),
                        p.fileCount(), p.attemptCount(), p.workerNode(), p.errorCode());
            }
            add(lines, partitions, columns, 0, 0, 0, 0, 0, 0, 0, 12, 12);
            mapperTotals(run).ifPresent(lines::add);
        }

        lines.add("");
        lines.add("Dispatches (" + run.dispatches().size() + ")");
        if (!run.dispatches().isEmpty()) {
            Table dispatches = new Table("DISPATCH_ID", "TYPE", "PARTITION", "STATUS", "ATTEMPTS", "SENT", "ACKED");
            for (DispatchView d : run.dispatches()) {
                dispatches.row(d.dispatchId(), d.dispatchType(), d.partitionId(), d.status(), d.attemptCount(),
                        RunsCommand.time(d.sentAt()), RunsCommand.time(d.ackedAt()));
            }
            add(lines, dispatches, columns, 36, 17, 9, 0, 0, 20, 20);
        }

        lines.add("");
        lines.add("Events (last " + last.size() + " of " + eventCount + ")");
        if (!last.isEmpty()) {
            Table events = new Table("TIME", "EVENT", "PARTITION", "CHANGE", "ACTOR");
            for (Event e : last) {
                String change = e.fromStatus() == null && e.toStatus() == null ? null
                        : (e.fromStatus() == null ? "" : e.fromStatus() + " -> ")
                                + (e.toStatus() == null ? "" : e.toStatus());
                events.row(RunsCommand.time(e.createdAt()), e.eventType(), e.partitionId(), change, e.actor());
            }
            add(lines, events, columns, 0, 14, 9, 20, 12);
        }
        return lines;
    }

    /**
     * One row per metric, in the order the validators recorded them: a STAGING metric compares the source with the
     * stage, a TARGET metric the source with the target, so the source is either's expected value.
     */
    private void metrics(Table table) {
        Map<String, ValidationView[]> byName = new LinkedHashMap<>();
        for (ValidationView v : validations) {
            byName.computeIfAbsent(v.metricName(), k -> new ValidationView[2])[v.stage() == Stage.STAGING ? 0 : 1] = v;
        }
        byName.forEach((name, of) -> {
            ValidationView staged = of[0];
            ValidationView target = of[1];
            String source = staged != null ? staged.expectedValue() : target.expectedValue();
            List<String> results = new ArrayList<>();
            for (ValidationView v : of) {
                // The ledger's verdict where it judged, else the validator's claim.
                MetricResult result = v == null ? null : v.judgedResult() != null ? v.judgedResult() : v.result();
                if (result != null && result != MetricResult.PASS) {
                    results.add(v.stage() + " " + result);
                }
            }
            table.row(name, source, staged == null ? null : staged.actualValue(),
                    target == null ? null : target.actualValue(), results.isEmpty() ? "PASS" : String.join(", ", results));
        });
    }

    private static void add(List<String> lines, Table table, int columns, int... keep) {
        if (columns > 0) {
            table.fitWidth(columns, keep);
        }
        lines.addAll(table.lines());
    }

    /** A mapper's totals over the partitions it gave rows to: EXPECTED counts lines there, ACTUAL rows. */
    private static Optional<String> mapperTotals(RunView run) {
        long read = 0;
        long skipped = 0;
        long emitted = 0;
        boolean mapped = false;
        for (PartitionView p : run.partitions()) {
            if (p.linesRead() != null) {
                mapped = true;
                read += p.linesRead();
                skipped += p.linesSkipped();
                emitted += p.rowsEmitted();
            }
        }
        return mapped ? Optional.of("mapper: " + read + " lines read, " + skipped + " skipped, " + emitted
                + " rows emitted (EXPECTED is lines, ACTUAL rows staged and rejected)") : Optional.empty();
    }
}

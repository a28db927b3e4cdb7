package io.loadgate.cli;

import io.loadgate.api.ChunkKind;
import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.StepApi.Stage;
import io.loadgate.api.StepApi.StagedFile;
import io.loadgate.api.StepApi.ValidationView;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.staging.RejectsWriter;
import io.loadgate.worker.validation.MetricNames;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** The summary printed when a run ends: counts per stage, metrics side by side, files, bytes, time. */
final class RunReport {
    private RunReport() {
    }

    static void print(PrintStream out, LedgerClient ledger, RunView run) {
        Duration took = Duration.between(run.startedAt(), run.completedAt() == null ? java.time.Instant.now()
                : run.completedAt());
        out.println();
        out.printf("Run %s  %s  (%s)%n", run.runId(), run.status(), RunOutcome.describe(run.status()));
        out.printf("  job %s, business key %s, %.1f s%n", run.jobKey(), run.businessKey(), took.toMillis() / 1000.0);
        out.printf("  partitions  %d succeeded, %d failed of %s%n", run.successPartitionCount(),
                run.failedPartitionCount(), run.expectedPartitionCount());
        out.printf("  rows        source %s, extracted %,d, staged %s, target %s%n", number(run.sourceCount()),
                run.extractedCount(), number(run.stagingCount()), number(run.targetCount()));
        List<StagedFile> files = ledger.files(run.runId());
        long bytes = files.stream().mapToLong(StagedFile::byteCount).sum();
        out.printf("  files       %d chunk files, %s%n", files.size(), bytes(bytes));
        List<StagedFile> rejects = files.stream().filter(f -> f.kind() == ChunkKind.REJECTS).toList();
        if (!rejects.isEmpty()) {
            out.printf("  rejected    %,d rows, kept with their reasons in %d files (column %s), e.g.%n",
                    run.rejectedCount(), rejects.size(), RejectsWriter.REASON_COLUMN);
            out.printf("              %s%n", rejects.get(0).hdfsPath());
        }
        if (run.targetRef() != null) {
            // An Iceberg snapshot id, or the warehouse transaction that replaced the key's rows.
            out.printf("  target      committed as %s%n", run.targetRef());
        }
        if (run.errorCode() != null) {
            out.printf("  error       %s %s: %s%n", run.errorStage(), run.errorCode(), run.errorMessage());
        }
        metrics(out, ledger.validations(run.runId()));
        if (run.rejectedCount() > 0) {
            out.printf("With %,d rows rejected: COUNT is the rows kept (source %s less the rejected); the other staging%n"
                    + "metrics compare kept and rejected rows together with the source; the target holds the kept rows.%n",
                    run.rejectedCount(), number(run.sourceCount()));
        }
    }

    private static void metrics(PrintStream out, List<ValidationView> validations) {
        if (validations.isEmpty()) {
            return;
        }
        Map<String, String[]> rows = new java.util.TreeMap<>((a, b) -> a.equals(b) ? 0 : a.equals("COUNT") ? -1
                : b.equals("COUNT") ? 1 : a.compareTo(b));
        for (ValidationView v : validations) {
            if (v.metricName().startsWith(MetricNames.DATA_PREFIX)) {
                // The data chunks' own metrics, which target validation compares with; the table shows the judged ones.
                continue;
            }
            String name = v.metricName().replace("STAGE_COUNT", "COUNT").replace("TARGET_COUNT", "COUNT");
            String[] row = rows.computeIfAbsent(name, n -> new String[] {n, "", "", "", "PASS"});
            // The source's value is what staging compared with; target validation's expectation differs from it when
            // rows were rejected (the target holds the kept rows only).
            if (v.stage() == Stage.STAGING || row[1].isEmpty()) {
                row[1] = v.expectedValue() == null ? "" : v.expectedValue();
            }
            if (v.stage() == Stage.STAGING) {
                row[2] = v.actualValue() == null ? "" : v.actualValue();
            } else {
                row[3] = v.actualValue() == null ? "" : v.actualValue();
            }
            if (v.judgedResult() != null && !"PASS".equals(v.judgedResult().name())) {
                row[4] = v.judgedResult().name();
            }
        }
        Table table = new Table("metric", "source", "staging", "target", "verdict");
        rows.values().forEach(r -> table.row((Object[]) r));
        out.println();
        java.io.PrintWriter writer = new java.io.PrintWriter(out, true);
        table.print(writer);
        writer.flush();
    }

    private static String number(Long value) {
        return value == null ? "-" : String.format("%,d", value);
    }

    static String bytes(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        if (bytes < 1024 * 1024) {
            return String.format("%.1f KiB", bytes / 1024.0);
        }
        return String.format("%.1f MiB", bytes / (1024.0 * 1024));
    }
}

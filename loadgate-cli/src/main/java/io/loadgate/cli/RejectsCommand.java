package io.loadgate.cli;

import io.loadgate.api.ChunkKind;
import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunId;
import io.loadgate.api.StepApi.StagedFile;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.staging.RejectsWriter;
import io.loadgate.worker.validation.StagedFilesReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code loadgate runs rejects RUN_ID}: the rows a run's transforms rejected, counted by rule and shown with their
 * reasons, read from the run's REJECTS chunks (the ledger's list) so an operator needs no Parquet tool at night.
 */
@Command(name = "rejects", mixinStandardHelpOptions = true,
        description = {"Shows the rows a run's transforms rejected: how many per rule, then the first rows with their",
                "reasons. Reads the run's rejects files from its staging path, so run it where that path is readable."},
        footer = "Exit codes: 0 shown, 1 the ledger refused (e.g. no such run) or a file could not be read, 2 bad input,"
                + " 3 the ledger is unreachable.")
final class RejectsCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Mixin
    LedgerOptions ledger;

    @Parameters(paramLabel = "RUN_ID", description = "the run's id")
    String runId;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "20",
            description = "how many rejected rows to show, 0..10000 (default: ${DEFAULT-VALUE})")
    int limit;

    @Override
    public void run() {
        RunId id = LedgerOptions.runId("RUN_ID", runId);
        if (limit < 0 || limit > 10_000) {
            throw new CliException("--limit must be between 0 and 10000, got " + limit, LedgerOptions.EXIT_USAGE);
        }
        LedgerClient client = ledger.client(LedgerOptions.Role.WORKER);
        RunView run = ledger.call(client, c -> c.getRun(id));
        List<URI> files = ledger.call(client, c -> c.files(id)).stream().filter(f -> f.kind() == ChunkKind.REJECTS)
                .map(StagedFile::hdfsPath).map(URI::create).toList();
        Rejects rejects = files.isEmpty() ? new Rejects(List.of(), Map.of(), List.of()) : read(files);
        Map<String, Object> shown = new LinkedHashMap<>();
        shown.put("runId", run.runId());
        shown.put("rejectedCount", run.rejectedCount());
        shown.put("files", files.stream().map(URI::toString).toList());
        shown.put("byRule", rejects.byRule());
        shown.put("rows", rejects.rows());
        ledger.print(spec.commandLine().getOut(), shown, out -> print(out, run, files, rejects));
    }

    /** What the files hold: the count per rule over every row, and the first {@code limit} rows in full. */
    private record Rejects(List<String> columns, Map<String, Long> byRule, List<Map<String, Object>> rows) {
    }

    private Rejects read(List<URI> files) {
        StagedFilesReader reader = new StagedFilesReader(new Configuration());
        Schema schema = reader.schemaOf(files.get(0));
        Types.NestedField reasonField = schema.findField(RejectsWriter.REASON_COLUMN);
        if (reasonField == null) {
            throw new CliException(files.get(0) + " has no " + RejectsWriter.REASON_COLUMN + " column; is it a rejects"
                    + " file?", LedgerOptions.EXIT_REFUSED);
        }
        Map<String, Long> byRule = new TreeMap<>();
        // The reasons alone first (one column read), then the first rows whole.
        try (CloseableIterable<Record> reasons = reader.read(schema.select(RejectsWriter.REASON_COLUMN), files)) {
            for (Record r : reasons) {
                byRule.merge(rule((String) r.get(0)), 1L, Long::sum);
            }
        } catch (IOException | UncheckedIOException e) {
            throw new CliException("cannot read the rejects files: " + CliErrors.oneLine(e), LedgerOptions.EXIT_REFUSED);
        }
        List<String> columns = schema.columns().stream().map(Types.NestedField::name).toList();
        List<Map<String, Object>> rows = new ArrayList<>();
        if (limit > 0) {
            try (CloseableIterable<Record> records = reader.read(schema, files)) {
                for (Record r : records) {
                    Map<String, Object> row = new LinkedHashMap<>();
                    row.put(RejectsWriter.REASON_COLUMN, r.getField(RejectsWriter.REASON_COLUMN));
                    for (String column : columns) {
                        if (!column.equals(RejectsWriter.REASON_COLUMN)) {
                            Object value = r.getField(column);
                            row.put(column, value == null ? null : value.toString());
                        }
                    }
                    rows.add(row);
                    if (rows.size() == limit) {
                        break;
                    }
                }
            } catch (IOException | UncheckedIOException e) {
                throw new CliException("cannot read the rejects files: " + CliErrors.oneLine(e), LedgerOptions.EXIT_REFUSED);
            }
        }
        return new Rejects(columns, byRule, rows);
    }

    /** The rule a reason names ("range amount" of "range amount: 512.00 is above 500"): what to count by. */
    static String rule(String reason) {
        int colon = reason == null ? -1 : reason.indexOf(':');
        return colon < 0 ? String.valueOf(reason) : reason.substring(0, colon);
    }

    private static void print(PrintWriter out, RunView run, List<URI> files, Rejects rejects) {
        if (files.isEmpty()) {
            out.println("Run " + run.runId() + " rejected no rows.");
            return;
        }
        out.printf("Run %s (%s, %s): %,d rejected rows in %d files%n", run.runId(), run.jobKey(), run.businessKey(),
                run.rejectedCount(), files.size());
        Table rules = new Table("ROWS", "RULE");
        rejects.byRule().entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .forEach(e -> rules.row(String.format("%,d", e.getValue()), e.getKey()));
        rules.print(out);
        if (rejects.rows().isEmpty()) {
            return;
        }
        out.println();
        out.printf("The first %d, as the source had them:%n", rejects.rows().size());
        List<String> headers = new ArrayList<>(List.of("REASON"));
        rejects.columns().stream().filter(c -> !c.equals(RejectsWriter.REASON_COLUMN)).forEach(headers::add);
        Table rows = new Table(headers.toArray(String[]::new));
        for (Map<String, Object> row : rejects.rows()) {
            rows.row(row.values().toArray());
        }
        rows.print(out);
        out.println("All of them: " + files.get(0).resolve(".") + " (" + RejectsWriter.REASON_COLUMN + " holds the reason)");
    }
}

package io.loadgate.cli;

import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.job.JobSpecException;
import io.loadgate.worker.source.PartitionRows;
import io.loadgate.worker.source.SourceColumn;
import io.loadgate.worker.source.SourceException;
import io.loadgate.worker.source.files.FileSource;
import io.loadgate.worker.staging.SourceRecords;
import io.loadgate.worker.staging.SourceSchemas;
import io.loadgate.worker.transform.MapperCounts;
import io.loadgate.worker.transform.MapperFailedException;
import io.loadgate.worker.transform.TransformChain;
import io.loadgate.worker.transform.TransformedRows;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "check", mixinStandardHelpOptions = true,
        description = {"Runs a file job's parser and every transform on a sample file, with no ledger and no target:",
                "prints the typed rows as a table and every rejected line or row with its reason (Thrive's",
                "checking of transformation artifacts on sample data). The sample is read as the job reads its",
                "drops, compression by extension included."},
        footer = "Exit codes: 0 nothing rejected, 1 some line or row was rejected, 2 bad job, sample or option.")
final class CheckCommand implements Callable<Integer> {
    static final int EXIT_REJECTED = 1;

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "JOB.yaml", description = "the job spec (a source.files job)")
    Path jobFile;

    @Option(names = "--sample", required = true, paramLabel = "FILE", description = "the sample file to check")
    Path sample;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "20",
            description = "how many typed rows to print (default ${DEFAULT-VALUE}); every reject is printed")
    int limit;

    @Option(names = "--business-key", paramLabel = "KEY",
            description = "the hour or day whose derived columns the rows get (default: none, printed as -)")
    String businessKey;

    @Override
    public Integer call() {
        Logging.quietUnlessAsked();
        if (limit < 0) {
            throw new CliException("--limit must not be negative, got " + limit, LedgerOptions.EXIT_USAGE);
        }
        if (!Files.isRegularFile(sample)) {
            throw new CliException("--sample " + sample + " is not a file", LedgerOptions.EXIT_USAGE);
        }
        JobSpec job = JobInput.load(jobFile);
        if (!job.source().isFiles()) {
            throw new CliException("check takes a job whose source is source.files; " + jobFile + " reads a database",
                    LedgerOptions.EXIT_USAGE);
        }
        PrintWriter out = spec.commandLine().getOut();
        List<String> rejects = new ArrayList<>();
        long rows = 0;
        long lines = 0;
        MapperCounts mapper = null;
        try {
            FileSource source = new FileSource(job.source().files(), job.transform().mapper(), new Configuration(),
                    Clock.systemUTC());
            try (PartitionRows read = source.readSample(sample.toAbsolutePath().toUri(), businessKey)) {
                Schema schema = SourceSchemas.toIceberg(read.columns());
                TransformChain chain = TransformChain.bind(job, schema, System.getenv());
                read.rejectLinesTo((line, reason) -> rejects.add(reason + "\n    " + line));
                Iterator<Record> records = TransformedRows.of(SourceRecords.of(schema, read), chain,
                        (row, reason) -> rejects.add(reason + "\n    " + row));
                Table table = new Table(read.columns().stream().map(SourceColumn::name).toArray(String[]::new));
                while (records.hasNext()) {
                    Record record = records.next();
                    rows++;
                    if (rows <= limit) {
                        Object[] cells = new Object[schema.columns().size()];
                        for (int i = 0; i < cells.length; i++) {
                            Object value = record.get(i);
                            cells[i] = value instanceof BigDecimal decimal ? decimal.toPlainString() : value;
                        }
                        table.row(cells);
                    }
                }
                mapper = read.mapperCounts().orElse(null);
                lines = rows + rejects.size();
                if (!table.isEmpty()) {
                    table.print(out);
                }
            }
        } catch (SourceException | JobSpecException | IllegalArgumentException | MapperFailedException e) {
            throw new CliException(e.getMessage(), LedgerOptions.EXIT_USAGE);
        }
        if (mapper != null) {
            // The mapper's lines are the file's; its rows, kept or rejected, are what the line below counts.
            out.println(mapper.linesRead() + " lines mapped: " + mapper.linesSkipped() + " skipped, "
                    + mapper.rowsEmitted() + " rows emitted");
            new TreeMap<>(mapper.skipReasons()).forEach((reason, count) ->
                    out.println("skipped " + count + " lines: " + reason));
        }
        out.println((mapper == null ? lines + " lines: " : "") + rows + " rows"
                + (rows > limit ? " (the first " + limit + " shown)" : "") + ", " + rejects.size() + " rejected");
        for (String reject : rejects) {
            out.println("rejected: " + reject);
        }
        out.flush();
        return rejects.isEmpty() ? 0 : EXIT_REJECTED;
    }
}

package io.loadgate.worker.testing;

import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.api.BusinessKey;
import io.loadgate.api.DispatchType;
import io.loadgate.api.Executor;
import io.loadgate.api.JobKey;
import io.loadgate.api.PartitionApi.ChunkReport;
import io.loadgate.api.PartitionApi.Claim;
import io.loadgate.api.PartitionApi.PartitionFailure;
import io.loadgate.api.PartitionId;
import io.loadgate.api.RunApi.CreateRun;
import io.loadgate.api.RunApi.DispatchView;
import io.loadgate.api.RunApi.FailRun;
import io.loadgate.api.RunApi.Manifest;
import io.loadgate.api.RunApi.ManifestPartition;
import io.loadgate.api.RunId;
import io.loadgate.api.RunStatus;
import io.loadgate.api.StepApi.Metric;
import io.loadgate.api.StepApi.MetricResult;
import io.loadgate.api.StepApi.PublishOutcome;
import io.loadgate.api.StepApi.PublishResult;
import io.loadgate.api.StepApi.Stage;
import io.loadgate.api.StepApi.StartValidation;
import io.loadgate.api.StepApi.Validations;
import io.loadgate.ledger.LedgerSettings;
import io.loadgate.ledger.run.StagePath;
import io.loadgate.server.testing.TestLedger;
import io.loadgate.worker.execution.RunContext;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.ledger.LedgerClientConfig;
import io.loadgate.worker.ledger.LedgerToken;
import io.loadgate.worker.publish.CatalogConfig;
import io.loadgate.worker.publish.IcebergPublisher;
import io.loadgate.worker.publish.PublishFence;
import io.loadgate.worker.publish.PublishOutcome.Status;
import io.loadgate.worker.publish.PublishRequest;
import io.loadgate.worker.publish.StagedFile;
import io.loadgate.worker.publish.TargetCatalog;
import io.loadgate.worker.publish.TargetTable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

/**
 * Drives runs to a terminal state through the ledger's HTTP API, with real Parquet chunk files staged under
 * the run's {@code hdfsRunPath} and a real publish into an Iceberg table — the steps a worker would take, done
 * by hand so a test can leave files behind that no ledger row names (a zombie's chunk, a duplicate).
 */
public final class StagedRuns implements AutoCloseable {
    public static final Schema ORDERS = new Schema(
            Types.NestedField.optional(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "amount", Types.DecimalType.of(12, 2)),
            Types.NestedField.optional(3, "order_date", Types.DateType.get()));
    private static final BigInteger SPLIT_MAX = BigInteger.valueOf(1_000_000);

    private final TestLedger ledger;
    private final LedgerClient client;
    private final Path stageRoot;
    private final CatalogConfig catalog;
    private final TargetCatalog tables;

    /**
     * @param stageRoot a local directory the ledger allows as {@code hdfsRoot}
     * @param catalog the Iceberg catalog the jobs name as their {@code target.catalog}
     */
    public StagedRuns(TestLedger ledger, LedgerClient client, Path stageRoot, CatalogConfig catalog) {
        this.ledger = requireNonNull(ledger, "ledger is null");
        this.client = requireNonNull(client, "client is null");
        this.stageRoot = requireNonNull(stageRoot, "stageRoot is null");
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.tables = TargetCatalog.open(catalog);
    }

    /** A run and where it stages. */
    public record Run(RunId runId, String jobKey, LocalDate day, String table, String hdfsRunPath, Path directory) {
    }

    /** A chunk file written into a run's directory, reported or not. */
    public record Chunk(String location, Path file, int records) {
    }

    /** A ledger that allows {@code stageRoot} as a run's {@code hdfsRoot}, as this fixture's runs need. */
    public static TestLedger ledger(Path stageRoot) {
        return new TestLedger(new LedgerSettings(List.of(StagePath.parse(stageRoot.toUri().toString())),
                LedgerSettings.RecoveryMode.FAIL, 3));
    }

    /** The worker's client of {@code ledger}, to build as is or with other retries and timeouts. */
    public static LedgerClientConfig.Builder workerClient(TestLedger ledger) {
        return LedgerClientConfig.builder(ledger.baseUrl(), LedgerToken.of(ledger.workerToken));
    }

    public TargetCatalog tables() {
        return tables;
    }

    /** The job's YAML as {@code loadgate run} puts it into the run's parameters, naming this fixture's catalog. */
    public String jobYaml(String jobKey, String table, Map<String, String> catalogProperties) {
        StringBuilder catalogYaml = new StringBuilder();
        catalogProperties.forEach((k, v) -> catalogYaml.append("    ").append(k).append(": \"").append(v).append("\"\n"));
        return """
                job_key: %s
                source: {jdbc_url: "jdbc:postgresql://127.0.0.1:5432/unused", query: "SELECT 1", split_column: id}
                target:
                  table: %s
                  business_key_column: order_date
                  catalog:
                %s
                staging: {root: "%s"}
                """.formatted(jobKey, table, catalogYaml, stageRoot.toUri());
    }

    public Map<String, String> catalogProperties() {
        return Map.of("type", "jdbc", "uri", catalog.uri(), "warehouse", catalog.warehouse(),
                "jdbc.user", catalog.properties().get("jdbc.user"),
                "jdbc.password", catalog.properties().get("jdbc.password"));
    }

    /** Creates a run in CREATED whose job targets {@code table} in this fixture's catalog. */
    public Run create(String jobKey, LocalDate day, String table) {
        return create(jobKey, day, table, catalogProperties());
    }

    public Run create(String jobKey, LocalDate day, String table, Map<String, String> catalogProperties) {
        var created = client.createRun(new CreateRun(JobKey.of(jobKey), BusinessKey.of(day.toString()), stageRoot.toUri().toString(), "stg_",
                false, Map.of(RunContext.JOB_SPEC_PARAMETER, jobYaml(jobKey, table, catalogProperties)),
                Executor.HTTP, null));
        Path directory = stageRoot.resolve(jobKey).resolve("run_id=" + created.runId());
        return new Run(created.runId(), jobKey, day, table, created.hdfsRunPath(), directory);
    }

    /** {@code count} orders of the run's day with ids from {@code firstId}. */
    public static List<Record> orders(LocalDate day, long firstId, int count) {
        List<Record> records = new ArrayList<>(count);
        for (long id = firstId; id < firstId + count; id++) {
            GenericRecord record = GenericRecord.create(ORDERS);
            record.setField("id", id);
            record.setField("amount", BigDecimal.valueOf(id * 37 % 100_000, 2));
            record.setField("order_date", day);
            records.add(record);
        }
        return records;
    }

    /**
     * Writes a Parquet chunk into the run's directory under {@code name} (a subdirectory may be part of it) as
     * staging writes them, and returns its location spelled as the worker reports it: the run path plus name.
     */
    public Chunk write(Run run, String name, List<Record> records) {
        Path file = run.directory().resolve(name);
        try {
            Files.createDirectories(file.getParent());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        GenericParquet.write(file.toFile(), ORDERS, records);
        return new Chunk(run.hdfsRunPath() + "/" + name, file, records.size());
    }

    /** A manifest of one partition expecting {@code rows} rows. */
    public void manifest(Run run, long rows) {
        client.registerManifest(run.runId(), new Manifest(BigInteger.ONE, null, rows, 0, BigInteger.ZERO, SPLIT_MAX, 1,
                Map.of("COUNT", Long.toString(rows)), "v1",
                List.of(ManifestPartition.range(PartitionId.of("0000"), BigInteger.ZERO, SPLIT_MAX, true, rows))));
    }

    /** Claims partition 0000 and reports {@code chunks} as its chunks 0..n-1 out of {@code chunkCount}. */
    public UUID report(Run run, int chunkCount, List<Chunk> chunks) {
        UUID token = UUID.randomUUID();
        assertThat(client.claim(run.runId(), PartitionId.of("0000"),
                new Claim(token, "test-node")).claimed()).as("claimed").isTrue();
        for (int i = 0; i < chunks.size(); i++) {
            Chunk chunk = chunks.get(i);
            client.reportChunk(run.runId(), PartitionId.of("0000"),
                    new ChunkReport(token, i, chunkCount, "0000", chunk.location(),
                    chunk.records(), size(chunk.file()), "c" + i));
        }
        return token;
    }

    /** Extraction of all {@code chunks}, staging validation passed: STAGING_VALIDATED. */
    public void stageValidated(Run run, List<Chunk> chunks) {
        long rows = chunks.stream().mapToLong(Chunk::records).sum();
        manifest(run, rows);
        report(run, chunks.size(), chunks);
        UUID dispatch = client.getRun(run.runId()).dispatches().stream()
                .filter(d -> d.dispatchType() == DispatchType.VALIDATE_RUN).map(DispatchView::dispatchId)
                .findFirst().orElseThrow();
        assertThat(client.startValidation(run.runId(), new StartValidation(dispatch, "test-node")).started()).isTrue();
        client.recordValidations(run.runId(), new Validations(Stage.STAGING, "v1",
                List.of(count("STAGE_COUNT", rows, rows))));
        assertThat(client.stageValidated(run.runId()).runStatus()).isEqualTo(RunStatus.STAGING_VALIDATED);
    }

    /** Publishes the ledger's files for the run into its table (a real Iceberg commit): PUBLISHED. */
    public void publish(Run run) {
        UUID token = UUID.randomUUID();
        var claim = client.publishClaim(run.runId(), token);
        assertThat(claim.claimed()).isTrue();
        PublishFence fence = new PublishFence(claim.publishGeneration(),
                Instant.now().plusMillis(claim.publishWithinMs()));
        List<StagedFile> files = client.files(run.runId()).stream()
                .map(f -> new StagedFile(f.hdfsPath(), f.recordCount(), f.byteCount())).toList();
        TargetTable target = new TargetTable(TableIdentifier.parse(run.table()), ORDERS, "order_date");
        var outcome = new IcebergPublisher(tables).publish(new PublishRequest(run.runId().toString(), run.jobKey(),
                run.day().toString(), token, fence, target, files));
        assertThat(outcome.status()).as("publish %s", outcome).isEqualTo(Status.PUBLISHED);
        client.publishResult(run.runId(), new PublishResult(token, PublishOutcome.PUBLISHED, null, null,
                outcome.targetRef()));
    }

    /** TARGET metrics with the given actual count, then success: SUCCESS, or FAILED_TARGET_VALIDATION. */
    public RunStatus validateTarget(Run run, long expected, long actual) {
        client.recordValidations(run.runId(), new Validations(Stage.TARGET, "v1",
                List.of(count("TARGET_COUNT", expected, actual))));
        return client.success(run.runId(), actual).runStatus();
    }

    /** A run that published {@code chunks} and ended SUCCESS. */
    public Run succeeded(String jobKey, LocalDate day, String table, List<List<Record>> chunkRows) {
        Run run = create(jobKey, day, table);
        List<Chunk> chunks = new ArrayList<>();
        for (int i = 0; i < chunkRows.size(); i++) {
            chunks.add(write(run, "part-0000-chunk-%06d-a1-aaaaaaaa.parquet".formatted(i), chunkRows.get(i)));
        }
        long rows = chunks.stream().mapToLong(Chunk::records).sum();
        stageValidated(run, chunks);
        publish(run);
        assertThat(validateTarget(run, rows, rows)).isEqualTo(RunStatus.SUCCESS);
        return run;
    }

    /** A run whose partition failed after one of two chunks was reported: FAILED_EXTRACT. */
    public Run failedExtract(String jobKey, LocalDate day, String table, List<Record> first, List<Record> second) {
        Run run = create(jobKey, day, table);
        Chunk reported = write(run, "part-0000-chunk-000000-a1-bbbbbbbb.parquet", first);
        write(run, "part-0000-chunk-000001-a1-bbbbbbbb.parquet", second);
        manifest(run, first.size() + second.size() + 1);
        UUID token = report(run, 2, List.of(reported));
        assertThat(client.failPartition(run.runId(), PartitionId.of("0000"),
                new PartitionFailure(token, "EXTRACT", "SOURCE",
                "SOURCE_ERROR", "the source went away", 1)).runStatus()).isEqualTo(RunStatus.FAILED_EXTRACT);
        return run;
    }

    /** A run that never got past its manifest: FAILED_MANIFEST (its directory may hold whatever a test put there). */
    public void failManifest(Run run) {
        client.failRun(run.runId(), new FailRun(RunStatus.CREATED, RunStatus.FAILED_MANIFEST, "PLAN", "TEST",
                "failed by the test"));
    }

    /** Moves the run's completion back a month, past any retention. */
    public void makeDue(Run run) {
        ledger.execute("UPDATE loadgate.load_run SET completed_at = now() - interval '30 days' WHERE run_id = '"
                + run.runId() + "'");
    }

    /** Every row of the table as it is now. */
    public List<Record> rows(String table) {
        try (CloseableIterable<Record> rows = IcebergGenerics.read(tables.loadTable(TableIdentifier.parse(table)))
                .build()) {
            List<Record> all = new ArrayList<>();
            rows.forEach(all::add);
            return all;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Metric count(String name, long expected, long actual) {
        return new Metric(name, Long.toString(expected), Long.toString(actual), null,
                expected == actual ? MetricResult.PASS : MetricResult.FAIL, Map.of());
    }

    private static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        tables.close();
    }
}

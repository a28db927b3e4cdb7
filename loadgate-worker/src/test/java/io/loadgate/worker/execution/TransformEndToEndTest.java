package io.loadgate.worker.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loadgate.api.ChunkKind;
import io.loadgate.api.JobKey;
import io.loadgate.api.PartitionId;
import io.loadgate.api.RunApi.RunFilter;
import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunStatus;
import io.loadgate.api.StepApi.StagedFile;
import io.loadgate.api.StepApi.ValidationView;
import io.loadgate.ledger.LedgerSettings.RecoveryMode;
import io.loadgate.worker.cleanup.Cleaner;
import io.loadgate.worker.cleanup.CleanupMode;
import io.loadgate.worker.cleanup.RunCleanup;
import io.loadgate.worker.job.JobSpecException;
import io.loadgate.worker.staging.RejectsWriter;
import io.loadgate.worker.validation.MetricNames;
import io.loadgate.worker.validation.StagedFilesReader;
import java.math.BigDecimal;
import java.net.URI;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Row transforms end to end: rewritten rows are published, rejected rows are kept with their original values and
 * reasons, every source row is accounted for by the ledger, and the job's limit on rejects is the ledger's verdict.
 */
@Timeout(180)
class TransformEndToEndTest {
    private static final LocalDate DAY = LocalDate.of(2026, 11, 29);
    // Rows 1..5000: every 50th has a NULL id (100 rows); amount = round(g / 7, 2) is above 500 from g = 3501 on
    // (1500 rows, 30 of them already rejected for their NULL id).
    private static final String STEPS = """
            transform:
              %s
              steps:
                - upper: [note]
                - require: [id]
                - range: {column: amount, max: 500}
            """;

    @TempDir
    Path dir;
    private LoadHarness harness;

    @AfterEach
    void stop() {
        if (harness != null) {
            harness.close();
        }
    }

    private String job(String limit) {
        // The note is rewritten, so it cannot also be validated: the test's job measures the id's nulls only.
        return harness.jobYaml("ITEMS", 4).replace("null_count: [note, id]", "null_count: [id]")
                + STEPS.formatted(limit);
    }

    @Test
    void keptRowsAreRewrittenAndPublishedAndRejectedRowsAreKeptWithTheirReasons() throws Exception {
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        harness.addRows(DAY, 1, 5_000);
        List<String> expected = new ArrayList<>();
        for (String row : harness.sourceRows(DAY)) {
            String[] f = row.split("\\|");
            if (!f[0].equals("null") && new BigDecimal(f[2]).compareTo(new BigDecimal(500)) <= 0) {
                expected.add(f[0] + "|" + f[1] + "|" + f[2] + "|" + (f[3].equals("null") ? "null" : f[3].toUpperCase(Locale.ROOT)) + "|" + f[4]);
            }
        }
        Collections.sort(expected);
        harness.startWorker(3);

        RunView run = harness.follow(harness.submit(job("max_rejected: 2000"), DAY));

        assertThat(run.status()).as(run.errorMessage()).isEqualTo(RunStatus.SUCCESS);
        assertThat(run.extractedCount()).as("every source row is in a chunk of one kind").isEqualTo(5_000);
        assertThat(run.rejectedCount()).isEqualTo(1_570);
        assertThat(run.stagingCount()).isEqualTo(3_430);
        assertThat(run.targetCount()).isEqualTo(3_430);
        assertThat(expected).hasSize(3_430);
        assertThat(harness.tableRows(DAY)).isEqualTo(expected);
        assertThat(run.partitionCounts()).as("the NULL partition holds only rejected rows, yet succeeds")
                .containsEntry("SUCCESS", 5L);

        List<StagedFile> rejectsFiles = harness.client.files(run.runId()).stream()
                .filter(f -> f.kind() == ChunkKind.REJECTS).toList();
        assertThat(rejectsFiles).extracting(StagedFile::partitionId).as("one rejects chunk per partition that rejected")
                .contains(PartitionId.of("NULL")).doesNotHaveDuplicates();
        Map<String, Long> reasons = new TreeMap<>();
        List<Record> rejected = readRejects(rejectsFiles);
        for (Record r : rejected) {
            String reason = (String) r.getField(RejectsWriter.REASON_COLUMN);
            reasons.merge(reason.startsWith("range amount:") ? "range amount" : reason, 1L, Long::sum);
            String note = (String) r.getField("note");
            assertThat(note == null || note.startsWith("n")).as("kept as read, before the upper step: %s", note).isTrue();
        }
        assertThat(rejected).hasSize(1_570);
        assertThat(reasons).containsExactlyInAnyOrderEntriesOf(Map.of("require id: null", 100L, "range amount", 1_470L));
        assertThat(rejected).filteredOn(r -> r.getField(RejectsWriter.REASON_COLUMN).toString().startsWith("range"))
                .first().extracting(r -> r.getField(RejectsWriter.REASON_COLUMN).toString()).asString()
                .matches("range amount: [0-9.]+ is above 500");

        Map<String, ValidationView> metrics = harness.client.validations(run.runId()).stream()
                .collect(Collectors.toMap(v -> v.stage() + " " + v.metricName(), v -> v));
        assertThat(metrics.values()).allSatisfy(v ->
                assertThat(v.judgedResult().name()).as(v.metricName()).isEqualTo("PASS"));
        assertThat(metrics.get("STAGING " + MetricNames.REJECTED_COUNT))
                .extracting(ValidationView::actualValue, ValidationView::tolerance).containsExactly("1570", "2000");
        assertThat(metrics.get("STAGING SUM:amount").expectedValue()).as("data and rejects together equal the source")
                .isEqualTo(metrics.get("STAGING SUM:amount").actualValue());
        assertThat(metrics.get("TARGET SUM:amount").expectedValue()).as("the target equals the data chunks alone")
                .isEqualTo(metrics.get("STAGING DATA:SUM:amount").actualValue())
                .isNotEqualTo(metrics.get("STAGING SUM:amount").expectedValue());

        harness.ledger.execute("UPDATE loadgate.load_run SET completed_at = now() - interval '30 days' WHERE run_id = '"
                + run.runId() + "'");
        List<RunCleanup> cleaned = new Cleaner(harness.client, new RunContexts(harness.client),
                TargetCatalogs.withDefault(harness.catalog, dir.resolve("warehouse")), new Configuration())
                .clean(CleanupMode.DELETE);
        assertThat(cleaned).singleElement().satisfies(report -> {
            assertThat(report.outcome()).as("%s", report).isEqualTo(RunCleanup.Outcome.CLEANED);
            assertThat(report.kept().stream().map(k -> Path.of(URI.create(k)).toString()))
                    .as("a loaded run keeps its rejected rows")
                    .containsAll(rejectsFiles.stream().map(f -> Path.of(URI.create(f.hdfsPath())).toString()).toList());
        });
        assertThat(readRejects(rejectsFiles)).hasSize(1_570);
    }

    @Test
    void moreRejectsThanTheJobAllowsFailTheRunBeforeAnythingIsPublished() throws Exception {
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        harness.addRows(DAY, 1, 5_000);
        harness.startWorker(3);

        RunView run = harness.follow(harness.submit(job("max_rejected_ratio: 0.25"), DAY));

        assertThat(run.status()).isEqualTo(RunStatus.FAILED_STAGE_VALIDATION);
        assertThat(run.errorMessage()).contains("FAIL " + MetricNames.REJECTED_COUNT);
        assertThat(run.rejectedCount()).isEqualTo(1_570);
        assertThat(harness.catalog.catalog().tableExists(TableIdentifier.parse(LoadHarness.TABLE))).isFalse();
        ValidationView rejects = harness.client.validations(run.runId()).stream()
                .filter(v -> v.metricName().equals(MetricNames.REJECTED_COUNT)).findFirst().orElseThrow();
        assertThat(rejects.tolerance()).as("a quarter of 5,000 source rows").isEqualTo("1250");
    }

    @Test
    void aTransformThatCannotApplyToTheSourceIsRefusedBeforeARunExists() throws Exception {
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        harness.addRows(DAY, 1, 100);
        String rewritesAValidatedColumn = harness.jobYaml("ITEMS", 2) + STEPS.formatted("max_rejected: 10");
        String unknownColumn = job("max_rejected: 10").replace("upper: [note]", "upper: [notes]");
        String numberAsText = job("max_rejected: 10").replace("upper: [note]", "upper: [grp]")
                .replace("sum: [amount, grp]", "sum: [amount]");

        assertThatThrownBy(() -> harness.submit(rewritesAValidatedColumn, DAY)).isInstanceOf(JobSpecException.class)
                .hasMessage("transform.steps[0]: upper may not rewrite note: the job validates it or publishes by it;"
                        + " check it with require, range, match or max_length instead");
        assertThatThrownBy(() -> harness.submit(unknownColumn, DAY)).isInstanceOf(JobSpecException.class)
                .hasMessage("transform.steps[0] names column notes, which the source does not have");
        assertThatThrownBy(() -> harness.submit(numberAsText, DAY)).isInstanceOf(JobSpecException.class)
                .hasMessage("transform.steps[0]: upper applies to text columns; grp is int");
        assertThat(harness.client.listRuns(new RunFilter(JobKey.of("ITEMS"), null, null, null))).isEmpty();
    }

    private List<Record> readRejects(List<StagedFile> files) throws Exception {
        StagedFilesReader reader = new StagedFilesReader(new Configuration());
        List<URI> uris = files.stream().map(f -> URI.create(f.hdfsPath())).toList();
        Schema schema = reader.schemaOf(uris.get(0));
        List<Record> rows = new ArrayList<>();
        try (CloseableIterable<Record> records = reader.read(schema, uris)) {
            records.forEach(rows::add);
        }
        return rows;
    }
}

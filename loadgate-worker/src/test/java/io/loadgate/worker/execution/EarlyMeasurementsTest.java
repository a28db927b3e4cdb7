package io.loadgate.worker.execution;

import static io.loadgate.worker.publish.StagedFiles.ORDERS;
import static io.loadgate.worker.publish.StagedFiles.orders;
import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.api.RunId;
import io.loadgate.worker.job.ValidationSpec;
import io.loadgate.worker.publish.StagedFiles;
import io.loadgate.worker.staging.StagedChunk;
import io.loadgate.worker.validation.MetricSet;
import io.loadgate.worker.validation.StagedFilesReader;
import java.io.File;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.RejectedExecutionException;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A partition's chunks measured by the thread that wrote them stand in for the validation's own reading only when they
 * are exactly what it would read: same metrics, same bytes, and never a file counted twice.
 */
class EarlyMeasurementsTest {
    private static final LocalDate DAY = LocalDate.of(2026, 12, 5);
    private static final ValidationSpec SPEC = new ValidationSpec(List.of("amount"), List.of("amount", "customer"),
            List.of("amount", "order_date"), List.of("customer"), List.of("id"));

    @TempDir
    Path staging;

    private final StagedFilesReader reader = new StagedFilesReader(new Configuration());
    private final EarlyMeasurements early = new EarlyMeasurements(reader, Clock.systemUTC(), Runnable::run);
    private final RunId run = new RunId(UUID.randomUUID());

    @Test
    void filesMeasuredEarlyMergedWithTheRestGiveTheMetricsOfReadingThemAll() {
        // Overlapping ids across the files: the duplicate keys of the union are counted, not each file's alone.
        List<StagedChunk> chunks = List.of(chunk(0, 1, 400), chunk(1, 301, 500), chunk(2, 5000, 250));
        early.measure(run, chunks.subList(0, 2), SPEC);

        var measuredEarly = early.close(run, checksums(chunks));
        MetricSet merged = StagingValidationStep.measure(reader, ORDERS, uris(chunks), SPEC, measuredEarly);

        assertThat(measuredEarly).containsOnlyKeys(location(chunks.get(0)), location(chunks.get(1)));
        assertThat(measuredEarly.values()).allMatch(future -> future.join() != null);
        assertThat(merged.values()).isEqualTo(reader.metrics(ORDERS, uris(chunks), SPEC).values())
                .containsEntry("DUPLICATE_KEYS", "100").containsEntry("COUNT", "1150");
    }

    @Test
    void aFileMeasuredForAnotherSpecIsReadAgain() {
        List<StagedChunk> chunks = List.of(chunk(0, 1, 300), chunk(1, 301, 300));
        early.measure(run, chunks, ValidationSpec.COUNT_ONLY);

        MetricSet merged = StagingValidationStep.measure(reader, ORDERS, uris(chunks), SPEC,
                early.close(run, checksums(chunks)));

        assertThat(merged.values()).isEqualTo(reader.metrics(ORDERS, uris(chunks), SPEC).values());
    }

    @Test
    void aFileWhoseBytesAreNotItsReportedChecksumIsLeftForTheValidation() {
        StagedChunk reported = chunk(0, 1, 300);
        // Replaced after its report: the same name, other rows.
        File replacement = new File(StagedFiles.write(staging, orders(DAY, 9_000, 10)).location());
        assertThat(replacement.renameTo(new File(reported.path()))).isTrue();

        early.measure(run, List.of(reported), SPEC);

        var measuredEarly = early.close(run, Map.of(location(reported), reported.checksum()));
        assertThat(measuredEarly.get(location(reported)).join()).as("not kept: its metrics are not of those bytes")
                .isNull();
    }

    @Test
    void aFileTheLedgerDoesNotListWithThatChecksumIsNotHandedOver() {
        StagedChunk chunk = chunk(0, 1, 300);
        early.measure(run, List.of(chunk), SPEC);

        assertThat(early.close(run, Map.of(location(chunk), "0".repeat(64)))).isEmpty();
    }

    @Test
    void theLedgersSpellingOfALocationFindsTheFileItsWriterMeasured() {
        StagedChunk chunk = chunk(0, 1, 300);
        early.measure(run, List.of(chunk), SPEC);
        // The writer reports file:/stage/...; the ledger normalises it to file:///stage/... and lists it so.
        String listed = "file://" + chunk.path().getPath();
        assertThat(location(chunk)).isNotEqualTo(listed);

        assertThat(early.close(run, Map.of(listed, chunk.checksum()))).containsOnlyKeys(listed);
    }

    @Test
    void noFileIsMeasuredOnceTheValidationHasBegun() {
        List<StagedChunk> chunks = List.of(chunk(0, 1, 300));
        assertThat(early.close(run, checksums(chunks))).isEmpty();

        early.measure(run, chunks, SPEC);

        assertThat(early.close(run, checksums(chunks))).isEmpty();
    }

    @Test
    void chunksAStoppingWorkerCannotMeasureAreLeftForTheValidation() {
        List<StagedChunk> chunks = List.of(chunk(0, 1, 300));
        EarlyMeasurements stopping = new EarlyMeasurements(reader, Clock.systemUTC(), task -> {
            throw new RejectedExecutionException("stopped");
        });

        stopping.measureMeanwhile(run, chunks, SPEC);

        assertThat(stopping.close(run, checksums(chunks))).isEmpty();
    }

    @Test
    void aValidationRacingTheWriterCountsEveryFileExactlyOnce() throws Exception {
        List<StagedChunk> chunks = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            chunks.add(chunk(i, 1 + i * 2_000L, 2_500));
        }
        MetricSet expected = reader.metrics(ORDERS, uris(chunks), SPEC);
        for (int round = 0; round < 20; round++) {
            RunId racing = new RunId(UUID.randomUUID());
            CyclicBarrier start = new CyclicBarrier(2);
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                await(start);
                early.measure(racing, chunks, SPEC);
            });
            await(start);
            // Some rounds close before the writer starts a file, some while it measures one, some after it is done.
            Thread.sleep(round % 4 * 3L);
            var measuredEarly = early.close(racing, checksums(chunks));
            MetricSet merged = StagingValidationStep.measure(reader, ORDERS, uris(chunks), SPEC, measuredEarly);
            writer.join();

            assertThat(merged.values()).as("round %d, %d files measured early", round, measuredEarly.size())
                    .isEqualTo(expected.values());
            assertThat(early.close(racing, checksums(chunks))).as("nothing started after the validation began")
                    .isEmpty();
        }
    }

    private StagedChunk chunk(int index, long firstId, int count) {
        var file = StagedFiles.write(staging, orders(DAY, firstId, count));
        URI uri = new File(file.location()).toURI();
        return new StagedChunk(index, uri, count, file.byteCount(), reader.sha256(uri));
    }

    private static Map<String, String> checksums(List<StagedChunk> chunks) {
        Map<String, String> checksums = new LinkedHashMap<>();
        chunks.forEach(chunk -> checksums.put(location(chunk), chunk.checksum()));
        return checksums;
    }

    private static List<URI> uris(List<StagedChunk> chunks) {
        return chunks.stream().map(StagedChunk::path).toList();
    }

    private static String location(StagedChunk chunk) {
        return chunk.path().toString();
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}

package io.loadgate.worker.publish;

import static io.loadgate.worker.publish.StagedFiles.ORDERS_TABLE;
import static io.loadgate.worker.publish.StagedFiles.orders;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loadgate.worker.testing.Fences;
import io.loadgate.worker.testing.Lakehouses;
import java.io.IOException;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TargetReaderTest {
    private static final LocalDate DAY_1 = LocalDate.of(2026, 11, 28);
    private static final LocalDate DAY_2 = LocalDate.of(2026, 11, 29);

    @TempDir
    Path warehouse;
    @TempDir
    Path staging;

    private TargetCatalog tables;
    private IcebergPublisher publisher;
    private TargetReader reader;

    @BeforeEach
    void openCatalog() {
        tables = TargetCatalog.open(Lakehouses.jdbcCatalog(warehouse));
        publisher = new IcebergPublisher(tables);
        reader = new TargetReader(tables);
    }

    @AfterEach
    void closeCatalog() {
        tables.close();
    }

    @Test
    void readsOneBusinessKeyAsTheRunsOwnSnapshotHoldsIt() throws IOException {
        List<Record> day1 = orders(DAY_1, 1, 120);
        List<Record> day2 = orders(DAY_2, 1000, 80);
        List<Record> day1Again = orders(DAY_1, 5000, 10);
        long firstRun = snapshotOf(publish(DAY_1, StagedFiles.write(staging, day1)));
        long secondRun = snapshotOf(publish(DAY_2, StagedFiles.write(staging, day2)));
        long thirdRun = snapshotOf(publish(DAY_1, StagedFiles.write(staging, day1Again)));

        assertThat(read(DAY_1, firstRun)).as("day 1 at the first run").containsExactlyInAnyOrderElementsOf(day1);
        assertThat(read(DAY_1, secondRun)).as("day 1 still the first run's").containsExactlyInAnyOrderElementsOf(day1);
        assertThat(read(DAY_2, secondRun)).as("day 2 at its run").containsExactlyInAnyOrderElementsOf(day2);
        assertThat(read(DAY_1, thirdRun)).as("day 1 replaced").containsExactlyInAnyOrderElementsOf(day1Again);
        assertThatThrownBy(() -> reader.readBusinessKey(ORDERS_TABLE, DAY_1.toString(), 42L))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has no snapshot 42");
        assertThatThrownBy(() -> reader.readBusinessKeyTasks(ORDERS_TABLE, DAY_1.toString(), 42L))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has no snapshot 42");
    }

    @Test
    void readsOneBusinessKeyTaskByTaskAsTheScanReadsIt() throws IOException {
        List<Record> first = orders(DAY_1, 1, 120);
        List<Record> second = orders(DAY_1, 500, 30);
        publish(DAY_2, List.of(StagedFiles.write(staging, orders(DAY_2, 1000, 80))));
        long snapshot = snapshotOf(publish(DAY_1, List.of(StagedFiles.write(staging, first),
                StagedFiles.write(staging, second))));

        var tasks = reader.readBusinessKeyTasks(ORDERS_TABLE, DAY_1.toString(), snapshot);
        List<Record> rows = new ArrayList<>();
        for (var task : tasks) {
            try (CloseableIterable<Record> records = task.get()) {
                records.forEach(record -> rows.add(record.copy()));
            }
        }

        assertThat(tasks).as("one task per file of the business key").hasSize(2);
        assertThat(rows).as("the rows the whole scan reads").containsExactlyInAnyOrderElementsOf(read(DAY_1, snapshot))
                .hasSize(150);
    }

    @Test
    void referencedFilesIncludeReplacedOnesStillHeldBySnapshotsButNotUnpublishedOnes() {
        StagedFile first = StagedFiles.write(staging, orders(DAY_1, 1, 10));
        StagedFile second = StagedFiles.write(staging, orders(DAY_1, 100, 10));
        StagedFile neverPublished = StagedFiles.write(staging, orders(DAY_1, 200, 10));
        publish(DAY_1, first);
        publish(DAY_1, second);

        assertThat(reader.referencedDataFiles(ORDERS_TABLE.identifier()))
                .containsExactlyInAnyOrder(first.location(), second.location())
                .doesNotContain(neverPublished.location());
    }

    private PublishOutcome publish(LocalDate day, StagedFile file) {
        return publish(day, List.of(file));
    }

    private PublishOutcome publish(LocalDate day, List<StagedFile> files) {
        PublishOutcome outcome = publisher.publish(new PublishRequest("run-" + UUID.randomUUID(), "orders-daily",
                day.toString(), UUID.randomUUID(), Fences.next(), ORDERS_TABLE, files));
        assertThat(outcome.status()).as("outcome %s", outcome).isEqualTo(PublishOutcome.Status.PUBLISHED);
        return outcome;
    }

    private static long snapshotOf(PublishOutcome outcome) {
        return Long.parseLong(outcome.targetRef());
    }

    private List<Record> read(LocalDate day, long snapshotId) throws IOException {
        List<Record> rows = new ArrayList<>();
        try (CloseableIterable<Record> records = reader.readBusinessKey(ORDERS_TABLE, day.toString(), snapshotId)) {
            records.forEach(record -> rows.add(record.copy()));
        }
        return rows;
    }
}

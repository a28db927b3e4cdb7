package io.loadgate.worker.validation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loadgate.worker.job.ValidationSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class ParallelMetricsTest {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.optional(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "qty", Types.IntegerType.get()));
    private static final ValidationSpec SPEC = new ValidationSpec(List.of("qty"), List.of("id"), List.of("id"),
            List.of("qty"), List.of("id"));

    @Test
    void partsReadOnAPoolGiveTheMetricsOfOneSequentialRead() {
        List<List<Record>> parts = new ArrayList<>();
        for (int p = 0; p < 7; p++) {
            List<Record> rows = new ArrayList<>();
            for (long i = 0; i < 10_000; i++) {
                // Parts overlap by 1,000 ids: duplicate keys across parts must count.
                rows.add(record(p * 9_000L + i, i % 11 == 0 ? null : (int) (i % 97)));
            }
            parts.add(rows);
        }
        MetricCalculator sequential = new MetricCalculator(SPEC, SCHEMA);
        parts.forEach(rows -> rows.forEach(sequential::accept));

        MetricSet parallel = ParallelMetrics.measure(suppliers(parts), () -> new MetricCalculator(SPEC, SCHEMA), 3).result();

        assertThat(parallel).isEqualTo(sequential.result());
        assertThat(parallel.get("DUPLICATE_KEYS")).isEqualTo("6000");
    }

    @Test
    void aFailingPartFailsTheMeasurement() {
        List<Supplier<CloseableIterable<Record>>> parts = new ArrayList<>(suppliers(List.of(List.of(record(1L, 1)))));
        parts.add(() -> CloseableIterable.combine(List.of(record(2L, 2)), () -> {
            throw new IOException("disk gone");
        }));

        assertThatThrownBy(() -> ParallelMetrics.measure(parts, () -> new MetricCalculator(SPEC, SCHEMA), 2))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessage("reading failed: disk gone");
    }

    private static List<Supplier<CloseableIterable<Record>>> suppliers(List<List<Record>> parts) {
        List<Supplier<CloseableIterable<Record>>> suppliers = new ArrayList<>();
        for (List<Record> rows : parts) {
            suppliers.add(() -> CloseableIterable.withNoopClose(rows));
        }
        return suppliers;
    }

    private static Record record(Long id, Integer qty) {
        GenericRecord record = GenericRecord.create(SCHEMA);
        record.set(0, id);
        record.set(1, qty);
        return record;
    }

    @Test
    void tasksGiveTheirResultsInOrderAndAFailureAsItWasThrown() {
        List<Callable<Integer>> squares = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            int n = i;
            squares.add(() -> n * n);
        }
        assertThat(ParallelMetrics.inParallel(squares, 3)).containsExactly(0, 1, 4, 9, 16, 25, 36, 49, 64, 81, 100,
                121, 144, 169, 196, 225, 256, 289, 324, 361);

        // The Error itself, message and all: what the step reports as the run's failure.
        NoSuchMethodError error = new NoSuchMethodError("'void Binary.fromConstantByteArray(byte[])'");
        List<Callable<Integer>> failing = List.of(() -> 1, () -> {
            throw error;
        }, () -> 3);
        assertThatThrownBy(() -> ParallelMetrics.inParallel(failing, 2)).isSameAs(error);
    }

    @Test
    void begunTasksRunWhileTheCallerWorksAndClosingUnreadStopsThem() throws Exception {
        // The task waits for the caller's own work, so it finishes only if it ran beside it.
        CountDownLatch callerWorked = new CountDownLatch(1);
        try (ParallelMetrics.Running<String> running = ParallelMetrics.begin(List.of(
                () -> callerWorked.await(10, TimeUnit.SECONDS) ? "beside" : "after"), 2)) {
            callerWorked.countDown();
            assertThat(running.results()).containsExactly("beside");
        }

        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        Callable<String> endless = () -> {
            started.countDown();
            try {
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                interrupted.countDown();
            }
            return "stopped";
        };
        try (ParallelMetrics.Running<String> running = ParallelMetrics.begin(List.of(endless), 1)) {
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(interrupted.await(10, TimeUnit.SECONDS)).isTrue();
        try (ParallelMetrics.Running<Integer> none = ParallelMetrics.begin(List.of(), 2)) {
            assertThat(none.results()).isEmpty();
        }
    }
}

package io.loadgate.worker.validation;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * Measures independent parts of a data set (files, scan tasks) on a small pool, each with its own
 * {@link MetricCalculator}, and merges the calculators: the metrics equal those of one calculator reading every
 * part in turn, since counts and sums add exactly, extremes compare and key sets unite whatever the order.
 */
public final class ParallelMetrics {
    private static final AtomicInteger POOLS = new AtomicInteger();

    private ParallelMetrics() {
    }

    /** At most one thread per core: reading and decoding Parquet is CPU work. */
    public static int defaultParallelism() {
        return Runtime.getRuntime().availableProcessors();
    }

    /** One part of a data set, which a reader opens, reads into {@code calculator} and closes. */
    @FunctionalInterface
    public interface Part {
        void readInto(MetricCalculator calculator) throws IOException;
    }

    /**
     * Opens (on a pool thread) and reads every part with a calculator from {@code calculators}, at most {@code parallelism} at once, and returns
     * them merged. The first failure (in part order) is rethrown after the other parts are cancelled; an
     * {@link IOException} from closing a part comes back as {@link UncheckedIOException}.
     */
    public static MetricCalculator measure(List<? extends Supplier<? extends CloseableIterable<Record>>> parts, Supplier<MetricCalculator> calculators, int parallelism) {
        requireNonNull(parts, "parts is null");
        return measureParts(parts.stream().map(ParallelMetrics::records).toList(), calculators, parallelism);
    }

    /** A part whose records {@link MetricCalculator#accept} takes one by one. */
    static Part records(Supplier<? extends CloseableIterable<Record>> part) {
        requireNonNull(part, "part is null");
        return calculator -> {
            try (CloseableIterable<Record> records = part.get()) {
                records.forEach(calculator::accept);
            }
        };
    }

    /** As {@link #measure}, for parts that feed their calculator themselves (e.g. column by column). */
    public static MetricCalculator measureParts(List<? extends Part> parts, Supplier<MetricCalculator> calculators, int parallelism) {
        requireNonNull(parts, "parts is null");
        requireNonNull(calculators, "calculators is null");
        if (parallelism < 1) {
            throw new IllegalArgumentException("parallelism must be positive, got " + parallelism);
        }
        if (parts.size() <= 1 || parallelism == 1) {
            MetricCalculator calculator = calculators.get();
            parts.forEach(part -> read(part, calculator));
            return calculator;
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(parallelism, parts.size()), threads());
        try {
            List<Future<MetricCalculator>> futures = new ArrayList<>(parts.size());
            for (Part part : parts) {
                futures.add(pool.submit(() -> {
                    MetricCalculator calculator = calculators.get();
                    read(part, calculator);
                    return calculator;
                }));
            }
            MetricCalculator merged = null;
            for (int i = 0; i < futures.size(); i++) {
                MetricCalculator calculator = await(futures.get(i));
                // Its values are in the merged one now: the part's own (its key set's buffer) need not live on
                // until the last part is merged, or memory would grow with the number of files.
                futures.set(i, null);
                if (merged == null) {
                    merged = calculator;
                } else {
                    merged.merge(calculator);
                }
            }
            return merged;
        } finally {
            // Stops the other parts when one failed; a no-op after success.
            pool.shutdownNow();
        }
    }

    /**
     * Runs {@code tasks} on a pool of at most {@code parallelism} threads and returns their results in task order. The
     * first failure (in task order) is rethrown as it was thrown, not wrapped (a parallel stream rethrows a copy of an
     * Error without its message), after the other tasks are cancelled.
     */
    public static <T> List<T> inParallel(List<? extends Callable<T>> tasks, int parallelism) {
        try (Running<T> running = begin(tasks, parallelism)) {
            return running.results();
        }
    }

    /**
     * {@link #inParallel} begun, for the caller to do other work while the tasks run and then take their
     * {@link Running#results()}; closing it cancels the tasks that have not finished (a no-op once results are taken).
     */
    public static <T> Running<T> begin(List<? extends Callable<T>> tasks, int parallelism) {
        requireNonNull(tasks, "tasks is null");
        if (parallelism < 1) {
            throw new IllegalArgumentException("parallelism must be positive, got " + parallelism);
        }
        if (tasks.isEmpty()) {
            return new Running<>(null, List.of());
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(parallelism, tasks.size()), threads());
        List<Future<T>> futures = new ArrayList<>(tasks.size());
        tasks.forEach(task -> futures.add(pool.submit(task)));
        return new Running<>(pool, futures);
    }

    /** Tasks running on a pool of their own (see {@link #begin}). */
    public static final class Running<T> implements AutoCloseable {
        private final ExecutorService pool;
        private final List<Future<T>> futures;

        private Running(ExecutorService pool, List<Future<T>> futures) {
            this.pool = pool;
            this.futures = futures;
        }

        /** Waits for every task and returns their results in task order; the first failure is rethrown as thrown. */
        public List<T> results() {
            List<T> results = new ArrayList<>(futures.size());
            for (Future<T> future : futures) {
                results.add(await(future));
            }
            return results;
        }

        @Override
        public void close() {
            if (pool != null) {
                pool.shutdownNow();
            }
        }
    }

    private static void read(Part part, MetricCalculator calculator) {
        try {
            part.readInto(calculator);
        } catch (IOException e) {
            throw new UncheckedIOException("reading failed: " + e.getMessage(), e);
        }
        calculator.partRead();
    }

    private static <T> T await(Future<T> future) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while measuring");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(cause);
        }
    }

    private static ThreadFactory threads() {
        int pool = POOLS.incrementAndGet();
        AtomicInteger thread = new AtomicInteger();
        return runnable -> {
            Thread t = new Thread(runnable, "loadgate-measure-" + pool + "-" + thread.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}

package io.loadgate.worker.execution;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.RunId;
import io.loadgate.worker.job.ValidationSpec;
import io.loadgate.worker.staging.StagedChunk;
import io.loadgate.worker.validation.MetricCalculator;
import io.loadgate.worker.validation.StagedFilesReader;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.apache.iceberg.Schema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Staging metrics of a partition's data chunks, measured on a thread of their own as soon as the partition's chunks
 * are written, while the worker thread that wrote them reports them and the run's other partitions still extract;
 * the run's staging validation, when this process runs it, takes them instead of reading those files again.
 *
 * <p>Why: a run's partitions rarely finish together, and until the last one does, the finished partitions' threads
 * and cores are idle (a 1,000,000-row load's two partitions ended 23–68 ms apart on the bench), after which the
 * validation read every file. The last partition's chunks are measured while its reports and the validation's start
 * travel to the ledger and back, instead of after them. Nothing of the check changes: the metrics are those of the
 * closed file, read from the disk as the validation reads it (the same reader, the same columns), and kept only if
 * the file's bytes, hashed after the reading, are the ones its report carries; the validation still hashes every
 * file against the ledger's checksum before judging, so a file replaced after it was measured fails the run as
 * before. Each file counts once: a file is measured early only until the validation has begun, and the validation
 * waits for one being measured rather than measuring it again. A validation run by another process measures every
 * file itself.
 */
final class EarlyMeasurements {
    private static final Logger LOG = LoggerFactory.getLogger(EarlyMeasurements.class);
    /** A run whose validation went to another process is forgotten after this long. */
    static final Duration KEPT_FOR = Duration.ofHours(1);

    /** A file's metrics as measured early, with the schema and spec they were measured with. */
    record Measured(Schema schema, ValidationSpec validation, MetricCalculator metrics) {
        Measured {
            requireNonNull(schema, "schema is null");
            requireNonNull(validation, "validation is null");
            requireNonNull(metrics, "metrics is null");
        }
    }

    private final Map<RunId, RunFiles> runs = new ConcurrentHashMap<>();
    private final StagedFilesReader reader;
    private final Clock clock;
    private final Executor measuring;

    /** @param measuring runs {@link #measureMeanwhile}'s work */
    EarlyMeasurements(StagedFilesReader reader, Clock clock, Executor measuring) {
        this.reader = requireNonNull(reader, "reader is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.measuring = requireNonNull(measuring, "measuring is null");
    }

    /**
     * {@link #measure} on the executor given at construction, so that the caller can report the chunks meanwhile. A
     * chunk measured before the ledger has it is only taken by a validation whose ledger list holds it with the same
     * checksum (a report refused leaves it unused, to age out).
     */
    void measureMeanwhile(RunId runId, List<StagedChunk> chunks, ValidationSpec validation) {
        try {
            measuring.execute(() -> measure(runId, chunks, validation));
        } catch (RejectedExecutionException e) {
            // The worker is stopping: the validation, wherever it runs, reads these files itself.
            LOG.debug("not measuring the chunks of {} early: {}", runId, e.toString());
        }
    }

    /**
     * Measures {@code chunks} (data chunks of the run), one after the other, until the run's validation begins in this
     * process. A file that cannot be measured, or whose bytes are not its checksum's, is
     * left for the validation to read (and judge).
     */
    void measure(RunId runId, List<StagedChunk> chunks, ValidationSpec validation) {
        Instant now = clock.instant();
        runs.values().removeIf(run -> run.since.plus(KEPT_FOR).isBefore(now));
        RunFiles run = runs.computeIfAbsent(runId, id -> new RunFiles(now));
        for (StagedChunk chunk : chunks) {
            CompletableFuture<Measured> measured = run.start(key(chunk.path().toString()), chunk.checksum());
            if (measured == null) {
                return;
            }
            Measured result = null;
            try {
                result = measureOne(chunk, validation);
            } finally {
                // Completed even when an Error ends this thread's work: the validation waits for it, and a future
                // never completed would keep the run's validation waiting (and beating) for ever.
                measured.complete(result);
            }
        }
    }

    private Measured measureOne(StagedChunk chunk, ValidationSpec validation) {
        URI file = chunk.path();
        try {
            Schema schema = reader.schemaOf(file);
            MetricCalculator metrics = reader.measure(schema, List.of(file), validation, 1);
            String actual = reader.sha256(file);
            if (!actual.equals(chunk.checksum())) {
                LOG.warn("chunk {} changed since it was reported (sha256 {}, reported {}); the validation reads it",
                        file, actual, chunk.checksum());
                return null;
            }
            return new Measured(schema, validation, metrics);
        } catch (RuntimeException e) {
            LOG.debug("measuring chunk {} early failed; the validation reads it: {}", file, e.toString());
            return null;
        }
    }

    /**
     * Ends early measuring for {@code runId} and returns, by file location, the files measured or being measured
     * early whose reported checksum is the one in {@code checksums} (the ledger's): each future completes with the
     * file's metrics, or with null when the file is for the validation to read after all.
     */
    Map<String, CompletableFuture<Measured>> close(RunId runId, Map<String, String> checksums) {
        // Kept, closed, until it ages out: a partition's thread that reports last can come to measure after this.
        RunFiles run = runs.computeIfAbsent(runId, id -> new RunFiles(clock.instant()));
        Map<String, Entry> byKey = run.close();
        Map<String, CompletableFuture<Measured>> started = new HashMap<>();
        checksums.forEach((location, checksum) -> {
            Entry entry = byKey.get(key(location));
            if (entry != null && entry.checksum().equals(checksum)) {
                started.put(location, entry.measured());
            }
        });
        return started;
    }

    /**
     * A location as the ledger normalises a reported one (scheme://authority/path, both lower-case): the writer's
     * {@code file:/stage/x} is the ledger's {@code file:///stage/x}.
     */
    static String key(String location) {
        URI uri = URI.create(location).normalize();
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT) + "://";
        String authority = uri.getRawAuthority() == null ? "" : uri.getRawAuthority().toLowerCase(Locale.ROOT);
        return scheme + authority + uri.getRawPath();
    }

    private record Entry(String checksum, CompletableFuture<Measured> measured) {
    }

    /** One run's files: started ones, and whether the validation has begun (then none starts). */
    private static final class RunFiles {
        private final Instant since;
        private final Map<String, Entry> files = new HashMap<>();
        private boolean closed;

        RunFiles(Instant since) {
            this.since = since;
        }

        /** The future to complete with the file's metrics, or null when the validation has begun. */
        synchronized CompletableFuture<Measured> start(String key, String checksum) {
            if (closed) {
                return null;
            }
            CompletableFuture<Measured> measured = new CompletableFuture<>();
            files.put(key, new Entry(checksum, measured));
            return measured;
        }

        /** Starts no more files and hands over those started, by {@link #key} (once: a second close gets none). */
        synchronized Map<String, Entry> close() {
            closed = true;
            Map<String, Entry> started = Map.copyOf(files);
            files.clear();
            return started;
        }
    }
}

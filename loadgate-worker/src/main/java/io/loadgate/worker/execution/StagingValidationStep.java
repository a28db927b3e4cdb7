package io.loadgate.worker.execution;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.ChunkKind;
import io.loadgate.api.DispatchApi.LeasedDispatch;
import io.loadgate.api.RunApi.FailRun;
import io.loadgate.api.RunStatus;
import io.loadgate.api.RunId;
import io.loadgate.api.StepApi.Metric;
import io.loadgate.api.StepApi.MetricResult;
import io.loadgate.api.StepApi.Stage;
import io.loadgate.api.StepApi.StageValidated;
import io.loadgate.api.StepApi.StagedFile;
import io.loadgate.api.StepApi.StartValidation;
import io.loadgate.api.StepApi.ValidationStarted;
import io.loadgate.api.StepApi.Validations;
import io.loadgate.worker.job.ValidationSpec;
import io.loadgate.worker.ledger.LedgerCallException;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.ledger.Messages;
import io.loadgate.worker.metrics.StepOutcome;
import io.loadgate.worker.staging.RejectsWriter;
import io.loadgate.worker.validation.MetricCalculator;
import io.loadgate.worker.validation.MetricNames;
import io.loadgate.worker.validation.MetricSet;
import io.loadgate.worker.validation.ParallelMetrics;
import io.loadgate.worker.validation.StagedFilesReader;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.iceberg.Schema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * VALIDATE_RUN: measure the committed files — the ledger's list, never a directory listing — and let the ledger
 * judge them against the source. Each file's bytes are checked against the checksum its report carried, so a
 * file replaced behind the ledger's back fails the run instead of being published.
 *
 * <p>When the job's transforms rejected rows, the data chunks and the rejects chunks (which keep the original
 * values) together must reproduce every source metric; STAGE_COUNT is the data rows alone (what the target must
 * hold), REJECTED_COUNT is judged against the job's limit, and the data chunks' own metrics are recorded as
 * {@code DATA:*} for target validation to compare with. A file source measures only its lines when it plans (its
 * columns exist once a line is parsed), so its data chunks' metrics are recorded as {@code DATA:*} even without
 * rejects: they are what target validation compares the target's parsed columns with.
 */
final class StagingValidationStep {
    private static final Logger LOG = LoggerFactory.getLogger(StagingValidationStep.class);
    static final String QUERY_VERSION = "loadgate-1";
    private static final int BATCH = 500;

    private final WorkerContext context;
    private final Optional<EarlyMeasurements> early;
    private final Optional<Consumer<LeasedDispatch>> handOff;

    /**
     * With {@code handOff}, a passing verdict asks the ledger for the run's publish and gives what it handed this
     * node to {@code handOff}: the worker runs it on this thread once this step has ended.
     */
    StagingValidationStep(WorkerContext context, Optional<EarlyMeasurements> early,
                          Optional<Consumer<LeasedDispatch>> handOff) {
        this.context = requireNonNull(context, "context is null");
        this.early = requireNonNull(early, "early is null");
        this.handOff = requireNonNull(handOff, "handOff is null");
    }

    StepOutcome run(LeasedDispatch dispatch) {
        StartValidation caller = new StartValidation(dispatch.dispatchId(), context.node());
        var started = context.ledger().startValidation(dispatch.runId(), caller);
        if (!started.started()) {
            LOG.debug("validation of {} already started elsewhere ({})", dispatch.runId(), started.runStatus());
            return StepOutcome.SKIPPED;
        }
        // Measuring may take long; the beats tell the ledger this caller is alive, so that only a dead one's
        // validation is given again after validation_stale.
        try (Beats beats = new Beats(context.shared().timer(), context.heartbeatInterval(started.heartbeatIntervalMillis()),
                "the validation of " + dispatch.runId(),
                () -> context.ledger().heartbeatValidation(dispatch.runId(), caller).validating())) {
            try {
                return validate(dispatch, started, beats);
            } catch (Error e) {
                // The beats would keep a dead validation alive no longer than this step, but nobody would judge the
                // run until validation_stale, to meet the same Error again: the run fails now, saying why.
                if (!beats.lost()) {
                    fail(dispatch.runId(), e);
                }
                throw e;
            }
        }
    }

    private void fail(RunId runId, Error e) {
        try {
            context.ledger().failRun(runId, new FailRun(RunStatus.STAGE_VALIDATING, RunStatus.FAILED_STAGE_VALIDATION,
                    "STAGE_VALIDATION", StepErrors.code(e), Messages.fit(StepErrors.message(e))));
        } catch (LedgerCallException refused) {
            // RUN_STATUS_MISMATCH: the run moved on (cancelled, or validated by another caller) meanwhile.
            LOG.warn("reporting the failed validation of {} was refused: {}", runId, refused.getMessage());
        }
    }

    private StepOutcome validate(LeasedDispatch dispatch, ValidationStarted started, Beats beats) {
        RunContext run = context.shared().runs().get(dispatch.runId());
        StagedFilesReader reader = new StagedFilesReader(context.hadoop());
        List<Metric> metrics = new ArrayList<>();
        List<URI> dataFiles = new ArrayList<>();
        List<URI> rejectFiles = new ArrayList<>();
        for (StagedFile file : started.files()) {
            (file.kind() == ChunkKind.REJECTS ? rejectFiles : dataFiles).add(URI.create(file.hdfsPath()));
        }
        // Before the files are hashed: no partition's thread starts measuring a file from now on.
        Map<String, String> checksums = new LinkedHashMap<>();
        started.files().stream().filter(file -> file.checksum() != null)
                .forEach(file -> checksums.put(file.hdfsPath(), file.checksum()));
        Map<String, CompletableFuture<EarlyMeasurements.Measured>> measuredEarly =
                early.map(e -> e.close(run.runId(), checksums)).orElse(Map.of());
        // Hashing reads every byte of every file (26 files of 15 MB for the bench's 25,000,000 rows): one file per
        // core at a time, as the target check hashes them, rather than one after another; and while the files are
        // measured, which is often one file on one core (the last partition's, the others measured early).
        List<Callable<Metric>> checks = started.files().stream().filter(file -> file.checksum() != null)
                .<Callable<Metric>>map(file -> () -> {
                    beats.checkAlive();
                    String actual = reader.sha256(URI.create(file.hdfsPath()));
                    return file.checksum().equals(actual) ? null : new Metric("CHECKSUM:" + file.partitionId() + ":"
                            + file.chunkIndex(), file.checksum(), actual, null, MetricResult.FAIL,
                            Map.of("hdfsPath", file.hdfsPath()));
                }).toList();
        try (ParallelMetrics.Running<Metric> hashing = ParallelMetrics.begin(checks,
                ParallelMetrics.defaultParallelism())) {
            List<Metric> measured = compare(run, started, dataFiles, rejectFiles, reader, measuredEarly);
            hashing.results().stream().filter(Objects::nonNull).forEach(metrics::add);
            metrics.addAll(measured);
        }
        beats.checkAlive();
        if (beats.lost()) {
            LOG.warn("validation of {} was given to another caller while this one measured; not recording",
                    run.runId());
            return StepOutcome.SKIPPED;
        }
        List<Metric> last = recordAllButLast(context.ledger(), run.runId(), Stage.STAGING, metrics);
        String node = handOff.isPresent() ? context.node() : null;
        var verdict = context.ledger().stageValidated(run.runId(), last.isEmpty() ? new StageValidated(node)
                : new StageValidated(node, QUERY_VERSION, last));
        LOG.info("run {} staging validation: {} {} ({} of {} files measured as their partitions finished)",
                run.runId(), verdict.runStatus(), verdict.reasons(), measuredEarly.size(), started.files().size());
        if (verdict.nextDispatch() != null) {
            // The verdict's transaction leased the run's publish to this node: no lease's round trip (9–50 ms
            // between STAGING_VALIDATED and PUBLISHING on the bench's 1,000,000-row loads, 2026-12-05).
            handOff.orElseThrow().accept(verdict.nextDispatch());
        }
        return StepOutcome.OK;
    }

    /**
     * Records {@code metrics} but their last batch, which the caller sends with its verdict's call: one round trip
     * fewer, and the last metrics stored in the transaction that judges them (each call takes at most {@value BATCH}).
     */
    static List<Metric> recordAllButLast(LedgerClient ledger, RunId runId, Stage stage, List<Metric> metrics) {
        int last = metrics.isEmpty() ? 0 : (metrics.size() - 1) / BATCH * BATCH;
        for (int from = 0; from < last; from += BATCH) {
            ledger.recordValidations(runId, new Validations(stage, QUERY_VERSION, metrics.subList(from, from + BATCH)));
        }
        return metrics.subList(last, metrics.size());
    }

    /** The files' metrics compared with the source's, and the rejects' count against the job's limit. */
    private List<Metric> compare(RunContext run, ValidationStarted started, List<URI> dataFiles, List<URI> rejectFiles,
                                 StagedFilesReader reader,
                                 Map<String, CompletableFuture<EarlyMeasurements.Measured>> measuredEarly) {
        List<Metric> metrics = new ArrayList<>();
        Map<String, String> source = started.sourceMetrics();
        boolean mapped = run.job().transform().mapper() != null;
        if (mapped) {
            // A mapper's rows are not the source's lines. The ledger judged each partition's lines read against the
            // lines counted at planning, and its chunks' rows against the rows the mapper emitted, which sum to the
            // extracted count: the files measured here must hold exactly those rows. A file source's only metric
            // is its count, so nothing else of the source is lost.
            Map<String, String> rows = new LinkedHashMap<>(source);
            rows.put(MetricNames.COUNT, String.valueOf(started.extractedCount()));
            source = rows;
        }
        if (dataFiles.isEmpty() && rejectFiles.isEmpty()) {
            metrics.addAll(Comparison.metrics(source, Comparison.ofNoRows(source), "STAGE_COUNT"));
        } else if (rejectFiles.isEmpty() && !run.job().source().isFiles()) {
            MetricSet staged = measure(reader, reader.schemaOf(dataFiles.get(0)), dataFiles, run.job().validation(),
                    measuredEarly);
            metrics.addAll(Comparison.metrics(source, staged, "STAGE_COUNT"));
        } else {
            metrics.addAll(withRejects(reader, run, source, dataFiles, rejectFiles));
        }
        if (!rejectFiles.isEmpty() || !run.job().transform().steps().isEmpty()) {
            // A ratio of rejects is of the rows the transforms were given: with a mapper, the rows it emitted.
            long sourceCount = mapped && started.extractedCount() != null ? started.extractedCount()
                    : started.sourceCount() == null ? 0 : started.sourceCount();
            long rejected = started.files().stream().filter(f -> f.kind() == ChunkKind.REJECTS)
                    .mapToLong(StagedFile::recordCount).sum();
            long allowed = run.job().transform().allowedRejects(sourceCount);
            metrics.add(new Metric(MetricNames.REJECTED_COUNT, "0", Long.toString(rejected), Long.toString(allowed),
                    rejected <= allowed ? MetricResult.PASS : MetricResult.FAIL,
                    Map.of("rejectsFiles", rejectFiles.size())));
        }
        return metrics;
    }

    /**
     * The data files' metrics: those measured early by the threads that wrote them (hashed above with every other file),
     * merged with the others' read now. A file measured early with another schema or spec, or whose early measuring
     * failed, is read now too.
     */
    static MetricSet measure(StagedFilesReader reader, Schema schema, List<URI> files, ValidationSpec validation,
                             Map<String, CompletableFuture<EarlyMeasurements.Measured>> measuredEarly) {
        List<URI> rest = files.stream().filter(file -> !measuredEarly.containsKey(file.toString())).toList();
        MetricCalculator all = reader.measure(schema, rest, validation, ParallelMetrics.defaultParallelism());
        List<URI> missed = new ArrayList<>();
        for (URI file : files) {
            CompletableFuture<EarlyMeasurements.Measured> future = measuredEarly.get(file.toString());
            if (future == null) {
                continue;
            }
            EarlyMeasurements.Measured measured = future.join();
            if (measured != null && measured.schema().sameSchema(schema) && measured.validation().equals(validation)) {
                all.merge(measured.metrics());
            } else {
                missed.add(file);
            }
        }
        if (!missed.isEmpty()) {
            all.merge(reader.measure(schema, missed, validation, ParallelMetrics.defaultParallelism()));
        }
        return all.result();
    }

    private static List<Metric> withRejects(StagedFilesReader reader, RunContext run, Map<String, String> source,
                                            List<URI> dataFiles, List<URI> rejectFiles) {
        // Read both kinds with the data columns only: the rejects' reason column has its own field id.
        Schema schema = dataFiles.isEmpty() ? RejectsWriter.dataSchemaOf(reader.schemaOf(rejectFiles.get(0)))
                : reader.schemaOf(dataFiles.get(0));
        int parallelism = ParallelMetrics.defaultParallelism();
        MetricCalculator all = reader.measure(schema, dataFiles, run.job().validation(), parallelism);
        MetricSet publishable = all.result();
        if (!rejectFiles.isEmpty()) {
            all.merge(reader.measure(schema, rejectFiles, run.job().validation(), parallelism));
        }
        MetricSet staged = all.result();
        List<Metric> metrics = new ArrayList<>();
        for (Metric metric : Comparison.metrics(source, staged, "STAGE_COUNT")) {
            if (metric.metricName().equals("STAGE_COUNT")) {
                // STAGE_COUNT becomes the run's staging count, which the target must hold: the data rows alone.
                long rejected = Long.parseLong(staged.get(MetricNames.COUNT)) - Long.parseLong(publishable.get(MetricNames.COUNT));
                long expected = Long.parseLong(metric.expectedValue()) - rejected;
                String actual = publishable.get(MetricNames.COUNT);
                metrics.add(new Metric("STAGE_COUNT", Long.toString(expected), actual, null,
                        Long.toString(expected).equals(actual) ? MetricResult.PASS : MetricResult.FAIL,
                        Map.of("sourceCount", metric.expectedValue(), "rejected", rejected,
                                "stagedAndRejected", metric.actualValue())));
            } else {
                metrics.add(new Metric(metric.metricName(), metric.expectedValue(), metric.actualValue(), null,
                        metric.result(), Map.of("measuredOver", "data and rejects chunks")));
            }
        }
        publishable.values().forEach((name, value) -> {
            if (!name.equals(MetricNames.COUNT)) {
                metrics.add(new Metric(MetricNames.DATA_PREFIX + name, value, value, null, MetricResult.PASS,
                        Map.of("measuredOver", "data chunks")));
            }
        });
        return metrics;
    }
}

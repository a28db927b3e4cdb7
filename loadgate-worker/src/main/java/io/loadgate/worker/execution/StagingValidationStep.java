package io.loadgate.worker.execution;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.ledger.DispatchApi.LeasedDispatch;
import io.loadgate.worker.ledger.StepApi.Metric;
import io.loadgate.worker.ledger.StepApi.MetricResult;
import io.loadgate.worker.ledger.StepApi.Stage;
import io.loadgate.worker.ledger.StepApi.StagedFile;
import io.loadgate.worker.ledger.StepApi.StartValidation;
import io.loadgate.worker.ledger.StepApi.Validations;
import io.loadgate.worker.validation.MetricSet;
import io.loadgate.worker.validation.StagedFilesReader;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * VALIDATE_RUN: measure the committed files — the ledger's list, never a directory listing — and let the ledger
 * judge them against the source. Each file's bytes are checked against the checksum its report carried, so a
 * file replaced behind the ledger's back fails the run instead of being published.
 */
final class StagingValidationStep {
    private static final Logger LOG = LoggerFactory.getLogger(StagingValidationStep.class);
    static final String QUERY_VERSION = "loadgate-1";
    private static final int BATCH = 500;

    private final WorkerContext context;

    StagingValidationStep(WorkerContext context) {
        this.context = requireNonNull(context, "context is null");
    }

    void run(LeasedDispatch dispatch) {
        var started = context.ledger().startValidation(dispatch.runId(),
                new StartValidation(dispatch.dispatchId(), context.node()));
        if (!started.started()) {
            LOG.debug("validation of {} already started elsewhere ({})", dispatch.runId(), started.runStatus());
            return;
        }
        RunContext run = context.shared().runs().get(dispatch.runId());
        StagedFilesReader reader = new StagedFilesReader(context.hadoop());
        List<Metric> metrics = new ArrayList<>();
        List<URI> files = new ArrayList<>();
        for (StagedFile file : started.files()) {
            URI uri = URI.create(file.hdfsPath());
            files.add(uri);
            if (file.checksum() != null) {
                String actual = reader.sha256(uri);
                if (!file.checksum().equals(actual)) {
                    metrics.add(new Metric("CHECKSUM:" + file.partitionId() + ":" + file.chunkIndex(),
                            file.checksum(), actual, null, MetricResult.FAIL, Map.of("hdfsPath", file.hdfsPath())));
                }
            }
        }
        MetricSet staged = files.isEmpty() ? Comparison.ofNoRows(started.sourceMetrics())
                : reader.metrics(reader.schemaOf(files.get(0)), files, run.job().validation());
        metrics.addAll(Comparison.metrics(started.sourceMetrics(), staged, "STAGE_COUNT"));
        for (int from = 0; from < metrics.size(); from += BATCH) {
            context.ledger().recordValidations(run.runId(), new Validations(Stage.STAGING, QUERY_VERSION,
                    metrics.subList(from, Math.min(metrics.size(), from + BATCH))));
        }
        var verdict = context.ledger().stageValidated(run.runId());
        LOG.info("run {} staging validation: {} {}", run.runId(), verdict.runStatus(), verdict.reasons());
    }
}

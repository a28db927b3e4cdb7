package io.loadgate.worker.execution;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.DispatchApi.LeasedDispatch;
import io.loadgate.api.RunApi.FailRun;
import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunStatus;
import io.loadgate.api.StepApi;
import io.loadgate.api.StepApi.Metric;
import io.loadgate.api.StepApi.MetricResult;
import io.loadgate.api.StepApi.Stage;
import io.loadgate.api.StepApi.ValidationView;
import io.loadgate.api.StepApi.Success;
import io.loadgate.worker.ledger.LedgerCallException;
import io.loadgate.worker.ledger.Messages;
import io.loadgate.worker.metrics.StepOutcome;
import io.loadgate.worker.publish.StagedFile;
import io.loadgate.worker.target.TargetFiles;
import io.loadgate.worker.validation.MetricNames;
import io.loadgate.worker.validation.MetricSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * VALIDATE_TARGET: read the business key's rows back from the job's target, measure them with the job's metrics, and let the ledger judge them against the source. A table that cannot be read fails the run too.
 */
final class TargetValidationStep {
    private static final Logger LOG = LoggerFactory.getLogger(TargetValidationStep.class);

    private final WorkerContext context;

    TargetValidationStep(WorkerContext context) {
        this.context = requireNonNull(context, "context is null");
    }

    StepOutcome run(LeasedDispatch dispatch) {
        var view = context.ledger().getRun(dispatch.runId());
        if (view.status() != RunStatus.PUBLISHED) {
            return StepOutcome.SKIPPED;
        }
        try {
            return validate(view, context.shared().runs().get(dispatch.runId()));
        } catch (Error e) {
            // Published, but nobody would judge the target until an operator looked: the run fails now, saying why.
            try {
                context.ledger().failRun(view.runId(), new FailRun(RunStatus.PUBLISHED,
                        RunStatus.FAILED_TARGET_VALIDATION, "TARGET_VALIDATION", StepErrors.code(e),
                        Messages.fit(StepErrors.message(e))));
            } catch (LedgerCallException refused) {
                // RUN_STATUS_MISMATCH: another caller judged the target meanwhile.
                LOG.warn("reporting the failed target validation of {} was refused: {}", view.runId(),
                        refused.getMessage());
            }
            throw e;
        }
    }

    private StepOutcome validate(RunView view, RunContext run) {
        List<Metric> metrics = new ArrayList<>();
        // Opening the target may fail for a while (the dispatch comes again); reading what it holds must not.
        List<StepApi.StagedFile> recorded = context.ledger().files(run.runId());
        List<StagedFile> ledgerFiles = PublishStep.dataFiles(recorded);
        Supplier<MetricSet> reading = context.targets().forJob(run.job()).reading(run.businessKey(),
                run.job().validation(), () -> PublishStep.stagedColumns(context, run, recorded), ledgerFiles);
        MetricSet measured;
        try {
            measured = reading.get();
        } catch (RuntimeException e) {
            metrics.add(new Metric("TARGET_READABLE", "true", "false", null, MetricResult.FAIL,
                    Map.of("error", String.valueOf(e.getMessage()))));
            measured = Comparison.ofNoRows(view.sourceMetrics());
        }
        metrics.addAll(Comparison.metrics(expected(view, run), measured, "TARGET_COUNT"));
        String files = measured.values().get(MetricNames.TARGET_FILES);
        if (files != null) {
            // The target's metadata stood in for reading some metrics only if these are the ledger's files.
            String expected = TargetFiles.describe(ledgerFiles);
            metrics.add(new Metric(MetricNames.TARGET_FILES, expected, files, null,
                    expected.equals(files) ? MetricResult.PASS : MetricResult.FAIL, Map.of()));
        }
        long targetCount = Long.parseLong(measured.get(MetricNames.COUNT));
        List<Metric> last = StagingValidationStep.recordAllButLast(context.ledger(), run.runId(), Stage.TARGET,
                metrics);
        var result = context.ledger().success(run.runId(), last.isEmpty() ? new Success(targetCount)
                : new Success(targetCount, StagingValidationStep.QUERY_VERSION, last));
        LOG.info("run {} target validation: {} {}", run.runId(), result.runStatus(), result.reasons());
        return StepOutcome.OK;
    }

    /**
     * What the target must hold: the source's metrics, or, when the job's transforms rejected rows, the data chunks'
     * own metrics as staging validation recorded them (the rejected rows were never published); for a file source
     * always those, since its source metrics count lines only.
     */
    private Map<String, String> expected(RunView view, RunContext run) {
        if (view.rejectedCount() == 0 && !run.job().source().isFiles()) {
            return view.sourceMetrics();
        }
        Map<String, String> expected = new TreeMap<>();
        expected.put(MetricNames.COUNT, String.valueOf(view.stagingCount()));
        for (ValidationView metric : context.ledger().validations(view.runId())) {
            if (metric.stage() == Stage.STAGING && metric.metricName().startsWith(MetricNames.DATA_PREFIX)) {
                expected.put(metric.metricName().substring(MetricNames.DATA_PREFIX.length()),
                        metric.actualValue());
            }
        }
        return expected;
    }
}

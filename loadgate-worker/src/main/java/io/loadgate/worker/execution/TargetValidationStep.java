package io.loadgate.worker.execution;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.DispatchApi.LeasedDispatch;
import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunStatus;
import io.loadgate.api.StepApi.Metric;
import io.loadgate.api.StepApi.MetricResult;
import io.loadgate.api.StepApi.Stage;
import io.loadgate.api.StepApi.ValidationView;
import io.loadgate.api.StepApi.Validations;
import io.loadgate.worker.metrics.StepOutcome;
import io.loadgate.worker.publish.TargetCatalog;
import io.loadgate.worker.publish.TargetReader;
import io.loadgate.worker.publish.TargetTable;
import io.loadgate.worker.validation.MetricCalculator;
import io.loadgate.worker.validation.MetricNames;
import io.loadgate.worker.validation.MetricSet;
import io.loadgate.worker.validation.ParallelMetrics;
import io.loadgate.worker.warehouse.WarehouseConnector;
import io.loadgate.worker.warehouse.WarehouseReader;
import io.loadgate.worker.warehouse.WarehouseTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * VALIDATE_TARGET: read the business key's partition back through Iceberg (or the warehouse), measure it with the
 * job's metrics, and let the ledger judge them against the source. A table that cannot be read fails the run too.
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
        RunContext run = context.shared().runs().get(dispatch.runId());
        List<Metric> metrics = new ArrayList<>();
        // Opening the target may fail for a while (the dispatch comes again); reading what it holds must not.
        Supplier<MetricSet> reading = run.job().target().isWarehouse() ? warehouse(run) : iceberg(run);
        MetricSet measured;
        try {
            measured = reading.get();
        } catch (RuntimeException e) {
            metrics.add(new Metric("TARGET_READABLE", "true", "false", null, MetricResult.FAIL,
                    Map.of("error", String.valueOf(e.getMessage()))));
            measured = Comparison.ofNoRows(view.sourceMetrics());
        }
        metrics.addAll(Comparison.metrics(expected(view), measured, "TARGET_COUNT"));
        context.ledger().recordValidations(run.runId(), new Validations(Stage.TARGET,
                StagingValidationStep.QUERY_VERSION, metrics));
        long targetCount = Long.parseLong(measured.get(MetricNames.COUNT));
        var result = context.ledger().success(run.runId(), targetCount);
        LOG.info("run {} target validation: {} {}", run.runId(), result.runStatus(), result.reasons());
        return StepOutcome.OK;
    }

    private Supplier<MetricSet> iceberg(RunContext run) {
        TargetCatalog catalog = context.shared().catalogs().forJob(run.job());
        TableIdentifier identifier = TableIdentifier.parse(run.job().target().table());
        Table table = catalog.loadTable(identifier);
        TargetTable target = new TargetTable(identifier, table.schema(), run.job().target().businessKeyColumn());
        // The table as it is now, not as the publish left it: while the run is PUBLISHED no other run may write this
        // business key, so anything that differs now was done behind the ledger's back and must fail the run.
        long snapshotId = table.currentSnapshot() == null ? -1 : table.currentSnapshot().snapshotId();
        Supplier<MetricCalculator> calculators = () -> new MetricCalculator(run.job().validation(), table.schema());
        // One part per scan task, read on a pool: the merged metrics equal those of reading the scan in turn.
        return () -> {
            var parts = new TargetReader(catalog).readBusinessKeyTasks(target, run.businessKey(), snapshotId);
            return ParallelMetrics.measure(parts, calculators, ParallelMetrics.defaultParallelism()).result();
        };
    }

    /**
     * A warehouse is opened and read in one go: a table that cannot be read there fails the run. Its columns are the
     * staged files' (the database's own types need not tell, e.g. a UTC datetime holding a timestamp with zone).
     */
    private Supplier<MetricSet> warehouse(RunContext run) {
        var connector = WarehouseConnector.of(run.job().target().database(), context.shared().sources().environment());
        TargetTable target = PublishStep.warehouseTarget(run, context.ledger().files(run.runId()), context.hadoop());
        WarehouseTable table = WarehouseTable.of(run.job().target().table(), target.schema(), target.businessKeyColumn());
        return () -> new WarehouseReader(connector).measure(table, run.businessKey(), run.job().validation());
    }

    /**
     * What the target must hold: the source's metrics, or, when the job's transforms rejected rows, the data chunks'
     * own metrics as staging validation recorded them (the rejected rows were never published).
     */
    private Map<String, String> expected(RunView view) {
        if (view.rejectedCount() == 0) {
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

package io.loadgate.worker.execution;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.ChunkKind;
import io.loadgate.api.DispatchApi.LeasedDispatch;
import io.loadgate.api.OperatorApi.PublishProbe;
import io.loadgate.api.StepApi;
import io.loadgate.api.StepApi.PublishOutcome;
import io.loadgate.api.StepApi.PublishResult;
import io.loadgate.worker.ledger.Messages;
import io.loadgate.worker.metrics.StepOutcome;
import io.loadgate.worker.publish.IcebergPublisher;
import io.loadgate.worker.publish.ProbeResult;
import io.loadgate.worker.publish.PublishRequest;
import io.loadgate.worker.publish.Publisher;
import io.loadgate.worker.publish.StagedFile;
import io.loadgate.worker.publish.TargetCatalog;
import io.loadgate.worker.publish.TargetTable;
import io.loadgate.worker.staging.RejectsWriter;
import io.loadgate.worker.validation.StagedFilesReader;
import io.loadgate.worker.warehouse.WarehouseConnector;
import io.loadgate.worker.warehouse.WarehousePublisher;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PUBLISH_RUN: claim the publish with a fresh token, commit exactly the ledger's data files in one Iceberg commit (or
 * one warehouse transaction), report the outcome. Never a second commit: when the outcome is unknown, the probe
 * looks for this publish token in the table's history (or the warehouse's publish records), and the ledger decides
 * from that evidence.
 */
final class PublishStep {
    private static final Logger LOG = LoggerFactory.getLogger(PublishStep.class);

    private final WorkerContext context;

    PublishStep(WorkerContext context) {
        this.context = requireNonNull(context, "context is null");
    }

    StepOutcome run(LeasedDispatch dispatch) {
        RunContext run = context.shared().runs().get(dispatch.runId());
        UUID token = UUID.randomUUID();
        if (!context.ledger().publishClaim(run.runId(), token).claimed()) {
            return StepOutcome.SKIPPED;
        }
        Publisher publisher;
        TargetTable target;
        List<StagedFile> files;
        try {
            List<StepApi.StagedFile> recorded = context.ledger().files(run.runId());
            files = recorded.stream().filter(f -> f.kind() == ChunkKind.DATA)
                    .map(f -> new StagedFile(f.hdfsPath(), f.recordCount(), f.byteCount())).toList();
            if (run.job().target().isWarehouse()) {
                target = warehouseTarget(run, recorded, context.hadoop());
                publisher = new WarehousePublisher(WarehouseConnector.of(run.job().target().database(),
                        context.shared().sources().environment()), context.hadoop());
            } else {
                TargetCatalog catalog = context.shared().catalogs().forJob(run.job());
                target = target(run, catalog, files);
                catalog.createIfAbsent(target);
                publisher = new IcebergPublisher(catalog);
            }
        } catch (RuntimeException e) {
            // Nothing was committed: the commit is the last thing a publish does.
            report(run, token, PublishOutcome.FAILED_PUBLISH, "PUBLISH_PREPARE_FAILED", e.getMessage(), null);
            return StepOutcome.FAILED;
        }
        var outcome = publisher.publish(new PublishRequest(run.runId().toString(), run.job().jobKey(),
                run.businessKey(), token, target, files));
        PublishOutcome reported = PublishOutcome.valueOf(outcome.status().name());
        report(run, token, reported, outcome.errorCode() == null ? null : outcome.errorCode().name(),
                outcome.message(), outcome.targetRef());
        if (reported == PublishOutcome.PUBLISH_UNKNOWN) {
            ProbeResult probe = publisher.probe(target.identifier(), run.runId().toString(), token);
            boolean found = probe.status() == ProbeResult.Status.PUBLISHED;
            var resolved = context.ledger().probePublishUnknown(run.runId(), new PublishProbe(token, found,
                    found ? String.valueOf(probe.snapshotId()) : null, true,
                    Map.of("probe", String.valueOf(probe.evidence()))));
            LOG.warn("run {} publish outcome was unknown; the probe {} the token: run is {}", run.runId(),
                    found ? "found" : "did not find", resolved.runStatus());
        }
        return reported == PublishOutcome.PUBLISHED ? StepOutcome.OK : StepOutcome.FAILED;
    }

    /**
     * A warehouse table holds the staged files' columns (it is created from them, and target validation reads them
     * back as such): those of a data chunk, or, when every row was rejected, of a rejects chunk without its reason.
     */
    static TargetTable warehouseTarget(RunContext run, List<StepApi.StagedFile> recorded, Configuration hadoop) {
        TableIdentifier identifier = TableIdentifier.parse(run.job().target().table());
        StagedFilesReader reader = new StagedFilesReader(hadoop);
        StepApi.StagedFile first = recorded.stream().filter(f -> f.kind() == ChunkKind.DATA).findFirst()
                .or(() -> recorded.stream().findFirst())
                .orElseThrow(() -> new IllegalStateException("the run staged no rows: there are no columns to publish"));
        Schema schema = reader.schemaOf(URI.create(first.hdfsPath()));
        if (first.kind() == ChunkKind.REJECTS) {
            schema = RejectsWriter.dataSchemaOf(schema);
        }
        return new TargetTable(identifier, schema, run.job().target().businessKeyColumn());
    }

    private TargetTable target(RunContext run, TargetCatalog catalog, List<StagedFile> files) {
        TableIdentifier identifier = TableIdentifier.parse(run.job().target().table());
        Schema schema;
        if (!files.isEmpty()) {
            schema = new StagedFilesReader(context.hadoop()).schemaOf(URI.create(files.get(0).location()));
        } else if (catalog.catalog().tableExists(identifier)) {
            schema = catalog.loadTable(identifier).schema();
        } else {
            throw new IllegalStateException("the run staged no rows and table " + identifier
                    + " does not exist yet: there is no schema to create it from");
        }
        return new TargetTable(identifier, schema, run.job().target().businessKeyColumn());
    }

    private void report(RunContext run, UUID token, PublishOutcome outcome, String errorCode, String message,
                        String targetRef) {
        String text = Messages.fit(message);
        var result = context.ledger().publishResult(run.runId(),
                new PublishResult(token, outcome, errorCode, text, targetRef));
        // Counted once the ledger has it: an outcome it never heard of comes again with the redelivered dispatch.
        context.shared().metrics().published(run.job().jobKey(), outcome);
        LOG.info("run {} publish: {}{}", run.runId(), result.runStatus(), text == null ? "" : " (" + text + ")");
    }
}

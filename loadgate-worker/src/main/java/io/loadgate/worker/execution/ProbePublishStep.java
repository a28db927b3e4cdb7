package io.loadgate.worker.execution;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.DispatchApi.LeasedDispatch;
import io.loadgate.api.ErrorCode;
import io.loadgate.api.OperatorApi.PublishProbe;
import io.loadgate.api.RunStatus;
import io.loadgate.worker.ledger.LedgerCallException;
import io.loadgate.worker.metrics.StepOutcome;
import io.loadgate.worker.publish.ProbeResult;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PROBE_PUBLISH (extension): the sweeper found a publish that never reported (its worker died mid-publish) and moved
 * the run to PUBLISH_UNKNOWN. Look for the run's publish token in the target and give the ledger the evidence: found
 * is PUBLISHED; absent is FAILED_PUBLISH once the ledger deems the attempt over (publish_stale has passed since the
 * claim, which is why the sweeper moved it). Nothing is ever published again here.
 *
 * <p>An inconclusive answer, or a target that cannot be read, leaves the dispatch unacknowledged: it comes back after
 * ack_timeout, at most dispatch.max_attempts times, so a probe that cannot settle the run never loops hot.
 */
final class ProbePublishStep {
    private static final Logger LOG = LoggerFactory.getLogger(ProbePublishStep.class);

    private final WorkerContext context;

    ProbePublishStep(WorkerContext context) {
        this.context = requireNonNull(context, "context is null");
    }

    StepOutcome run(LeasedDispatch dispatch) {
        if (context.ledger().getRun(dispatch.runId()).status() != RunStatus.PUBLISH_UNKNOWN) {
            return StepOutcome.SKIPPED;
        }
        RunContext run = context.shared().runs().get(dispatch.runId());
        UUID token = UUID.fromString(String.valueOf(dispatch.payload().get("publishToken")));
        ProbeResult probe = context.targets().forJob(run.job()).probe(run.runId().toString(), token);
        boolean found = probe.status() == ProbeResult.Status.PUBLISHED;
        try {
            // attemptReturned=false: this process did not publish, so it cannot say the attempt is over.
            var resolved = context.ledger().probePublishUnknown(run.runId(), new PublishProbe(token, found,
                    found ? String.valueOf(probe.snapshotId()) : null, false,
                    Map.of("probe", probe.evidence(), "probedBy", context.node())));
            LOG.info("run {} publish probe {} the token: run is {}", run.runId(), found ? "found" : "did not find",
                    resolved.runStatus());
            return StepOutcome.OK;
        } catch (LedgerCallException e) {
            if (!e.is(ErrorCode.PROBE_INCONCLUSIVE)) {
                throw e;
            }
            LOG.info("run {} publish probe inconclusive; the probe comes again after ack_timeout: {}", run.runId(),
                    e.getMessage());
            return StepOutcome.SKIPPED;
        }
    }
}

package io.loadgate.worker.execution;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunId;
import io.loadgate.api.RunStatus;
import io.loadgate.api.StepApi.PublishRecorded;
import io.loadgate.api.StepApi.PublishResult;
import io.loadgate.ledger.LedgerSettings.RecoveryMode;
import io.loadgate.worker.ledger.ForwardingLedgerClient;
import io.loadgate.worker.ledger.HttpLedgerClient;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.ledger.LedgerClientConfig;
import io.loadgate.worker.ledger.LedgerToken;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 8 item 5: a worker that committed must not drop the outcome because the ledger was away for a few seconds
 * (a restart); the run would wait publish_stale for an operator although the worker knew what happened.
 */
@Timeout(180)
class PublishReportEndToEndTest {
    private static final LocalDate DAY = LocalDate.of(2026, 11, 29);

    @TempDir
    Path dir;
    private LoadHarness harness;

    @AfterEach
    void stop() {
        if (harness != null) {
            harness.close();
        }
    }

    @Test
    void aCommittedOutcomeIsReportedAgainUntilTheLedgerTakesIt() throws Exception {
        AtomicInteger refusals = new AtomicInteger(3);
        LedgerClient away = awayLedger();
        harness = new LoadHarness(dir, RecoveryMode.FAIL, client -> new ForwardingLedgerClient(client) {
            @Override
            protected <T> T around(String method, Supplier<T> call) {
                return call.get();
            }

            /** The first reports find no ledger: what a worker sees while it restarts. */
            @Override
            public PublishRecorded publishResult(RunId runId, PublishResult result) {
                if (refusals.getAndDecrement() > 0) {
                    return away.publishResult(runId, result);
                }
                return super.publishResult(runId, result);
            }
        });
        harness.addRows(DAY, 1, 3_000);
        harness.startWorker(2);
        var submission = harness.submit(harness.jobYaml("ITEMS", 2), DAY);

        RunView run = harness.waitFor(submission.runId(), RunStatus.SUCCESS);

        assertThat(run.status()).as("%s: %s", run.status(), run.errorMessage()).isEqualTo(RunStatus.SUCCESS);
        assertThat(refusals.get()).as("every refused report was made, then one more").isNegative();
        assertThat(harness.tableRows(DAY)).isEqualTo(harness.sourceRows(DAY));
    }

    /** A client of a ledger that is not there: each call fails at once as unreachable. */
    private static LedgerClient awayLedger() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        return HttpLedgerClient.create(LedgerClientConfig.builder(java.net.URI.create("http://127.0.0.1:" + port),
                LedgerToken.of("lg_worker_unused")).retry(LedgerClientConfig.Retry.NONE).build());
    }
}

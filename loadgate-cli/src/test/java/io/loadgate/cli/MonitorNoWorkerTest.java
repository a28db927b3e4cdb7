package io.loadgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.server.testing.Runs;
import io.loadgate.server.testing.TestLedger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A run whose steps no worker leases is listed under the monitor's attention, with what to do. */
class MonitorNoWorkerTest {
    @TempDir
    Path dir;

    @Test
    void aRunNoWorkerHasTakenForAMinuteNeedsAttention() throws Exception {
        try (TestLedger ledger = new TestLedger()) {
            Path tokens = Files.writeString(dir.resolve("viewer"), "viewer=" + ledger.viewerToken + "\n");
            Map<String, Object> body = Runs.create("NOBODY_LEASES", "2026-11-29");
            body.put("executor", "worker");
            String waiting = ledger.post("/v1/runs", body).text("runId");
            assertThat(ledger.post("/v1/runs/" + waiting + "/manifest", Runs.manifest(10, 20)).status()).isEqualTo(200);
            Map<String, Object> freshBody = Runs.create("JUST_SUBMITTED", "2026-11-29");
            freshBody.put("executor", "worker");
            String fresh = ledger.post("/v1/runs", freshBody).text("runId");
            assertThat(ledger.post("/v1/runs/" + fresh + "/manifest", Runs.manifest(10, 20)).status()).isEqualTo(200);
            // A minute is the ledger's patience; the rows are made older rather than the test slower.
            ledger.execute("UPDATE loadgate.load_dispatch SET next_attempt_at = now() - interval '3 minutes',"
                    + " created_at = now() - interval '3 minutes' WHERE run_id = '" + waiting + "'");

            var result = OperatorCommandsTest.run("monitor", "--once", "--width", "120", "--ledger", ledger.baseUrl(),
                    "--token-file", tokens.toString());

            assertThat(result.exit()).as(result.toString()).isZero();
            assertThat(result.out()).as(result.toString())
                    .contains("1 without a worker", "! NO WORKER  for ", "NOBODY_LEASES", "run " + waiting,
                            "no worker has taken its 2 waiting dispatch(es)", "loadgate worker",
                            "loadgate cancel " + waiting)
                    .doesNotContain("run " + fresh);
        }
    }
}

package io.loadgate.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.loadgate.server.testing.Runs;
import io.loadgate.server.testing.TestLedger;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What an alert watches: the ledger's state as gauges, refreshed on a timer. */
class LedgerGaugesTest {
    @Test
    void gaugesFollowTheLedger() {
        try (TestLedger ledger = new TestLedger()) {
            PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            try (LedgerGauges gauges = LedgerGauges.start(ledger.ledger.views(), registry, Duration.ofMillis(100))) {
                String runId = Runs.started(ledger, "GAUGED", 10, 20);
                ledger.execute("UPDATE loadgate.load_run SET status = 'PUBLISH_UNKNOWN' WHERE run_id = '" + runId + "'");
                ledger.execute("UPDATE loadgate.load_partition SET status = 'RUNNING', started_at = now() - interval"
                        + " '10 minutes', heartbeat_at = now() - interval '5 minutes' WHERE run_id = '" + runId + "'");
                await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                    String scrape = registry.scrape();
                    assertThat(scrape).contains("loadgate_ledger_up 1.0", "loadgate_publish_unknown_runs 1.0",
                            "loadgate_running_partitions 2.0", "loadgate_runs{status=\"PUBLISH_UNKNOWN\"} 1.0");
                    assertThat(registry.get("loadgate_oldest_heartbeat_seconds").gauge().value())
                            .isGreaterThan(290);
                });
            }
        }
    }

    @Test
    void rejectedRowsOfRecentRunsAndSkippedCleanupsAreGauged() {
        try (TestLedger ledger = new TestLedger()) {
            PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            try (LedgerGauges gauges = LedgerGauges.start(ledger.ledger.views(), registry, Duration.ofMillis(100))) {
                String runId = Runs.started(ledger, "REJECTING", 30);
                java.util.UUID token = java.util.UUID.randomUUID();
                ledger.post("/v1/runs/" + runId + "/partitions/0000/claim", java.util.Map.of("claimToken",
                        token.toString(), "workerNode", "w"));
                ledger.post("/v1/runs/" + runId + "/partitions/0000/chunks", Runs.chunk(runId, token, "0000", 0, 2, 26));
                var rejects = new java.util.LinkedHashMap<>(Runs.chunk(runId, token, "0000", 1, 2, 4));
                rejects.put("kind", "REJECTS");
                assertThat(ledger.post("/v1/runs/" + runId + "/partitions/0000/chunks", rejects).status()).isEqualTo(200);
                ledger.execute("UPDATE loadgate.load_run SET status = 'SUCCESS', completed_at = now() WHERE run_id = '"
                        + runId + "'");
                String skipped = Runs.started(ledger, "SKIPPED", 5);
                ledger.execute("UPDATE loadgate.load_run SET status = 'FAILED_EXTRACT', completed_at = now() - interval"
                        + " '30 days' WHERE run_id = '" + skipped + "'");
                assertThat(ledger.post("/v1/runs/" + skipped + "/cleanup/skipped", java.util.Map.of("reason",
                        "catalog unreachable")).status()).isEqualTo(200);

                await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(registry.scrape())
                        .contains("loadgate_rejected_rows_24h 4.0", "loadgate_cleanup_skipped_runs 1.0"));
            }
        }
    }
}

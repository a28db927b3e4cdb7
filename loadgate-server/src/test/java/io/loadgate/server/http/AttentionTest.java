package io.loadgate.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.loadgate.api.JobKey;
import io.loadgate.api.OperatorApi.Attention;
import io.loadgate.api.OperatorApi.AttentionKind;
import io.loadgate.ledger.run.AttentionRules;
import io.loadgate.ledger.run.RunViews;
import io.loadgate.server.metrics.LedgerGauges;
import io.loadgate.server.testing.Runs;
import io.loadgate.server.testing.TestLedger;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The attention list against a ledger put in each state through its API (ages moved back in the database). */
class AttentionTest {
    private static final AttentionRules RULES = AttentionRules.of(Duration.ofHours(1), Duration.ofMinutes(90),
            Duration.ofHours(2), Duration.ofMinutes(30), Map.of("FRESH", Duration.ofHours(1)));

    private TestLedger ledger;
    private RunViews views;

    @BeforeEach
    void start() {
        ledger = new TestLedger();
        views = new RunViews(ledger.ledger.database(), RULES);
    }

    @AfterEach
    void stop() {
        ledger.close();
    }

    @SuppressWarnings("unchecked")
    private List<Attention> attention() {
        return (List<Attention>) views.monitorSummary().get("attention");
    }

    private Attention only(AttentionKind kind) {
        List<Attention> entries = attention().stream().filter(a -> a.kind() == kind).toList();
        assertThat(entries).as(attention().toString()).hasSize(1);
        return entries.get(0);
    }

    private String run(String jobKey, String businessKey) {
        return Runs.extracting(ledger, jobKey, businessKey);
    }

    private String stagingValidated(String jobKey, String businessKey) {
        return Runs.stagingValidated(ledger, jobKey, businessKey);
    }

    private UUID publishing(String runId) {
        return Runs.publishing(ledger, runId);
    }

    private String succeeded(String jobKey, String businessKey) {
        return Runs.succeeded(ledger, jobKey, businessKey);
    }

    private String failedExtract(String jobKey, String businessKey) {
        return Runs.failedExtract(ledger, jobKey, businessKey);
    }

    @Test
    void aFailureLoadedOverBySuccessIsQuietAndOutOfTheFailingAlert() throws Exception {
        String superseded = failedExtract("ORDERS", "2026-11-29");
        String reloaded = succeeded("ORDERS", "2026-11-29");
        String open = failedExtract("ORDERS", "2026-11-30");

        Attention quiet = only(AttentionKind.SUPERSEDED_FAILURE);
        assertThat(quiet.runId().toString()).isEqualTo(superseded);
        assertThat(quiet.supersededBy().toString()).isEqualTo(reloaded);
        assertThat(quiet.fix()).as("nothing to do").isNull();
        Attention failed = only(AttentionKind.FAILED_RUN);
        assertThat(failed.runId().toString()).isEqualTo(open);
        assertThat(failed.fix()).as("load the key again")
                .isEqualTo("loadgate run <ORDERS.yaml> --business-key 2026-11-30");

        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (LedgerGauges gauges = LedgerGauges.start(views, registry, Duration.ofMillis(100))) {
            // LoadgateRunsFailing watches this gauge: the superseded failure is not in it, the open one is.
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(registry.scrape())
                    .contains("loadgate_unsuperseded_failed_runs 1.0"));
        }
        succeeded("ORDERS", "2026-11-30");
        assertThat(attention()).as("both failures are loaded over").extracting(Attention::kind)
                .containsOnly(AttentionKind.SUPERSEDED_FAILURE);
        assertThat(views.vitals().unsupersededFailedRuns()).isZero();
    }

    @Test
    void aRunPastItsStateThresholdIsStuckEvenPublishingBeforePublishStale() {
        String publishing = stagingValidated("CUSTOMERS", "2026-11-29");
        publishing(publishing);
        String extracting = run("CUSTOMERS", "2026-11-30");
        String fresh = stagingValidated("CUSTOMERS", "2026-12-01");
        assertThat(attention()).as("nothing is old yet").isEmpty();

        // 45 minutes in PUBLISHING: past the 30 minutes a step may take, well before publish_stale (2 h).
        ledger.execute("UPDATE loadgate.load_run SET status_changed_at = now() - interval '45 minutes'"
                + " WHERE run_id = '" + publishing + "'");
        // An extracting run counts from its last heartbeat: 100 minutes is past stale (90).
        ledger.execute("UPDATE loadgate.load_run SET status_changed_at = now() - interval '100 minutes',"
                + " heartbeat_at = now() - interval '100 minutes' WHERE run_id = '" + extracting + "'");
        ledger.execute("UPDATE loadgate.load_run SET status_changed_at = now() - interval '10 minutes'"
                + " WHERE run_id = '" + fresh + "'");

        List<Attention> stuck = attention().stream().filter(a -> a.kind() == AttentionKind.STUCK_RUN).toList();
        assertThat(stuck).as(attention().toString()).extracting(a -> a.runId().toString())
                .containsExactlyInAnyOrder(publishing, extracting);
        Attention publish = stuck.stream().filter(a -> a.runId().toString().equals(publishing)).findFirst()
                .orElseThrow();
        assertThat(publish.reason()).contains("PUBLISHING for", "threshold 00:30:00");
        assertThat(publish.fix()).as("a publishing run cannot be cancelled").isEqualTo("loadgate runs show "
                + publishing);
        Attention extract = stuck.stream().filter(a -> a.runId().toString().equals(extracting)).findFirst()
                .orElseThrow();
        assertThat(extract.reason()).contains("without a heartbeat");
        assertThat(extract.fix()).isEqualTo("loadgate cancel " + extracting + " --reason \"<why>\"");
        assertThat(views.vitals().stuckRuns()).isEqualTo(2);

        // A run with a dead dispatch is listed for that, with its own fix, not again as stuck.
        ledger.execute("UPDATE loadgate.load_run SET status_changed_at = now() - interval '45 minutes'"
                + " WHERE run_id = '" + fresh + "'");
        ledger.execute("UPDATE loadgate.load_dispatch SET status = 'DEAD', last_error = 'receiver gone'"
                + " WHERE run_id = '" + fresh + "'");
        Attention dead = only(AttentionKind.DEAD_DISPATCH);
        assertThat(dead.runId().toString()).isEqualTo(fresh);
        assertThat(dead.fix()).isEqualTo("loadgate dispatch resend " + fresh + " " + dead.dispatchId());
        assertThat(attention()).filteredOn(a -> a.kind() == AttentionKind.STUCK_RUN).hasSize(2);
    }

    @Test
    void aJobLoadedLongerAgoThanItsFreshnessIsStaleAndGauged() {
        String last = succeeded("FRESH", "2026-11-28");
        succeeded("UNWATCHED", "2026-11-28");
        assertThat(attention()).isEmpty();
        ledger.execute("UPDATE loadgate.load_run SET completed_at = now() - interval '3 hours'");

        Attention stale = only(AttentionKind.STALE_DATA);
        assertThat(stale.runId().toString()).isEqualTo(last);
        assertThat(stale.jobKey()).isEqualTo(JobKey.of("FRESH"));
        assertThat(stale.reason()).contains("3.0 h ago", "key 2026-11-28", "expected every 60 min");
        assertThat(stale.fix()).isEqualTo("loadgate run <FRESH.yaml> --business-key <the next key>");

        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (LedgerGauges gauges = LedgerGauges.start(views, registry, Duration.ofMillis(100))) {
            // ignoreExceptions: until the first refresh the job's row is not registered yet.
            await().atMost(Duration.ofSeconds(10)).ignoreExceptions().untilAsserted(() -> {
                assertThat(registry.scrape()).contains(
                        "loadgate_job_expected_freshness_seconds{job_key=\"FRESH\"} 3600.0");
                assertThat(registry.get("loadgate_job_last_success_age_seconds").tag("job_key", "UNWATCHED")
                        .gauge().value()).isBetween(3.0 * 3600 - 60, 3.0 * 3600 + 60);
            });
        }
    }

    @Test
    void aPublishUnknownRunNamesTheResolveCommand() {
        String runId = stagingValidated("LEDGER", "2026-11-29");
        UUID token = publishing(runId);
        ledger.post("/v1/runs/" + runId + "/publish/result", Map.of("publishToken", token.toString(),
                "outcome", "PUBLISH_UNKNOWN"));
        ledger.execute("UPDATE loadgate.load_run SET status_changed_at = now() - interval '5 hours'");
        assertThat(attention()).as("listed once, whatever its age").hasSize(1);
        assertThat(only(AttentionKind.PUBLISH_UNKNOWN).fix()).startsWith("loadgate resolve " + runId
                + " --as PUBLISHED|FAILED_PUBLISH --reason");
    }
}

package io.loadgate.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.loadgate.server.metrics.LedgerGauges;
import io.loadgate.server.testing.Runs;
import io.loadgate.server.testing.TestLedger;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code GET /v1/monitor/history} (extension): runs per job and hour or day, rows by stage, loss in percent. */
class HistoryApiTest {
    @RegisterExtension
    static final TestLedger ledger = new TestLedger();

    @BeforeAll
    static void start() {
        // Two SUCCESS runs of 30 rows, one of which published 27: 3 of 60 rows lost, 5 %.
        String full = Runs.succeeded(ledger, "HIST", "2026-11-27");
        String lossy = Runs.succeeded(ledger, "HIST", "2026-11-28");
        ledger.execute("UPDATE loadgate.load_run SET target_count = 27 WHERE run_id = '" + lossy + "'");
        String failed = Runs.failedExtract(ledger, "HIST", "2026-11-29");
        String old = Runs.succeeded(ledger, "HIST", "2026-11-20");
        String other = Runs.succeeded(ledger, "OTHER", "2026-11-28");
        // Put every run in a known hour: three runs two hours ago, one 3 days ago, another job's one hour ago.
        ledger.execute("UPDATE loadgate.load_run SET started_at = date_trunc('hour', now()) - interval '2 hours',"
                + " completed_at = date_trunc('hour', now()) - interval '2 hours' + interval '90 seconds'"
                + " WHERE run_id IN ('" + full + "', '" + lossy + "', '" + failed + "')");
        ledger.execute("UPDATE loadgate.load_run SET started_at = now() - interval '3 days' - interval '1 minute',"
                + " completed_at = now() - interval '3 days' WHERE run_id = '" + old + "'");
        ledger.execute("UPDATE loadgate.load_run SET started_at = now() - interval '1 hour',"
                + " completed_at = now() - interval '1 hour' + interval '10 seconds' WHERE run_id = '" + other + "'");
    }

    private static List<JsonNode> rows(String query) {
        var answer = ledger.send("GET", "/v1/monitor/history" + query, null, ledger.viewerToken);
        assertThat(answer.status()).as(answer.toString()).isEqualTo(200);
        return StreamSupport.stream(answer.body().get("rows").spliterator(), false).toList();
    }

    @Test
    void theLastDayByHourCountsRunsRowsAndLossPerJob() {
        List<JsonNode> hist = rows("?job=HIST&bucket=hour");
        assertThat(hist).as(hist.toString()).hasSize(1);
        JsonNode hour = hist.get(0);
        assertThat(Instant.parse(hour.get("bucketStart").asText()))
                .isEqualTo(Instant.now().truncatedTo(ChronoUnit.HOURS).minus(Duration.ofHours(2)));
        assertThat(hour.at("/runsByOutcome/SUCCESS").asLong()).isEqualTo(2);
        assertThat(hour.at("/runsByOutcome/FAILED_EXTRACT").asLong()).isEqualTo(1);
        assertThat(hour.get("rowsRead").asLong()).as("the failed run read nothing").isEqualTo(60);
        assertThat(hour.get("rowsStaged").asLong()).isEqualTo(60);
        assertThat(hour.get("rowsPublished").asLong()).isEqualTo(57);
        assertThat(hour.get("percentLoss").asDouble()).isEqualTo(5.0);
        assertThat(hour.get("durationSecondsMax").asDouble()).isEqualTo(90.0);

        List<JsonNode> all = rows("?bucket=hour");
        assertThat(all).extracting(r -> r.get("jobKey").asText()).containsExactly("HIST", "OTHER");
        assertThat(all.get(1).get("percentLoss").asDouble()).isZero();
    }

    @Test
    void fourteenDaysByDayReachBackToTheOlderRun() {
        List<JsonNode> days = rows("?job=HIST&bucket=day");
        assertThat(days.stream().mapToLong(r -> r.at("/runsByOutcome/SUCCESS").asLong()).sum()).isEqualTo(3);
        assertThat(rows("?job=HIST&bucket=day&from=" + Instant.now().minus(Duration.ofDays(1))).stream()
                .mapToLong(r -> r.at("/runsByOutcome/SUCCESS").asLong()).sum()).as("from cuts the older run off")
                .isEqualTo(2);
    }

    @Test
    void badParametersAre422WithTheirNames() {
        var answer = ledger.send("GET", "/v1/monitor/history?bucket=week&from=yesterday", null, ledger.viewerToken);
        assertThat(answer.status()).as(answer.toString()).isEqualTo(422);
        assertThat(answer.body().toString()).contains("bucket", "must be hour or day", "from", "ISO-8601");
        assertThat(ledger.send("GET", "/v1/monitor/history?bucket=hour&from=2020-01-01T00:00:00Z", null,
                ledger.viewerToken).status()).as("more than 31 days of hours").isEqualTo(422);
    }

    @Test
    void thePercentLostOverTheLastDayIsGaugedPerJob() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (LedgerGauges gauges = LedgerGauges.start(ledger.ledger.views(), registry, Duration.ofMillis(100))) {
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(registry.scrape()).contains(
                    "loadgate_job_percent_loss_24h{job_key=\"HIST\"} 5.0",
                    "loadgate_job_percent_loss_24h{job_key=\"OTHER\"} 0.0"));
        }
    }
}

package io.loadgate.worker.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.loadgate.api.RunStatus;
import io.loadgate.ledger.LedgerSettings.RecoveryMode;
import io.loadgate.worker.metrics.MetricsServer;
import io.loadgate.worker.metrics.WorkerMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A worker's /metrics, scraped over HTTP after a real load: ledger, PostgreSQL source, Parquet stage, Iceberg. */
@Timeout(180)
class WorkerMetricsEndToEndTest {
    private static final LocalDate DAY = LocalDate.of(2026, 11, 29);

    @TempDir
    Path dir;
    private LoadHarness harness;
    private MetricsServer server;
    private final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        if (harness != null) {
            harness.close();
        }
    }

    @Test
    void aLoadShowsInTheWorkersMetrics() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        harness = new LoadHarness(dir, RecoveryMode.FAIL, new WorkerMetrics(registry));
        server = MetricsServer.start(registry, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                Optional::empty);
        harness.addRows(DAY, 1, 7_000);
        harness.addRows(DAY.minusDays(1), 100_001, 500);
        harness.startWorker(2);

        var run = harness.follow(harness.submit(harness.jobYaml("ITEMS", 3), DAY));

        assertThat(run.status()).as("the run, %s", run).isEqualTo(RunStatus.SUCCESS);
        // The run is SUCCESS as soon as target validation reports, a moment before its step's timer is recorded.
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                value(scrape(), "loadgate_worker_step_seconds_count", "type=\"VALIDATE_TARGET\"", "outcome=\"ok\""))
                .as("target validations timed").contains(1.0));
        String metrics = scrape();
        assertThat(value(metrics, "loadgate_worker_rows_extracted_total", "job=\"ITEMS\""))
                .as("rows extracted, in:%n%s", metrics).contains((double) harness.sourceRows(DAY).size());
        assertThat(value(metrics, "loadgate_worker_chunk_files_total", "job=\"ITEMS\""))
                .as("chunk files, in:%n%s", metrics).hasValueSatisfying(files -> assertThat(files).isPositive());
        assertThat(value(metrics, "loadgate_worker_chunk_bytes_total", "job=\"ITEMS\""))
                .as("chunk bytes, in:%n%s", metrics).hasValueSatisfying(bytes -> assertThat(bytes).isPositive());
        assertThat(value(metrics, "loadgate_worker_publish_outcomes_total", "job=\"ITEMS\"", "outcome=\"PUBLISHED\""))
                .as("published, in:%n%s", metrics).contains(1.0);
        for (String type : new String[] {"EXTRACT_PARTITION", "VALIDATE_RUN", "PUBLISH_RUN", "VALIDATE_TARGET"}) {
            assertThat(value(metrics, "loadgate_worker_step_seconds_count", "type=\"" + type + "\"", "outcome=\"ok\""))
                    .as("%s steps ok, in:%n%s", type, metrics).hasValueSatisfying(n -> assertThat(n).isPositive());
        }
        assertThat(value(metrics, "loadgate_worker_step_seconds_count", "outcome=\"failed\""))
                .as("failed steps, in:%n%s", metrics).isEmpty();
        assertThat(value(metrics, "loadgate_worker_threads")).as("threads").contains(2.0);
        assertThat(value(metrics, "loadgate_worker_ledger_calls_seconds_count", "method=\"claim\"", "outcome=\"ok\""))
                .as("claims timed (one per partition, the NULL partition too), in:%n%s", metrics)
                .contains((double) run.expectedPartitionCount());

        HttpResponse<String> health = get("/healthz");
        assertThat(health.statusCode()).as("healthz").isEqualTo(200);
        assertThat(health.body()).isEqualTo("ok");
        assertThat(get("/other").statusCode()).as("an unknown path").isEqualTo(404);
    }

    private String scrape() throws Exception {
        HttpResponse<String> response = get("/metrics");
        assertThat(response.statusCode()).as("GET /metrics: %s", response.body()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(type ->
                assertThat(type).startsWith("text/plain; version=0.0.4"));
        return response.body();
    }

    private HttpResponse<String> get(String path) throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + server.address().getPort() + path);
        return http.send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The sample of {@code name} whose labels include every one of {@code labels}, summed when several match. */
    private static Optional<Double> value(String scrape, String name, String... labels) {
        return scrape.lines()
                .filter(line -> line.startsWith(name + "{") || line.startsWith(name + " "))
                .filter(line -> {
                    String labelText = line.contains("{") ? line.substring(line.indexOf('{'), line.indexOf('}')) : "";
                    for (String label : labels) {
                        if (!labelText.contains(label)) {
                            return false;
                        }
                    }
                    return true;
                })
                .map(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .reduce(Double::sum);
    }
}

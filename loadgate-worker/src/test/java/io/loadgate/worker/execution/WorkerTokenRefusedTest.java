package io.loadgate.worker.execution;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.server.testing.TestLedger;
import io.loadgate.worker.ledger.HttpLedgerClient;
import io.loadgate.worker.ledger.LedgerClientConfig;
import io.loadgate.worker.ledger.LedgerToken;
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
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A worker whose token the ledger refuses stops leasing and says so, and its /healthz fails, instead of retrying. */
@Timeout(60)
class WorkerTokenRefusedTest {
    @TempDir
    Path dir;

    @Test
    void aWrongTokenStopsTheWorkerAndFailsItsHealth() throws Exception {
        var timer = Executors.newSingleThreadScheduledExecutor();
        try (TestLedger ledger = new TestLedger();
             TargetCatalogs catalogs = new TargetCatalogs(Optional.empty(), dir)) {
            var client = HttpLedgerClient.create(LedgerClientConfig.builder(ledger.baseUrl(),
                    LedgerToken.of("not-a-token-the-ledger-knows")).build());
            WorkerContext context = new WorkerContext(client, "wrong-token", new Configuration(),
                    new WorkerContext.Shared(new RunContexts(client), new SourceCache(Map.of()), catalogs, timer,
                            WorkerMetrics.off()), Duration.ofSeconds(1), Duration.ofSeconds(1));
            Worker worker = Worker.start(context, 2);
            try (MetricsServer health = MetricsServer.start(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), worker::unhealthy)) {
                String reason = worker.refused().get(30, TimeUnit.SECONDS);

                assertThat(reason).as("one line naming the refusal").contains("refused this worker's token", "401")
                        .doesNotContain("\n").doesNotContain("not-a-token");
                HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                        "http://127.0.0.1:" + health.address().getPort() + "/healthz")).GET().build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(answer.statusCode()).as("/healthz: %s", answer.body()).isEqualTo(503);
                assertThat(answer.body()).contains("refused this worker's token");
            } finally {
                worker.stop(Duration.ofSeconds(5));
            }
        } finally {
            timer.shutdownNow();
        }
    }
}

package io.loadgate.worker.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.loadgate.api.DispatchType;
import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunId;
import io.loadgate.api.RunStatus;
import io.loadgate.ledger.LedgerSettings.RecoveryMode;
import io.loadgate.ledger.dispatch.DispatchPolicy;
import io.loadgate.ledger.sweeper.Sweep;
import io.loadgate.ledger.sweeper.SweepThresholds;
import io.loadgate.worker.ledger.ForwardingLedgerClient;
import io.loadgate.worker.ledger.HttpLedgerClient;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.ledger.LedgerClientConfig;
import io.loadgate.worker.ledger.LedgerToken;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Steps whose answer is lost or whose worker dies half-way, end to end: a real ledger over HTTP, a PostgreSQL source,
 * Parquet files, an Iceberg table. A worker "dies" at the ledger seam: from a chosen call on, every call it makes
 * fails, so it neither reports nor beats again, as a killed process would not.
 */
@Timeout(240)
class RecoveryEndToEndTest {
    private static final LocalDate DAY = LocalDate.of(2026, 11, 29);
    private static final SweepThresholds THRESHOLDS = new SweepThresholds(Duration.ofMinutes(90), Duration.ofHours(6),
            Duration.ofHours(1), Duration.ofHours(2), Duration.ofHours(2), new DispatchPolicy(20, Duration.ofSeconds(5),
            Duration.ofMinutes(5), Duration.ofMinutes(10), Duration.ofSeconds(60)), 500);
    private static final EnumSet<DispatchType> EXTRACT = EnumSet.of(DispatchType.EXTRACT_PARTITION,
            DispatchType.REISSUE_PARTITION);

    @TempDir
    Path dir;
    private LoadHarness harness;

    @AfterEach
    void stop() {
        if (harness != null) {
            harness.close();
        }
    }

    /** A client that works until {@code killAt}, then fails that call (after it reached the ledger, or before). */
    private static final class DyingClient extends ForwardingLedgerClient {
        private final String killAt;
        private final boolean afterTheCall;
        final AtomicBoolean dead = new AtomicBoolean();

        DyingClient(LedgerClient delegate, String killAt, boolean afterTheCall) {
            super(delegate);
            this.killAt = killAt;
            this.afterTheCall = afterTheCall;
        }

        @Override
        protected <T> T around(String method, Supplier<T> call) {
            if (dead.get()) {
                throw new IllegalStateException("this worker is dead");
            }
            if (method.equals(killAt)) {
                if (afterTheCall) {
                    call.get();
                }
                dead.set(true);
                throw new IllegalStateException("worker killed at " + method);
            }
            return call.get();
        }
    }

    private Sweep sweep() {
        return new Sweep(harness.ledger.ledger.database(), harness.ledger.ledger.settings());
    }

    private RunView waitFor(RunId runId, RunStatus status) {
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100)).until(() -> {
            RunStatus now = harness.client.getRun(runId).status();
            return now == status || now.isTerminal();
        });
        return harness.client.getRun(runId);
    }

    @Test
    void aValidationWhoseWorkerDiedIsGivenAgainAndTheRunSucceeds() throws Exception {
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        harness.addRows(DAY, 1, 4_000);
        harness.startWorker(2, EnumSet.of(DispatchType.EXTRACT_PARTITION, DispatchType.REISSUE_PARTITION,
                DispatchType.PUBLISH_RUN, DispatchType.VALIDATE_TARGET));
        DyingClient doomed = new DyingClient(harness.client, "startValidation", true);
        Worker dying = harness.startWorker(doomed, "doomed", EnumSet.of(DispatchType.VALIDATE_RUN));

        // The submission holds the source snapshot open until the run is done with it.
        try (var submission = harness.submit(harness.jobYaml("REGIVEN", 2), DAY)) {
            await().atMost(Duration.ofSeconds(90)).untilTrue(doomed.dead);
            dying.stop(Duration.ofSeconds(5));
            assertThat(harness.client.getRun(submission.runId()).status()).as("started, then its worker died")
                    .isEqualTo(RunStatus.STAGE_VALIDATING);
            // validation_stale passes without a beat.
            harness.ledger.execute("UPDATE load_run SET validation_heartbeat_at = now() - interval '3 hours', "
                    + "status_changed_at = now() - interval '3 hours'");

            assertThat(sweep().tick(THRESHOLDS).validationsRegiven()).isEqualTo(1);
            harness.startWorker(1, EnumSet.of(DispatchType.VALIDATE_RUN));

            RunView run = waitFor(submission.runId(), RunStatus.SUCCESS);
            assertThat(run.status()).as(run.errorCode() + " " + run.errorMessage()).isEqualTo(RunStatus.SUCCESS);
            assertThat(harness.tableRows(DAY)).isEqualTo(harness.sourceRows(DAY));
            assertThat(harness.ledger.count(
                    "SELECT count(*) FROM load_event WHERE event_type = 'VALIDATION_REGIVEN'")).isEqualTo(1);
        }
    }

    @Test
    void aPublishWhoseWorkerDiedBeforeReportingIsSettledByTheProbe() throws Exception {
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        harness.addRows(DAY, 1, 4_000);
        harness.startWorker(2, EnumSet.of(DispatchType.EXTRACT_PARTITION, DispatchType.REISSUE_PARTITION,
                DispatchType.VALIDATE_RUN, DispatchType.VALIDATE_TARGET));
        // The commit lands in Iceberg; the worker dies before it can say so.
        DyingClient doomed = new DyingClient(harness.client, "publishResult", false);
        Worker dying = harness.startWorker(doomed, "doomed", EnumSet.of(DispatchType.PUBLISH_RUN));

        try (var submission = harness.submit(harness.jobYaml("PROBED", 2), DAY)) {
            await().atMost(Duration.ofSeconds(90)).untilTrue(doomed.dead);
            dying.stop(Duration.ofSeconds(5));
            assertThat(harness.client.getRun(submission.runId()).status()).isEqualTo(RunStatus.PUBLISHING);
            harness.ledger.execute("UPDATE load_run SET publish_started_at = now() - interval '3 hours', "
                    + "status_changed_at = now() - interval '3 hours'");

            assertThat(sweep().tick(THRESHOLDS).publishUnknown()).isEqualTo(1);
            harness.startWorker(1, EnumSet.of(DispatchType.PROBE_PUBLISH));

            RunView run = waitFor(submission.runId(), RunStatus.SUCCESS);
            assertThat(run.status()).as(run.errorCode() + " " + run.errorMessage()).isEqualTo(RunStatus.SUCCESS);
            assertThat(harness.tableRows(DAY)).as("published once").isEqualTo(harness.sourceRows(DAY));
            assertThat(harness.ledger.count("SELECT count(*) FROM load_event"
                    + " WHERE event_type = 'PUBLISH_UNKNOWN_RESOLVED' AND details->>'resolution' = 'PUBLISHED'"
                    + " AND actor LIKE 'worker%'")).as("resolved by the probe").isEqualTo(1);
        }
    }

    @Test
    void aValidationStartWhoseAnswerWasLostIsRetriedAndTheRunSucceeds() throws Exception {
        harness = new LoadHarness(dir, RecoveryMode.FAIL);
        harness.addRows(DAY, 1, 4_000);
        try (AnswerDroppingProxy proxy = new AnswerDroppingProxy(harness.ledger.baseUrl(), "/validation/start")) {
            LedgerClient throughProxy = HttpLedgerClient.create(LedgerClientConfig.builder(proxy.baseUrl(),
                    LedgerToken.of(harness.ledger.workerToken)).build());
            harness.startWorker(throughProxy, "lossy", EnumSet.allOf(DispatchType.class));

            RunView run;
            // The submission holds the source snapshot open until the run is done with it.
            try (var submission = harness.submit(harness.jobYaml("LOST_ANSWER", 2), DAY)) {
                run = waitFor(submission.runId(), RunStatus.SUCCESS);
            }

            assertThat(run.status()).as(run.errorCode() + " " + run.errorMessage()).isEqualTo(RunStatus.SUCCESS);
            assertThat(proxy.dropped.get()).as("the first answer was lost after the ledger committed").isEqualTo(1);
            assertThat(harness.ledger.count("SELECT count(*) FROM load_event WHERE to_status = 'STAGE_VALIDATING'"))
                    .as("one start").isEqualTo(1);
        }
    }

    /**
     * An HTTP proxy in front of the ledger that passes every call on, except that it drops the answer of the first
     * call whose path ends with {@code dropPath}: the ledger has committed it, the caller sees its connection close.
     */
    private static final class AnswerDroppingProxy implements AutoCloseable {
        private final HttpServer server;
        private final ExecutorService threads = Executors.newCachedThreadPool();
        private final HttpClient http = HttpClient.newHttpClient();
        final AtomicInteger dropped = new AtomicInteger();

        AnswerDroppingProxy(String target, String dropPath) throws IOException {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.setExecutor(threads);
            server.createContext("/", exchange -> {
                try (InputStream in = exchange.getRequestBody()) {
                    byte[] body = in.readAllBytes();
                    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(target
                            + exchange.getRequestURI())).timeout(Duration.ofSeconds(60))
                            .method(exchange.getRequestMethod(), body.length == 0
                                    ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
                    for (String header : List.of("Authorization", "Content-Type", "X-Request-Id")) {
                        String value = exchange.getRequestHeaders().getFirst(header);
                        if (value != null) {
                            request.header(header, value);
                        }
                    }
                    HttpResponse<byte[]> response = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
                    if (exchange.getRequestURI().getPath().endsWith(dropPath) && dropped.compareAndSet(0, 1)) {
                        // Thrown out of the handler, the server closes the connection without an answer.
                        throw new IOException("answer dropped by the proxy");
                    }
                    String type = response.headers().firstValue("Content-Type").orElse("application/json");
                    exchange.getResponseHeaders().add("Content-Type", type);
                    exchange.sendResponseHeaders(response.statusCode(), response.body().length == 0 ? -1
                            : response.body().length);
                    try (OutputStream out = exchange.getResponseBody()) {
                        out.write(response.body());
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException(e);
                } finally {
                    exchange.close();
                }
            });
            server.start();
        }

        String baseUrl() {
            return "http://127.0.0.1:" + server.getAddress().getPort();
        }

        @Override
        public void close() {
            server.stop(0);
            threads.shutdownNow();
        }
    }
}

package io.loadgate.worker.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.loadgate.api.BusinessKey;
import io.loadgate.api.DispatchApi;
import io.loadgate.api.DispatchType;
import io.loadgate.api.JobKey;
import io.loadgate.api.OperatorApi;
import io.loadgate.api.PartitionApi;
import io.loadgate.api.PartitionId;
import io.loadgate.api.PartitionStatus;
import io.loadgate.api.RunApi;
import io.loadgate.api.RunApi.CreateRun;
import io.loadgate.api.RunApi.OnLostResponse;
import io.loadgate.api.RunId;
import io.loadgate.api.RunStatus;
import io.loadgate.server.auth.Authenticator;
import io.loadgate.server.auth.Role;
import io.loadgate.server.auth.Tokens;
import io.loadgate.server.http.ApiServer;
import io.loadgate.server.testing.TestLedger;
import io.loadgate.worker.ledger.LedgerClientConfig.Retry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Which failures the client retries, how often, and which it never retries. */
class LedgerClientRetryTest {
    /** Runs out within the test: for the calls that are meant to give up. */
    private static final Retry QUICK = new Retry(Duration.ofSeconds(1), Duration.ofMillis(20), Duration.ofMillis(100));
    /** Never runs out within the test: for the calls that are meant to get through in the end, however slow. */
    private static final Retry PATIENT = new Retry(Duration.ofSeconds(60), Duration.ofMillis(20), Duration.ofMillis(100));
    private static TestLedger ledger;

    @BeforeAll
    static void start() {
        ledger = new TestLedger();
    }

    @AfterAll
    static void stop() {
        ledger.close();
    }

    private static LedgerClient client(URI uri, Retry retry) {
        return HttpLedgerClient.create(LedgerClientConfig.builder(uri, LedgerToken.of(ledger.workerToken))
                .retry(retry).requestTimeout(Duration.ofSeconds(10)).build());
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Test
    void connectionRefusedIsRetriedUntilTheLedgerComesUp() throws Exception {
        int port = closedPort();
        var client = client(URI.create("http://127.0.0.1:" + port),
                new Retry(Duration.ofSeconds(20), Duration.ofMillis(50), Duration.ofMillis(200)));
        Authenticator auth = new Authenticator(Map.of(Role.WORKER, List.of(Tokens.digest(ledger.workerToken))));
        ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor();
        // A second API server over the same ledger, on the port the client already knocks on, starting late.
        ScheduledFuture<ApiServer> late = later.schedule(() -> ApiServer.start(new ApiServer.Wiring(ledger.ledger, auth,
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)), "127.0.0.1", port), 600, TimeUnit.MILLISECONDS);
        try {
            long started = System.nanoTime();
            var created = client.createRun(CreateRun.forWorkers(JobKey.of("LATE_" + suffix()), BusinessKey.of("K"), TestLedger.STAGE_ROOT, "stg_"));

            assertThat(created.status()).isEqualTo(RunStatus.CREATED);
            assertThat(Duration.ofNanos(System.nanoTime() - started)).as("the first attempts met a closed port")
                    .isGreaterThanOrEqualTo(Duration.ofMillis(500));
        } finally {
            late.get(10, TimeUnit.SECONDS).close();
            later.shutdown();
        }
    }

    @Test
    void aClosedPortGivesUpWhenTheWindowEnds() throws Exception {
        var client = client(URI.create("http://127.0.0.1:" + closedPort()), QUICK);

        long started = System.nanoTime();
        var e = catchThrowableOfType(LedgerCallException.class, () -> client.getRun(new RunId(UUID.randomUUID())));
        assertThat(e.isUnreachable()).as(e.getMessage()).isTrue();
        assertThat(e.isOutcomeUnknown()).isFalse();
        assertThat(e.status()).isZero();
        assertThat(e.attempts()).isGreaterThan(1);
        assertThat(e.getMessage()).contains("cannot reach the ledger at http://127.0.0.1:",
                "after " + e.attempts() + " attempts in ", "connection refused");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("retried for the window, not beyond it")
                .isGreaterThanOrEqualTo(QUICK.window()).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void evenASendOnceCallIsRetriedWhileNothingReachedTheLedger() throws Exception {
        var client = client(URI.create("http://127.0.0.1:" + closedPort()), QUICK);

        var e = catchThrowableOfType(LedgerCallException.class,
                () -> client.resendDispatch(new RunId(UUID.randomUUID()), UUID.randomUUID()));
        assertThat(e.attempts()).isGreaterThan(1);
        assertThat(e.isUnreachable()).isTrue();
    }

    @Test
    void fourHundredsAreNeverRetried() {
        for (int status : new int[] {400, 401, 404, 409, 422}) {
            try (var stub = new StubLedger((n, exchange, request) -> StubLedger.error(exchange, status, "NOPE"))) {
                var e = catchThrowableOfType(LedgerCallException.class,
                        () -> client(stub.uri(), PATIENT).getRun(new RunId(UUID.randomUUID())));
                assertThat(e.status()).isEqualTo(status);
                assertThat(e.code()).isEqualTo("NOPE");
                assertThat(e.requestId()).isEqualTo("stub-1");
                assertThat(stub.requests).as("requests for a %d", status).hasSize(1);
            }
        }
    }

    @Test
    void unavailableIsRetriedForRepeatableCallsThenSucceeds() {
        try (var stub = new StubLedger((n, exchange, request) -> {
            if (n < 3) {
                StubLedger.error(exchange, 503, "DATABASE_UNAVAILABLE");
            } else {
                StubLedger.json(exchange, 200, "{\"partitionStatus\":\"RUNNING\",\"runStatus\":\"EXTRACTING\","
                        + "\"someNewField\":{\"x\":1}}");
            }
        })) {
            var beat = client(stub.uri(), PATIENT).heartbeat(new RunId(UUID.randomUUID()), PartitionId.of("0001"),
                    UUID.randomUUID());

            assertThat(beat.partitionStatus()).isEqualTo(PartitionStatus.RUNNING);
            assertThat(stub.requests).hasSize(3);
            assertThat(stub.requests).extracting(StubLedger.Request::requestId).as("one request id for all attempts")
                    .containsOnly(stub.requests.get(0).requestId());
        }
    }

    @Test
    void anyFiveHundredIsRetriedForARepeatableCall() {
        try (var stub = new StubLedger((n, exchange, request) -> {
            if (n == 1) {
                StubLedger.error(exchange, 500, "INTERNAL");
            } else {
                StubLedger.json(exchange, 200, "{\"stageValidated\":true,\"runStatus\":\"STAGING_VALIDATED\","
                        + "\"reasons\":[]}");
            }
        })) {
            var verdict = client(stub.uri(), PATIENT).stageValidated(new RunId(UUID.randomUUID()));

            assertThat(verdict.stageValidated()).isTrue();
            assertThat(stub.requests).as("stage-validated answers the same verdict again, so it is resent").hasSize(2);
        }
    }

    @Test
    void unavailableExhaustsTheWindowAndSaysSo() {
        try (var stub = new StubLedger((n, exchange, request) -> StubLedger.error(exchange, 503, "DATABASE_UNAVAILABLE"))) {
            var e = catchThrowableOfType(LedgerCallException.class,
                    () -> client(stub.uri(), QUICK).listRuns(RunApi.RunFilter.all()));

            assertThat(e.isUnavailable()).isTrue();
            assertThat(e.code()).isEqualTo("DATABASE_UNAVAILABLE");
            assertThat(e.attempts()).isGreaterThan(1);
            assertThat(stub.requests).hasSize(e.attempts());
        }
    }

    @Test
    void aSendOnceCallIsNotRepeatedAfterTheLedgerMayHaveSeenIt() {
        try (var stub = new StubLedger((n, exchange, request) -> StubLedger.error(exchange, 503, "DATABASE_UNAVAILABLE"))) {
            var e = catchThrowableOfType(LedgerCallException.class, () -> client(stub.uri(), PATIENT)
                    .resendDispatch(new RunId(UUID.randomUUID()), UUID.randomUUID()));
            assertThat(e.status()).isEqualTo(503);
            assertThat(stub.requests).hasSize(1);
        }
        try (var stub = new StubLedger((n, exchange, request) -> StubLedger.drop(exchange))) {
            var e = catchThrowableOfType(LedgerCallException.class, () -> client(stub.uri(), PATIENT)
                    .resolvePublishUnknown(new RunId(UUID.randomUUID()), new OperatorApi.Resolve(OperatorApi.Resolution.PUBLISHED,
                            "checked the table by hand")));
            assertThat(e.isOutcomeUnknown()).as(e.getMessage()).isTrue();
            assertThat(e.getMessage()).contains("may have been applied");
            assertThat(stub.requests).hasSize(1);
        }
    }

    @Test
    void aDroppedAnswerIsRetriedForARepeatableCall() {
        try (var stub = new StubLedger((n, exchange, request) -> {
            if (n == 1) {
                StubLedger.drop(exchange);
            } else {
                StubLedger.json(exchange, 200, "{\"claimed\":true,\"runStatus\":\"EXTRACTING\","
                        + "\"partitionStatus\":\"RUNNING\",\"attempt\":1}");
            }
        })) {
            UUID token = UUID.randomUUID();
            var claim = client(stub.uri(), PATIENT).claim(new RunId(UUID.randomUUID()), PartitionId.of("0000"),
                    new PartitionApi.Claim(token, "n"));

            assertThat(claim.claimed()).isTrue();
            assertThat(stub.requests).hasSize(2);
            assertThat(stub.requests.get(1).body()).as("the same token is sent again").isEqualTo(stub.requests.get(0).body())
                    .contains(token.toString());
        }
    }

    @Test
    void withoutTheKeyACreateWhoseAnswerWasLostAdoptsTheRunItMadeOnlyWhenAsked() {
        AtomicInteger creates = new AtomicInteger();
        URI real = URI.create(ledger.baseUrl());
        // Forwards to the real ledger, but the first create's answer never reaches the client.
        StubLedger.Script losesFirstAnswer = (n, exchange, request) -> {
            var answer = StubLedger.forward(real, request.withoutIdempotencyKey());
            if (request.path().equals("/v1/runs") && creates.incrementAndGet() == 1) {
                StubLedger.drop(exchange);
            } else {
                StubLedger.json(exchange, answer.statusCode(), answer.body());
            }
        };
        try (var stub = new StubLedger(losesFirstAnswer)) {
            JobKey job = JobKey.of("LOST_" + suffix());
            var adopted = client(stub.uri(), PATIENT).createRun(CreateRun.forWorkers(job, BusinessKey.of("K"), TestLedger.STAGE_ROOT,
                    "stg_"), OnLostResponse.ADOPT_ACTIVE_RUN);

            assertThat(adopted.adopted()).isTrue();
            assertThat(adopted.status()).isEqualTo(RunStatus.CREATED);
            assertThat(ledger.count("SELECT count(*) FROM load_run WHERE job_key = '" + job + "'")).isEqualTo(1);
        }
        creates.set(0);
        try (var stub = new StubLedger(losesFirstAnswer)) {
            JobKey job = JobKey.of("LOST_" + suffix());
            var e = catchThrowableOfType(LedgerCallException.class, () -> client(stub.uri(), PATIENT)
                    .createRun(CreateRun.forWorkers(job, BusinessKey.of("K"), TestLedger.STAGE_ROOT, "stg_")));

            assertThat(e.code()).as("without ADOPT_ACTIVE_RUN the caller decides").isEqualTo("DUPLICATE_ACTIVE_RUN");
            assertThat(e.details()).containsKey("activeRunId");
            assertThat(e.attempts()).isEqualTo(2);
        }
    }

    @Test
    void aDuplicatedCreateGetsTheRunTheFirstCopyMade() {
        URI real = URI.create(ledger.baseUrl());
        // A proxy that delivers the create twice and hands the client the second copy's answer.
        StubLedger.Script duplicates = (n, exchange, request) -> {
            if (request.path().equals("/v1/runs")) {
                StubLedger.forward(real, request);
            }
            var answer = StubLedger.forward(real, request);
            StubLedger.json(exchange, answer.statusCode(), answer.body());
        };
        try (var stub = new StubLedger(duplicates)) {
            JobKey job = JobKey.of("DUP_" + suffix());
            var created = client(stub.uri(), PATIENT).createRun(CreateRun.forWorkers(job, BusinessKey.of("K"), TestLedger.STAGE_ROOT,
                    "stg_"));

            assertThat(created.status()).isEqualTo(RunStatus.CREATED);
            assertThat(stub.requests.get(0).idempotencyKey()).as("the create carries a key").isNotBlank();
            assertThat(ledger.count("SELECT count(*) FROM load_run WHERE job_key = '" + job + "' AND run_id = '"
                    + created.runId() + "'")).as("the one run, the first copy's").isEqualTo(1);
            assertThat(ledger.count("SELECT count(*) FROM load_run WHERE job_key = '" + job + "'")).isEqualTo(1);
        }
    }

    @Test
    void aLongPollWaitsBeyondTheRequestTimeoutByItsOwnWait() {
        try (var stub = new StubLedger((n, exchange, request) -> {
            try {
                Thread.sleep(1_500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            StubLedger.json(exchange, 200, "[]");
        })) {
            var client = HttpLedgerClient.create(LedgerClientConfig.builder(stub.uri(), LedgerToken.of("t"))
                    .requestTimeout(Duration.ofMillis(500)).longPollMargin(Duration.ofMillis(500)).retry(Retry.NONE)
                    .build());

            var leased = client.leaseDispatches(new DispatchApi.Lease("node-1", List.of(DispatchType.VALIDATE_RUN), 5, 2));
            assertThat(leased).isEmpty();
            var e = catchThrowableOfType(LedgerCallException.class, () -> client.monitorSummary());
            assertThat(e.isOutcomeUnknown()).as("an ordinary call times out at the request timeout").isTrue();
        }
    }

    private static String suffix() {
        return UUID.randomUUID().toString().substring(0, 8).toUpperCase();
    }
}

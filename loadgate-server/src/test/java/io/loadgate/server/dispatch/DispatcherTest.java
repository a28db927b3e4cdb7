package io.loadgate.server.dispatch;

import static io.loadgate.server.testing.Runs.create;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.loadgate.api.DispatchType;
import io.loadgate.api.Executor;
import io.loadgate.api.RunId;
import io.loadgate.ledger.dispatch.DispatchPolicy;
import io.loadgate.ledger.dispatch.Dispatches;
import io.loadgate.ledger.dispatch.Outbox;
import io.loadgate.ledger.sweeper.Sweep;
import io.loadgate.ledger.sweeper.SweepThresholds;
import io.loadgate.server.testing.Receiver;
import io.loadgate.server.testing.TestLedger;
import java.net.ServerSocket;
import java.net.URI;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Push delivery against a real receiver on loopback and a real ledger database. */
class DispatcherTest {
    @RegisterExtension
    static final TestLedger ledger = new TestLedger();
    private static int jobs;
    private final List<AutoCloseable> closeAfter = new ArrayList<>();
    private Receiver receiver;

    @BeforeEach
    void clear() {
        ledger.execute("TRUNCATE load_run CASCADE");
        receiver = new Receiver();
        closeAfter.add(receiver);
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeAfter.size() - 1; i >= 0; i--) {
            closeAfter.get(i).close();
        }
        closeAfter.clear();
    }

    private static DispatchPolicy policy(int maxAttempts, Duration lease) {
        return new DispatchPolicy(maxAttempts, Duration.ofMillis(100), Duration.ofSeconds(2), Duration.ofMinutes(10),
                lease);
    }

    private Dispatcher dispatcher(URI url, DispatchPolicy policy, Duration poll) {
        Dispatcher dispatcher = new Dispatcher(new Dispatches(ledger.ledger.database()),
                new Dispatcher.Settings(url, policy, poll, 5), ledger.hub, "test-" + UUID.randomUUID());
        closeAfter.add(dispatcher);
        return dispatcher;
    }

    private Dispatcher dispatcher() {
        return dispatcher(receiver.url(), policy(20, Duration.ofSeconds(60)), Duration.ofMillis(50));
    }

    private static String job() {
        return "DISPATCH_" + (++jobs);
    }

    private static UUID newRun(String job) {
        var created = ledger.post("/v1/runs", create(job, "2026-11-29"));
        assertThat(created.status()).as(created.toString()).isEqualTo(200);
        return UUID.fromString(created.text("runId"));
    }

    private static UUID dispatch(UUID runId, DispatchType type, String partitionId) {
        Map<String, Object> payload = new LinkedHashMap<>();
        payload.put("snapshotScn", "123456");
        payload.put("partition", Map.of("partitionId", partitionId == null ? "NULL" : partitionId));
        return ledger.ledger.database().inTransaction(tx ->
                Outbox.insert(tx, new RunId(runId), Executor.HTTP, type, partitionId, payload).orElseThrow());
    }

    private static UUID dispatch() {
        return dispatch(newRun(job()), DispatchType.REISSUE_PARTITION, "0000");
    }

    private static String column(UUID dispatchId, String column) {
        try (Connection c = ledger.dataSource.getConnection(); Statement s = c.createStatement()) {
            ResultSet rs = s.executeQuery("SELECT " + column + "::text FROM load_dispatch WHERE dispatch_id = '"
                    + dispatchId + "'");
            return rs.next() ? rs.getString(1) : null;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String status(UUID dispatchId) {
        return column(dispatchId, "status");
    }

    @Test
    void acceptedIsSentButNotAcked() {
        String job = job();
        UUID runId = newRun(job);
        UUID validate = dispatch(runId, DispatchType.VALIDATE_RUN, null);

        assertThat(dispatcher().runOnce()).isEqualTo(1);

        assertThat(status(validate)).as("202 is a receipt").isEqualTo("SENT");
        assertThat(column(validate, "sent_at")).isNotNull();
        assertThat(column(validate, "acked_at")).isNull();
        assertThat(receiver.requests()).hasSize(1);
        Receiver.Request request = receiver.requests().get(0);
        assertThat(request.path()).isEqualTo("/control/validate/" + job);
        assertThat(request.runIdHeader()).isEqualTo(runId.toString());
        assertThat(request.dispatchIdHeader()).isEqualTo(validate.toString());
        assertThat(request.body().get("runId").asText()).isEqualTo(runId.toString());
        assertThat(request.body().get("dispatchId").asText()).isEqualTo(validate.toString());
        assertThat(request.body().get("dispatchType").asText()).isEqualTo("VALIDATE_RUN");
        assertThat(request.body().get("jobKey").asText()).isEqualTo(job);
        assertThat(request.body().get("businessKey").asText()).isEqualTo("2026-11-29");
        assertThat(request.body().get("snapshotScn").asText()).as("payload fields travel flat").isEqualTo("123456");

        UUID reissue = dispatch(runId, DispatchType.REISSUE_PARTITION, "0003");
        assertThat(dispatcher().runOnce()).isEqualTo(1);
        assertThat(receiver.requests().get(1).path()).isEqualTo("/control/reissue/" + job);
        assertThat(receiver.requests().get(1).body().get("partitionId").asText()).isEqualTo("0003");
        assertThat(status(reissue)).isEqualTo("SENT");
    }

    @Test
    void unavailableReceiverIsRetriedWithDoublingBackoff() {
        receiver.answer(request -> receiver.requests().size() <= 2 ? 503 : 202);
        UUID id = dispatch();
        dispatcher().start();

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(status(id)).isEqualTo("SENT"));
        List<Receiver.Request> requests = receiver.requests();
        assertThat(requests).hasSize(3);
        long firstGap = Duration.ofNanos(requests.get(1).arrivedNanos() - requests.get(0).arrivedNanos()).toMillis();
        long secondGap = Duration.ofNanos(requests.get(2).arrivedNanos() - requests.get(1).arrivedNanos()).toMillis();
        assertThat(firstGap).as("backoff_min after the first failure").isGreaterThanOrEqualTo(100);
        assertThat(secondGap).as("doubled after the second").isGreaterThanOrEqualTo(200);
        assertThat(column(id, "attempt_count")).isEqualTo("3");
        assertThat(ledger.count("SELECT count(*) FROM load_event WHERE event_type = 'DISPATCH_RETRY'")).isEqualTo(2);
    }

    @Test
    void refusedConnectionIsRetriedThenDeadAtMaxAttempts() throws Exception {
        URI closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = URI.create("http://127.0.0.1:" + socket.getLocalPort() + "/control");
        }
        UUID id = dispatch();
        Dispatcher dispatcher = dispatcher(closed, policy(2, Duration.ofSeconds(60)), Duration.ofMillis(50));

        assertThat(dispatcher.runOnce()).isEqualTo(1);
        assertThat(status(id)).isEqualTo("PENDING");
        assertThat(column(id, "last_error")).contains("Connect");
        assertThat(ledger.count("SELECT count(*) FROM load_dispatch WHERE next_attempt_at > now()"))
                .as("the retry waits for its backoff").isEqualTo(1);

        await().atMost(Duration.ofSeconds(5)).until(() -> dispatcher.runOnce() == 1);
        assertThat(status(id)).as("attempts >= max_attempts").isEqualTo("DEAD");
        assertThat(column(id, "attempt_count")).isEqualTo("2");
    }

    @Test
    void otherClientErrorIsDeadAtOnce() {
        receiver.answer(request -> 400);
        UUID id = dispatch();
        assertThat(dispatcher().runOnce()).isEqualTo(1);
        assertThat(status(id)).isEqualTo("DEAD");
        assertThat(column(id, "last_error")).isEqualTo("HTTP 400");
        assertThat(dispatcher().runOnce()).as("a DEAD dispatch is not leased again").isZero();
        assertThat(receiver.requests()).hasSize(1);
    }

    @Test
    void retryableClientErrorsAreNotDead() {
        for (int code : new int[] {408, 425, 429}) {
            receiver.answer(request -> code);
            UUID id = dispatch();
            assertThat(dispatcher().runOnce()).isEqualTo(1);
            assertThat(status(id)).as("HTTP %d", code).isEqualTo("PENDING");
            ledger.execute("TRUNCATE load_run CASCADE");
        }
    }

    @Test
    void ackThatLandsBeforeSentIsNeverOverwritten() {
        // The receiving step's CAS ACKs the dispatch before the receiver has even answered 202.
        receiver.answer(request -> {
            ledger.ledger.database().inTransaction(tx -> Outbox.ack(tx, UUID.fromString(request.dispatchId())));
            return 202;
        });
        UUID id = dispatch();
        assertThat(dispatcher().runOnce()).isEqualTo(1);
        assertThat(status(id)).isEqualTo("ACKED");
        assertThat(column(id, "acked_at")).isNotNull();
        assertThat(column(id, "sent_at")).as("SENT was never written over the ACK").isNull();
    }

    @Test
    void fourDispatchersRacingSendEachLeaseExactlyOnce() {
        UUID runId = newRun(job());
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            ids.add(dispatch(runId, DispatchType.REISSUE_PARTITION, String.format("%04d", i)));
        }
        for (int i = 0; i < 4; i++) {
            dispatcher().start();
        }
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                assertThat(ledger.count("SELECT count(*) FROM load_dispatch WHERE status = 'SENT'")).isEqualTo(50));
        assertThat(receiver.requests()).hasSize(50);
        for (UUID id : ids) {
            assertThat(receiver.countFor(id.toString())).as("deliveries of %s", id).isEqualTo(1);
        }
        assertThat(ledger.count("SELECT count(*) FROM load_dispatch WHERE attempt_count <> 1")).isZero();
    }

    @Test
    void dispatcherKilledBetweenLeaseAndSendIsResentAfterTheLease() {
        UUID id = dispatch();
        DispatchPolicy shortLease = policy(20, Duration.ofSeconds(1));
        // A dispatcher leases and commits, then dies before it sends anything.
        assertThat(new Dispatches(ledger.ledger.database()).leaseForPush("killed", shortLease, 10)).hasSize(1);

        Dispatcher survivor = dispatcher(receiver.url(), shortLease, Duration.ofMillis(100));
        assertThat(survivor.runOnce()).as("the lease still holds").isZero();
        survivor.start();

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(status(id)).isEqualTo("SENT"));
        assertThat(receiver.countFor(id.toString())).isEqualTo(1);
        assertThat(column(id, "leased_by")).isEqualTo(survivor.name());
        assertThat(column(id, "attempt_count")).isEqualTo("2");
    }

    @Test
    void sentWithoutAckPastTheAckTimeoutIsResent() {
        UUID id = dispatch();
        Dispatcher dispatcher = dispatcher();
        assertThat(dispatcher.runOnce()).isEqualTo(1);
        assertThat(status(id)).isEqualTo("SENT");

        Sweep sweep = new Sweep(ledger.ledger.database(), ledger.ledger.settings());
        SweepThresholds thresholds = new SweepThresholds(Duration.ofMinutes(90), Duration.ofHours(6),
                Duration.ofHours(1), Duration.ofHours(2), Duration.ofHours(2), policy(20, Duration.ofSeconds(60)), 100);
        assertThat(sweep.tick(thresholds).dispatchesRequeued()).as("not yet past ack_timeout").isZero();
        ledger.execute("UPDATE load_dispatch SET sent_at = now() - interval '11 minutes'");
        assertThat(sweep.tick(thresholds).dispatchesRequeued()).isEqualTo(1);
        assertThat(status(id)).isEqualTo("PENDING");

        assertThat(dispatcher.runOnce()).isEqualTo(1);
        assertThat(status(id)).isEqualTo("SENT");
        assertThat(receiver.countFor(id.toString())).isEqualTo(2);
    }

    @Test
    void dispatchesOfEndedRunsAreNeverDelivered() {
        UUID id = dispatch();
        ledger.execute("UPDATE load_run SET status = 'TIMED_OUT'");
        assertThat(dispatcher().runOnce()).isZero();
        assertThat(status(id)).isEqualTo("DEAD");
        assertThat(column(id, "last_error")).startsWith("RUN_ENDED");
        assertThat(receiver.requests()).isEmpty();
    }

    @Test
    void listenerReconnectsAfterItsConnectionIsTerminated() {
        // Polling once a minute: within this test only a NOTIFY can wake the dispatcher.
        dispatcher(receiver.url(), policy(20, Duration.ofSeconds(60)), Duration.ofMinutes(1)).start();
        await().atMost(Duration.ofSeconds(5)).until(() -> ledger.listener.backendPid() > 0);
        int connects = ledger.listener.connects();
        int oldPid = ledger.listener.backendPid();

        assertThat(ledger.count("SELECT count(*) FROM (SELECT pg_terminate_backend(" + oldPid + ") AS done) t"
                + " WHERE done")).as("the listener's backend was terminated").isEqualTo(1);
        await().atMost(Duration.ofSeconds(10)).until(() -> ledger.listener.connects() > connects
                && ledger.listener.backendPid() > 0 && ledger.listener.backendPid() != oldPid);

        UUID id = dispatch();
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(status(id)).isEqualTo("SENT"));
        assertThat(receiver.countFor(id.toString())).isEqualTo(1);
    }

    @Test
    void insertWakesTheDispatcherAtOnce() {
        dispatcher(receiver.url(), policy(20, Duration.ofSeconds(60)), Duration.ofMinutes(1)).start();
        await().atMost(Duration.ofSeconds(5)).until(() -> ledger.listener.backendPid() > 0);
        UUID id = dispatch();
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(status(id)).isEqualTo("SENT"));
    }
}

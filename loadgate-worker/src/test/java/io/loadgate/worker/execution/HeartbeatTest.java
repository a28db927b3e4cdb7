package io.loadgate.worker.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.loadgate.api.PartitionApi.HeartbeatResult;
import io.loadgate.api.PartitionId;
import io.loadgate.api.PartitionStatus;
import io.loadgate.api.RunId;
import io.loadgate.api.RunStatus;
import io.loadgate.worker.ledger.LedgerClient;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The partition's beats on a real timer thread, against a ledger that answers each beat as told. */
class HeartbeatTest {
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final AtomicInteger beats = new AtomicInteger();

    @AfterEach
    void stopTimer() {
        timer.shutdownNow();
    }

    /** A ledger whose n-th heartbeat (from 1) does what {@code answer} says; every other call is unexpected. */
    private LedgerClient ledger(IntFunction<HeartbeatResult> answer) {
        return (LedgerClient) Proxy.newProxyInstance(LedgerClient.class.getClassLoader(),
                new Class<?>[] {LedgerClient.class}, (proxy, method, args) -> {
                    if (!method.getName().equals("heartbeat")) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    return answer.apply(beats.incrementAndGet());
                });
    }

    private Heartbeat start(LedgerClient ledger) {
        return new Heartbeat(ledger, RunId.of(UUID.randomUUID().toString()), PartitionId.of("0000"), UUID.randomUUID(),
                timer, Duration.ofMillis(5));
    }

    private static HeartbeatResult running() {
        return new HeartbeatResult(PartitionStatus.RUNNING, RunStatus.EXTRACTING);
    }

    @Test
    void keepsBeatingThroughTransientFailures() {
        try (Heartbeat heartbeat = start(ledger(n -> {
            if (n <= 2) {
                throw new IllegalStateException("connection refused");
            }
            return running();
        }))) {
            await().atMost(Duration.ofSeconds(10)).until(() -> beats.get() >= 4);
            heartbeat.checkAlive();
            assertThat(heartbeat.lost()).as("a failed beat does not lose the partition").isFalse();
        }
    }

    @Test
    void anErrorInABeatStopsTheWorkItHeartbeats() {
        NoSuchMethodError error = new NoSuchMethodError("'void org.example.Client.call()'");
        try (Heartbeat heartbeat = start(ledger(n -> {
            if (n == 2) {
                throw error;
            }
            return running();
        }))) {
            // The rows' check throws the beat's Error: the extraction reports it as the partition's failure instead
            // of extracting on without beats until the sweeper gives the partition to another worker.
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                    assertThatThrownBy(heartbeat::checkAlive).as("the beat's Error, on the extracting thread")
                            .isSameAs(error));
        }
    }
}

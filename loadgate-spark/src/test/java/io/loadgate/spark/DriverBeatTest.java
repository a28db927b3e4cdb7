package io.loadgate.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.loadgate.api.RunApi.FailRun;
import io.loadgate.api.RunId;
import io.loadgate.api.RunStatus;
import io.loadgate.worker.ledger.LedgerClient;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The Spark driver's run beats on a real timer thread, against a ledger that answers each beat as told. */
class DriverBeatTest {
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final AtomicInteger beats = new AtomicInteger();
    private final List<FailRun> failed = new CopyOnWriteArrayList<>();
    private final AtomicBoolean stopped = new AtomicBoolean();
    private final RunId runId = RunId.of(UUID.randomUUID().toString());

    @AfterEach
    void stopTimer() {
        timer.shutdownNow();
    }

    /** A ledger whose beats 1 and 2 fail transiently and whose 4th throws {@code error}; fail runs are recorded. */
    private LedgerClient ledger(Error error) {
        return (LedgerClient) Proxy.newProxyInstance(LedgerClient.class.getClassLoader(),
                new Class<?>[] {LedgerClient.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "heartbeatRun" -> {
                            int n = beats.incrementAndGet();
                            if (n <= 2) {
                                throw new IllegalStateException("connection refused");
                            }
                            if (n == 4) {
                                throw error;
                            }
                            return null;
                        }
                        case "failRun" -> {
                            failed.add((FailRun) args[1]);
                            return null;
                        }
                        default -> throw new UnsupportedOperationException(method.getName());
                    }
                });
    }

    @Test
    void anErrorInABeatFailsTheRunAndStopsItsSparkJob() {
        NoSuchMethodError error = new NoSuchMethodError("'void org.example.Client.call()'");
        timer.scheduleWithFixedDelay(new DriverBeat(ledger(error), runId, () -> stopped.set(true)), 5, 5,
                TimeUnit.MILLISECONDS);

        await().atMost(Duration.ofSeconds(10)).untilTrue(stopped);
        assertThat(beats.get()).as("transient failures only skip a beat").isGreaterThanOrEqualTo(4);
        assertThat(failed).as("the run is failed with the Error").singleElement().satisfies(f -> {
            assertThat(f.expectedStatus()).isEqualTo(RunStatus.EXTRACTING);
            assertThat(f.failStatus()).isEqualTo(RunStatus.FAILED_EXTRACT);
            assertThat(f.errorCode()).isEqualTo("NoSuchMethodError");
        });
    }
}

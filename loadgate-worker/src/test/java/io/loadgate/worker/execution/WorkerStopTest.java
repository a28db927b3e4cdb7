package io.loadgate.worker.execution;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.api.DispatchApi;
import io.loadgate.api.DispatchApi.LeasedDispatch;
import io.loadgate.api.DispatchType;
import io.loadgate.api.RunId;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.metrics.WorkerMetrics;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A worker that stops while its lease poll is open hands back what the poll brings, and runs none of it. */
@Timeout(30)
class WorkerStopTest {
    @Test
    void aLeaseThatArrivesWhileStoppingIsHandedBack() throws Exception {
        UUID dispatchId = UUID.randomUUID();
        CountDownLatch pollOpen = new CountDownLatch(1);
        CountDownLatch answerPoll = new CountDownLatch(1);
        List<String> calls = new CopyOnWriteArrayList<>();
        boolean[] answered = {false};
        // A hand-written fake of the ledger seam: the first poll waits until the test lets it answer.
        LedgerClient ledger = (LedgerClient) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {LedgerClient.class}, (proxy, method, args) -> {
                    calls.add(method.getName());
                    switch (method.getName()) {
                        case "leaseDispatches" -> {
                            synchronized (answered) {
                                if (answered[0]) {
                                    return List.of();
                                }
                                answered[0] = true;
                            }
                            pollOpen.countDown();
                            answerPoll.await();
                            return List.of(new LeasedDispatch(dispatchId, new RunId(UUID.randomUUID()),
                                    DispatchType.VALIDATE_RUN, null, Map.of()));
                        }
                        case "releaseDispatch" -> {
                            return new DispatchApi.Released((UUID) args[0], true);
                        }
                        default -> throw new AssertionError("a stopping worker called " + method.getName());
                    }
                });
        var timer = Executors.newSingleThreadScheduledExecutor();
        try (TargetCatalogs catalogs = new TargetCatalogs(Optional.empty(), Path.of("/tmp"))) {
            WorkerContext context = new WorkerContext(ledger, "stopping", new Configuration(), new WorkerContext.Shared(
                    new RunContexts(ledger), new SourceCache(Map.of()), catalogs, timer, WorkerMetrics.off()),
                    Duration.ofSeconds(1), Duration.ofSeconds(1));
            Worker worker = Worker.start(context, 1);
            assertThat(pollOpen.await(5, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<Void> stopping = CompletableFuture.runAsync(() -> worker.stop(Duration.ofSeconds(10)));
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(worker::isStopping);
            answerPoll.countDown();
            stopping.get(15, TimeUnit.SECONDS);
        } finally {
            timer.shutdownNow();
        }
        assertThat(calls).contains("releaseDispatch").doesNotContain("startValidation", "getRun");
    }
}

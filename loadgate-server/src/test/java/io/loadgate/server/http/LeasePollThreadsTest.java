package io.loadgate.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.server.testing.Runs;
import io.loadgate.server.testing.TestLedger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Waiting lease polls hold no request thread: with more polls waiting than the server has request threads, other
 * requests are still answered, and a dispatch inserted meanwhile reaches exactly one of the polls at once.
 */
@Timeout(120)
class LeasePollThreadsTest {
    private static final int POLLS = 400;

    private final TestLedger ledger = new TestLedger();
    // HTTP/1.1 as the worker's client speaks it (no h2c upgrade offered on each request).
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    @AfterEach
    void stop() {
        ledger.close();
    }

    /** Ended with an HTTP answer, not a failure of its connection. */
    private static boolean answered(CompletableFuture<HttpResponse<String>> poll) {
        return poll.isDone() && !poll.isCompletedExceptionally();
    }

    private static String outcome(CompletableFuture<HttpResponse<String>> poll) {
        return poll.handle((response, failure) -> failure != null ? causes(failure)
                : response.statusCode() + " " + response.body()).join();
    }

    /** The JDK client wraps a read's failure in "header parser received no bytes"; what it wraps says who ended it. */
    private static String causes(Throwable failure) {
        StringBuilder chain = new StringBuilder(failure.toString());
        for (Throwable cause = failure.getCause(); cause != null; cause = cause.getCause()) {
            chain.append(" <- ").append(cause);
        }
        return chain.toString();
    }

    private HttpRequest lease(int waitSeconds) {
        return HttpRequest.newBuilder(URI.create(ledger.baseUrl() + "/v1/dispatches/lease"))
                .header("Authorization", "Bearer " + ledger.workerToken)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"node\":\"w\",\"types\":[\"EXTRACT_PARTITION\"],"
                        + "\"max\":10,\"waitSeconds\":" + waitSeconds + "}"))
                .build();
    }

    @Test
    void manyWaitingPollsLeaveTheServerAnswering() throws Exception {
        List<CompletableFuture<HttpResponse<String>>> polls = new ArrayList<>();
        for (int i = 0; i < POLLS; i++) {
            polls.add(http.sendAsync(lease(60), HttpResponse.BodyHandlers.ofString()));
        }
        Thread.sleep(2_000);
        assertThat(polls.stream().filter(LeasePollThreadsTest::answered).map(LeasePollThreadsTest::outcome).toList())
                .as("they wait").isEmpty();
        // In one CI run (2026-12-05, the embedded pass), never here, 15 of the 400 connections ended unanswered within
        // the 2 s ("header parser received no bytes"; what it wrapped was not printed then). The worker's client sends
        // such a lease again, and so does this test, printing how the connection ended; an answer before the wait is
        // over still fails the assertion above.
        for (int i = 0; i < polls.size(); i++) {
            if (polls.get(i).isDone()) {
                System.err.println("poll " + i + " ended unanswered, sent again: " + outcome(polls.get(i)));
                polls.set(i, http.sendAsync(lease(60), HttpResponse.BodyHandlers.ofString()));
            }
        }

        HttpResponse<String> runs = http.send(HttpRequest.newBuilder(URI.create(ledger.baseUrl() + "/v1/runs"))
                        .header("Authorization", "Bearer " + ledger.workerToken).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(runs.statusCode()).as("answered while %d polls wait", POLLS).isEqualTo(200);

        var created = ledger.post("/v1/runs", withWorkerExecutor(Runs.create("POLLS", "2026-11-29")));
        String runId = created.text("runId");
        assertThat(ledger.post("/v1/runs/" + runId + "/manifest", Runs.manifest(1)).status()).isEqualTo(200);
        CompletableFuture<Object> first = CompletableFuture.anyOf(polls.toArray(CompletableFuture[]::new));
        HttpResponse<?> answered = (HttpResponse<?>) first.get(20, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(answered.statusCode()).isEqualTo(200);
        assertThat(answered.body().toString()).contains(runId, "EXTRACT_PARTITION");

        ledger.close();
        for (CompletableFuture<HttpResponse<String>> poll : polls) {
            HttpResponse<String> response = poll.get(20, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(response.statusCode()).isEqualTo(200);
        }
        assertThat(polls.stream().filter(p -> p.join().body().contains(runId)).count())
                .as("the one dispatch went to one poll").isEqualTo(1);
    }

    private static java.util.Map<String, Object> withWorkerExecutor(java.util.Map<String, Object> body) {
        body.put("executor", "worker");
        return body;
    }
}

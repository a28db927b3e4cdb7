package io.loadgate.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.loadgate.chaos.HttpFaultProxy.Fault;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The proxy's faults, against a real HTTP server that records what reached it. */
class HttpFaultProxyTest {
    private final List<String> received = new CopyOnWriteArrayList<>();
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private HttpServer upstream;
    private HttpFaultProxy proxy;

    @BeforeEach
    void start() throws IOException {
        upstream = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        upstream.createContext("/", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            received.add(exchange.getRequestMethod() + " " + exchange.getRequestURI() + " " + body + " "
                    + exchange.getRequestHeaders().getFirst("Authorization"));
            byte[] answer = ("answer " + received.size()).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("X-Request-Id", "r" + received.size());
            exchange.sendResponseHeaders(201, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        upstream.start();
        proxy = HttpFaultProxy.start(upstream.getAddress().getPort());
    }

    @AfterEach
    void stop() throws IOException {
        proxy.close();
        upstream.stop(0);
    }

    @Test
    void withoutAFaultTheRequestAndTheAnswerPassUnchanged() throws Exception {
        for (int i = 1; i <= 3; i++) { // on one kept-alive connection
            HttpResponse<String> response = post("/v1/runs?x=1", "{\"n\":" + i + "}");
            assertThat(response.statusCode()).isEqualTo(201);
            assertThat(response.body()).isEqualTo("answer " + i);
            assertThat(response.headers().firstValue("X-Request-Id")).hasValue("r" + i);
        }
        assertThat(received).containsExactly("POST /v1/runs?x=1 {\"n\":1} Bearer t", "POST /v1/runs?x=1 {\"n\":2} Bearer t",
                "POST /v1/runs?x=1 {\"n\":3} Bearer t");
    }

    @Test
    void aDroppedRequestNeverReachesTheServer() throws Exception {
        proxy.arm("POST", "/v1/runs/[^/]+/chunks", Fault.DROP_REQUEST, 1);
        assertThatThrownBy(() -> post("/v1/runs/abc/chunks", "{}")).isInstanceOf(IOException.class);
        assertThat(received).as("the ledger saw nothing").isEmpty();
        assertThat(post("/v1/runs/abc/chunks", "{}").statusCode()).as("armed once").isEqualTo(201);
        assertThat(received).hasSize(1);
        assertThat(proxy.fired()).containsExactly("DROP_REQUEST POST /v1/runs/abc/chunks");
    }

    @Test
    void aDroppedAnswerWasHandledByTheServer() throws Exception {
        proxy.arm("POST", "/v1/runs/[^/]+/validation/start", Fault.DROP_ANSWER, 1);
        post("/v1/runs", "{}"); // another path: not affected
        assertThatThrownBy(() -> post("/v1/runs/abc/validation/start", "{\"a\":1}")).isInstanceOf(IOException.class);
        assertThat(received).as("the ledger handled it").hasSize(2).last().asString().contains("validation/start");
        assertThat(proxy.fired()).containsExactly("DROP_ANSWER POST /v1/runs/abc/validation/start -> 201");
    }

    @Test
    void aRequestDeliveredTwiceReachesTheServerTwiceAndAnswersOnce() throws Exception {
        proxy.arm("POST", "/v1/runs", Fault.DELIVER_TWICE, 1);
        HttpResponse<String> response = post("/v1/runs", "{\"jobKey\":\"A\"}");
        assertThat(response.body()).as("the second delivery's answer").isEqualTo("answer 2");
        assertThat(received).hasSize(2).allMatch(line -> line.equals("POST /v1/runs {\"jobKey\":\"A\"} Bearer t"));
    }

    @Test
    void aDarkNetworkHoldsRequestsAndThenResetsThem() throws Exception {
        proxy.goDark(Duration.ofMillis(700));
        long started = System.nanoTime();
        assertThatThrownBy(() -> post("/v1/runs", "{}")).isInstanceOf(IOException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("held, not refused at once")
                .isGreaterThanOrEqualTo(Duration.ofMillis(500));
        assertThat(received).isEmpty();
        assertThat(post("/v1/runs", "{}").statusCode()).as("light again").isEqualTo(201);
    }

    @Test
    void aRefusingHostRefusesConnectionsUntilItAcceptsAgain() throws Exception {
        proxy.refuseConnections();
        assertThatThrownBy(() -> post("/v1/runs", "{}")).isInstanceOf(ConnectException.class);
        proxy.acceptConnections();
        assertThat(post("/v1/runs", "{}").statusCode()).isEqualTo(201);
    }

    private HttpResponse<String> post(String path, String body) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + proxy.port() + path))
                .header("Authorization", "Bearer t").header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}

package io.loadgate.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * What the suite asks the ledger, straight to its port (never through the fault proxy): the runs of a key, one
 * run's partitions, and an operator's resolve. A call that finds the ledger down says so with an empty answer; the
 * suite polls, so it simply asks again.
 */
final class LedgerView {
    /** Run states that still need someone: docs/ledger-api-v1.md, "Run states". */
    static final Set<String> ACTIVE = Set.of("CREATED", "EXTRACTING", "EXTRACTED_VALIDATED", "STAGE_VALIDATING",
            "STAGING_VALIDATED", "PUBLISHING", "PUBLISHED", "PUBLISH_UNKNOWN");
    /** The states in which a run's rows are in the target, by the ledger's own account. */
    static final Set<String> PUBLISHED_OR_LATER = Set.of("PUBLISHED", "SUCCESS", "FAILED_TARGET_VALIDATION");

    private static final ObjectMapper JSON = new ObjectMapper();

    private final URI base;
    private final String workerToken;
    private final String operatorToken;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    LedgerView(int port, String workerToken, String operatorToken) {
        this.base = URI.create("http://127.0.0.1:" + port);
        this.workerToken = workerToken;
        this.operatorToken = operatorToken;
    }

    /** The runs of one key, newest first; empty when the ledger does not answer. */
    List<JsonNode> runs(String jobKey, String businessKey) {
        Optional<JsonNode> list = get("/v1/runs?limit=1000&jobKey=" + encode(jobKey) + "&businessKey="
                + encode(businessKey));
        List<JsonNode> runs = new ArrayList<>();
        list.ifPresent(array -> array.forEach(runs::add));
        return runs;
    }

    Optional<JsonNode> run(UUID runId) {
        return get("/v1/runs/" + runId);
    }

    boolean ready() {
        try {
            return http.send(HttpRequest.newBuilder(base.resolve("/readyz")).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The operator settles a PUBLISH_UNKNOWN run; returns the ledger's status code and body. */
    String resolve(UUID runId, String resolution, String reason) throws IOException, InterruptedException {
        String body = JSON.writeValueAsString(Map.of("resolution", resolution, "reason", reason));
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                        base.resolve("/v1/runs/" + runId + "/publish-unknown/resolve"))
                .header("Authorization", "Bearer " + operatorToken).header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        return response.statusCode() + " " + response.body();
    }

    private Optional<JsonNode> get(String pathAndQuery) {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(base.resolve(pathAndQuery))
                    .header("Authorization", "Bearer " + workerToken).timeout(Duration.ofSeconds(10)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? Optional.of(JSON.readTree(response.body())) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}

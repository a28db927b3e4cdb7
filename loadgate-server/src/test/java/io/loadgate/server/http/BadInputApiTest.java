package io.loadgate.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.loadgate.server.testing.Runs;
import io.loadgate.server.testing.TestLedger;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What a black-box probe of the API sends that no well-behaved client would, over real HTTP on loopback. */
class BadInputApiTest {
    private static final String NUL = "a\u0000b";
    @RegisterExtension
    static final TestLedger ledger = new TestLedger();
    private static String runId;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void start() {
        runId = Runs.started(ledger, "BAD_INPUT", 10, 10);
    }

    /** Endpoint, role token, the body with a NUL somewhere, and the field the 422 must name. */
    private record NulCase(String path, String token, String body, String field) {
    }

    @Test
    void aNulInAnyFreeTextFieldIs422NamingTheField() throws Exception {
        String run = "/v1/runs/" + runId;
        String part = run + "/partitions/0000";
        String w = ledger.workerToken;
        String o = ledger.operatorToken;
        List<NulCase> cases = List.of(
                nul("/v1/runs", w, "parameters.note"),
                nul("/v1/runs", w, "parameters.deep[1].x"),
                nul(run + "/manifest", w, "snapshotRef"),
                nul(run + "/manifest", w, "sourceMetricsVersion"),
                nul(run + "/manifest", w, "sourceMetrics.rows"),
                nul(run + "/manifest", w, "partitions[0].sourceRef"),
                nul(run + "/fail", w, "errorStage"),
                nul(run + "/fail", w, "errorCode"),
                nul(run + "/fail", w, "message"),
                nul(part + "/claim", w, "workerNode"),
                nul(part + "/chunks", w, "fragmentIdentifier"),
                nul(part + "/chunks", w, "hdfsPath"),
                nul(part + "/chunks", w, "checksum"),
                nul(part + "/fail", w, "errorStage"),
                nul(part + "/fail", w, "errorClass"),
                nul(part + "/fail", w, "errorCode"),
                nul(part + "/fail", w, "message"),
                nul(part + "/heartbeat", w, "workerNode"),
                nul("/v1/dispatches/lease", w, "node"),
                nul("/v1/dispatches/" + UUID.randomUUID() + "/release", w, "node"),
                nul(run + "/validation/start", w, "node"),
                nul(run + "/validations", w, "queryVersion"),
                nul(run + "/validations", w, "metrics[0].expectedValue"),
                nul(run + "/validations", w, "metrics[0].details.note"),
                nul(run + "/publish/result", w, "errorCode"),
                nul(run + "/publish/result", w, "message"),
                nul(run + "/publish/result", w, "targetRef"),
                nul(run + "/cancel", o, "reason"),
                nul(run + "/publish-unknown/resolve", o, "reason"),
                nul(run + "/publish-unknown/resolve", o, "snapshotId"),
                nul(run + "/publish-unknown/resolve", o, "evidence.seen"),
                nul(run + "/rollback", o, "reason"),
                nul(run + "/rollback", o, "targetRef"),
                nul(run + "/cleanup", o, "droppedTable"),
                nul(run + "/cleanup", o, "deletedPath"),
                nul(run + "/cleanup/skipped", o, "reason"));
        for (NulCase c : cases) {
            var response = ledger.send("POST", c.path(), c.body(), c.token());
            assertThat(response.status()).as(c + " -> " + response).isEqualTo(422);
            assertThat(response.code()).isEqualTo("REQUEST_INVALID");
            assertThat(response.body().at("/details/errors/0/field").asText()).as(c.toString()).isEqualTo(c.field());
            assertThat(response.body().at("/details/errors/0/message").asText()).contains("NUL");
        }
        var name = ledger.send("POST", "/v1/runs", "{\"parameters\": {\"a\\u0000\": 1}}", w);
        assertThat(name.status()).isEqualTo(422);
        assertThat(name.body().at("/details/errors/0/field").asText()).isEqualTo("parameters");
    }

    @Test
    void aNulInAReportThatIsOtherwiseValidIsRefusedNotA500() {
        UUID token = UUID.randomUUID();
        String part = "/v1/runs/" + runId + "/partitions/0001";
        assertThat(ledger.post(part + "/claim", Runs.claim(token)).status()).isEqualTo(200);
        var failure = ledger.post(part + "/fail", Map.of("claimToken", token.toString(), "errorCode", "E",
                "message", "ORA-01555" + NUL));
        assertThat(failure.status()).as(failure.toString()).isEqualTo(422);
        assertThat(failure.body().at("/details/errors/0/field").asText()).isEqualTo("message");

        Map<String, Object> create = Runs.create("BAD_INPUT_NUL", "K");
        create.put("parameters", Map.of("note", NUL));
        var created = ledger.post("/v1/runs", create);
        assertThat(created.status()).as(created.toString()).isEqualTo(422);
        assertThat(ledger.count("SELECT count(*) FROM load_run WHERE job_key = 'BAD_INPUT_NUL'")).isZero();
    }

    @Test
    void aBodyThatIsNotUtf8IsRefusedNotStoredWithReplacementCharacters() throws Exception {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write(Json.write(Runs.create("BAD_INPUT_UTF", "K")).replace("\"K\"", "\"K").getBytes(StandardCharsets.UTF_8));
        body.write(new byte[] {(byte) 0xC3, (byte) 0x28, '"', '}'});
        var response = sendBytes("POST", "/v1/runs", body.toByteArray(), "application/json");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(422);
        assertThat(envelope(response).at("/details/errors/0/message").asText()).contains("not valid UTF-8");
        assertThat(ledger.count("SELECT count(*) FROM load_run WHERE job_key = 'BAD_INPUT_UTF'")).isZero();

        Map<String, Object> large = Runs.create("BAD_INPUT_UTF", "K");
        large.put("parameters", Map.of("note", "é€𝄞".repeat(20_000)));
        var accepted = sendBytes("POST", "/v1/runs", Json.write(large).getBytes(StandardCharsets.UTF_8),
                "application/json");
        assertThat(accepted.statusCode()).as("multi-byte characters across the decoder's pieces").isEqualTo(200);
    }

    @Test
    void textAfterTheJsonDocumentIsRefused() throws Exception {
        String valid = Json.write(Runs.create("BAD_INPUT_TRAIL", "K"));
        for (String body : List.of(valid + " xyz", valid + valid, valid + " {}", valid + " ]")) {
            var response = ledger.send("POST", "/v1/runs", body, ledger.workerToken);
            assertThat(response.status()).as(body + " -> " + response).isEqualTo(422);
            assertThat(response.body().at("/details/errors/0/message").asText()).contains("text follows");
        }
        assertThat(ledger.count("SELECT count(*) FROM load_run WHERE job_key = 'BAD_INPUT_TRAIL'")).isZero();
        assertThat(ledger.send("POST", "/v1/runs", valid + " \n\t", ledger.workerToken).status())
                .as("trailing white space is no document").isEqualTo(200);
    }

    @Test
    void malformedJsonIsExplainedWithoutTheJsonLibrarysInternals() {
        List<String> bodies = List.of("{\"a\": NaN}", "{\"a\": 01}", "{'a': 1}", "{\"a\": \"\u0001\"}",
                "[".repeat(1200) + "]".repeat(1200), "{\"a\": " + "9".repeat(1200) + "}", "{\"a\": \"\\q\"}",
                "{\"a\": 1", "{\"a\" 1}", "{\"a\": 1, \"a\": 2}", "{a: 1}", "{\"a\": +1}", "{\"a\": .5}",
                "{\"a\": 1,}", "{\"a\": Infinity}", "/* c */ {}");
        for (String body : bodies) {
            var response = ledger.send("POST", "/v1/runs", body, ledger.workerToken);
            assertThat(response.status()).as(body).isEqualTo(422);
            String message = response.text("message");
            assertThat(message).as(body).startsWith("invalid request: $ malformed JSON")
                    .doesNotContain("StreamReadConstraints", "JsonReadFeature", "`", "jackson", "Feature");
        }
    }

    @Test
    void aWrongMethodIs405WithAllow() throws Exception {
        var runs = sendBytes("DELETE", "/v1/runs", new byte[0], "application/json");
        assertThat(runs.statusCode()).isEqualTo(405);
        assertThat(runs.headers().firstValue("Allow").orElse("")).contains("GET", "POST");
        assertThat(envelope(runs).get("code").asText()).isEqualTo("METHOD_NOT_ALLOWED");
        assertThat(runs.headers().firstValue("X-Request-Id")).isPresent();
        var run = sendBytes("PUT", "/v1/runs/" + runId, "{}".getBytes(StandardCharsets.UTF_8), "application/json");
        assertThat(run.statusCode()).isEqualTo(405);
        assertThat(run.headers().firstValue("Allow")).contains("GET");
        assertThat(sendBytes("GET", "/v1/nothing-here", new byte[0], "application/json").statusCode())
                .isEqualTo(404);
    }

    @Test
    void badBytesInTheUrlGetTheErrorEnvelope() throws Exception {
        for (String target : List.of("/v1/runs/%zz", "/v1/runs/%", "/v1/%2e%2e/runs", "/v1/runs/%2F..%2Fx",
                "/v1/runs/\u0001", "/v1/runs/\u00ff", "/v1/runs/a b")) {
            String response = raw("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-Id: probe-1\r\n"
                    + "Connection: close\r\n\r\n");
            String status = response.lines().findFirst().orElse("");
            assertThat(status).as(target).matches("HTTP/1.1 4\\d\\d .*");
            assertThat(response.toLowerCase()).as(target + "\n" + response)
                    .contains("content-type: application/json", "x-content-type-options: nosniff", "x-request-id: ")
                    .doesNotContain("<html");
            JsonNode body = Json.MAPPER.readTree(response.substring(response.indexOf("\r\n\r\n") + 4));
            assertThat(body.get("code").asText()).as(target).isNotBlank();
            assertThat(body.get("requestId").asText()).as(target).isNotBlank();
        }
    }

    @Test
    void everyV1AnswerForbidsContentSniffing() {
        for (var response : List.of(ledger.get("/v1/runs"), ledger.send("GET", "/v1/runs", null, null),
                ledger.get("/v1/runs/" + UUID.randomUUID()), ledger.post("/v1/runs", Map.of()),
                ledger.get("/v1/nothing-here"))) {
            assertThat(response.raw().headers().firstValue("X-Content-Type-Options")).as(response.toString())
                    .contains("nosniff");
        }
    }

    @Test
    void encodedDotSegmentsInStagePathsAreRefused() {
        for (String root : List.of("/data/loadgate/stage/%252e%252e/x", "/data/loadgate/stage/%c0%ae%c0%ae/x",
                "/data/loadgate/stage/%41")) {
            Map<String, Object> body = Runs.create("BAD_INPUT_PATH", "K");
            body.put("hdfsRoot", root);
            var response = ledger.post("/v1/runs", body);
            assertThat(response.status()).as(root).isEqualTo(422);
            assertThat(response.code()).as(root).isEqualTo("INVALID_HDFS_ROOT");
        }
        String pathRun = Runs.started(ledger, "BAD_INPUT_PATHS", 10);
        UUID token = UUID.randomUUID();
        String part = "/v1/runs/" + pathRun + "/partitions/0000";
        assertThat(ledger.post(part + "/claim", Runs.claim(token)).status()).isEqualTo(200);
        String runPath = ledger.get("/v1/runs/" + pathRun).text("hdfsRunPath");
        for (String escape : List.of(runPath + "/%252e%252e/%252e%252e/part.parquet",
                runPath + "/%c0%ae%c0%ae/part.parquet")) {
            var chunk = Runs.chunk(pathRun, token, "0000", 0, 1, 10);
            chunk.put("hdfsPath", escape);
            var response = ledger.post(part + "/chunks", chunk);
            assertThat(response.status()).as(escape).isEqualTo(422);
            assertThat(response.code()).as(escape).isEqualTo("HDFS_PATH_OUTSIDE_RUN");
        }
    }

    @Test
    void aJsonBodyWithAnotherContentTypeIsAccepted() throws Exception {
        // NiFi's InvokeHTTP sends the flow file's mime type.
        byte[] body = Json.write(Runs.create("BAD_INPUT_MIME", "K")).getBytes(StandardCharsets.UTF_8);
        assertThat(sendBytes("POST", "/v1/runs", body, "application/octet-stream").statusCode()).isEqualTo(200);
    }

    private static NulCase nul(String path, String token, String field) {
        return new NulCase(path, token, Json.write(nest(field)), field);
    }

    /** {"a": {"b": [{...}, {"x": NUL}]}} for "a.b[1].x": the NUL at the named field, nothing else in the body. */
    private static Object nest(String field) {
        int dot = field.indexOf('.');
        int bracket = field.indexOf('[');
        if (dot < 0 && bracket < 0) {
            return Map.of(field, NUL);
        }
        if (bracket >= 0 && (dot < 0 || bracket < dot)) {
            int index = Integer.parseInt(field.substring(bracket + 1, field.indexOf(']')));
            String rest = field.substring(field.indexOf(']') + 2);
            List<Object> items = new java.util.ArrayList<>();
            for (int i = 0; i < index; i++) {
                items.add(Map.of());
            }
            items.add(nest(rest));
            return Map.of(field.substring(0, bracket), items);
        }
        return Map.of(field.substring(0, dot), nest(field.substring(dot + 1)));
    }

    private HttpResponse<String> sendBytes(String method, String path, byte[] body, String contentType)
            throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(ledger.baseUrl() + path))
                .header("Authorization", "Bearer " + ledger.workerToken).header("Content-Type", contentType)
                .method(method, HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode envelope(HttpResponse<String> response) throws Exception {
        JsonNode body = Json.MAPPER.readTree(response.body());
        assertThat(body.get("requestId").asText()).isNotBlank();
        return body;
    }

    /** Sends the request's characters as ISO-8859-1 bytes, one byte each, and reads until the server closes. */
    private static String raw(String request) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", ledger.server.port())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }
}

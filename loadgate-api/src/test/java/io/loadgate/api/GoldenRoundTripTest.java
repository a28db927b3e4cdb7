package io.loadgate.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every golden case of the contract ({@code golden/*.json}: docs/ledger-api-v1.md's requests and responses, as the
 * server answers them — the server's GoldenWireTest holds it to the same files) reads into its record and writes back
 * unchanged, byte for byte: field names, order, casing, nulls and absent fields. A record that drops, renames, adds
 * or reorders a field fails here before any NiFi flow sees it.
 */
class GoldenRoundTripTest {
    /** The server's configuration (loadgate-server's Json), strict about unknown fields as the server is. */
    static final ObjectMapper SERVER = JsonMapper.builder()
            .addModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .build();

    private record Types(Class<?> request, JavaType response) {
    }

    private static final Map<String, Types> CASES = new LinkedHashMap<>();

    private static void is(String name, Class<?> request, Class<?> response) {
        CASES.put(name, new Types(request, SERVER.constructType(response)));
    }

    private static void isList(String name, Class<?> request, Class<?> element) {
        CASES.put(name, new Types(request, SERVER.getTypeFactory().constructCollectionType(List.class, element)));
    }

    static {
        is("runs.create", RunApi.CreateRun.class, RunApi.RunCreated.class);
        is("runs.create.c", RunApi.CreateRun.class, RunApi.RunCreated.class);
        is("runs.create.duplicate", RunApi.CreateRun.class, ErrorResponse.class);
        is("runs.create.stale", RunApi.CreateRun.class, ErrorResponse.class);
        is("runs.create.invalid", null, ErrorResponse.class);
        is("runs.manifest", RunApi.Manifest.class, RunApi.ManifestAccepted.class);
        is("runs.manifest.pending", RunApi.Manifest.class, RunApi.ManifestAccepted.class);
        is("runs.source-metrics", RunApi.SourceMetrics.class, RunApi.SourceMetricsAccepted.class);
        is("runs.source-metrics.again", RunApi.SourceMetrics.class, RunApi.SourceMetricsAccepted.class);
        is("runs.source-metrics.conflict", RunApi.SourceMetrics.class, ErrorResponse.class);
        is("runs.fail", RunApi.FailRun.class, RunApi.RunChange.class);
        is("runs.get.extracted", null, RunApi.RunView.class);
        is("runs.get.pending", null, RunApi.RunView.class);
        is("runs.get.unknown", null, ErrorResponse.class);
        is("runs.get.unauthenticated", null, ErrorResponse.class);
        isList("runs.list", null, RunApi.RunSummary.class);
        isList("runs.files", null, StepApi.StagedFile.class);
        isList("dispatches.lease", DispatchApi.Lease.class, DispatchApi.LeasedDispatch.class);
        isList("dispatches.lease.validate", DispatchApi.Lease.class, DispatchApi.LeasedDispatch.class);
        isList("dispatches.lease.publish", DispatchApi.Lease.class, DispatchApi.LeasedDispatch.class);
        isList("dispatches.lease.b", DispatchApi.Lease.class, DispatchApi.LeasedDispatch.class);
        isList("dispatches.lease.b.again", DispatchApi.Lease.class, DispatchApi.LeasedDispatch.class);
        is("dispatches.release", DispatchApi.Release.class, DispatchApi.Released.class);
        is("dispatches.resend", null, OperatorApi.Resent.class);
        is("partitions.claim", PartitionApi.Claim.class, PartitionApi.ClaimResult.class);
        is("partitions.heartbeat", PartitionApi.PartitionHeartbeat.class, PartitionApi.HeartbeatResult.class);
        is("partitions.chunks", PartitionApi.ChunkReport.class, PartitionApi.ChunkResult.class);
        is("partitions.chunks.mapped", PartitionApi.ChunkReport.class, PartitionApi.ChunkResult.class);
        is("partitions.fail", PartitionApi.PartitionFailure.class, PartitionApi.FailResult.class);
        is("validation.start", StepApi.StartValidation.class, StepApi.ValidationStarted.class);
        is("validations.record.staging", StepApi.Validations.class, StepApi.ValidationsRecorded.class);
        is("validations.record.target", StepApi.Validations.class, StepApi.ValidationsRecorded.class);
        isList("validations.list", null, StepApi.ValidationView.class);
        is("stage-validated", StepApi.StageValidated.class, StepApi.StageVerdict.class);
        is("publish.claim", StepApi.ClaimPublish.class, StepApi.PublishClaim.class);
        is("publish.result", StepApi.PublishResult.class, StepApi.PublishRecorded.class);
        is("success", StepApi.Success.class, StepApi.SuccessResult.class);
        is("rollback", OperatorApi.Rollback.class, RunApi.RunChange.class);
        is("runs.cancel", OperatorApi.Cancel.class, RunApi.RunChange.class);
        is("monitor.summary", null, OperatorApi.MonitorSummary.class);
        is("validation.heartbeat", StepApi.StartValidation.class, StepApi.ValidationBeat.class);
        isList("runs.events", null, RunApi.Event.class);
        is("publish-unknown.probe", OperatorApi.PublishProbe.class, RunApi.RunChange.class);
        is("publish-unknown.resolve", OperatorApi.Resolve.class, RunApi.RunChange.class);
        isList("cleanup.candidates", null, OperatorApi.CleanupCandidate.class);
        is("cleanup.skipped", OperatorApi.CleanupSkipped.class, OperatorApi.CleanupResult.class);
        is("cleanup", OperatorApi.Cleanup.class, OperatorApi.CleanupResult.class);
        is("monitor.history", null, MonitorHistory.class);
        is("jobs.keys", null, KeyHolders.class);
        isList("jobs.loaded-directories", null, LoadedKey.class);
        is("runs.create.spark", RunApi.CreateRun.class, RunApi.RunCreated.class);
        is("runs.heartbeat", null, RunApi.RunBeat.class);
    }

    static Stream<String> cases() {
        return CASES.keySet().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void responseRoundTripsUnchanged(String name) throws IOException {
        JsonNode golden = golden(name);
        String response = golden.get("response").toString();
        Object record = SERVER.readValue(response, CASES.get(name).response());
        assertThat(SERVER.writeValueAsString(record)).as(name + " response").isEqualTo(response);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void requestRoundTripsUnchanged(String name) throws IOException {
        JsonNode golden = golden(name);
        Class<?> type = CASES.get(name).request();
        if (type == null) {
            return;
        }
        String request = golden.get("request").toString();
        assertThat(SERVER.writeValueAsString(SERVER.readValue(request, type))).as(name + " request")
                .isEqualTo(request);
    }

    @Test
    void everyGoldenCaseHasItsRecords() throws IOException {
        try (Stream<Path> files = Files.list(Path.of("src/test/resources/golden"))) {
            assertThat(files.map(f -> f.getFileName().toString().replaceFirst("\\.json$", "")))
                    .as("golden cases without records in this test").allMatch(CASES::containsKey);
        }
    }

    @Test
    void everyErrorCodeOfTheGoldenCasesIsAnErrorCode() throws IOException {
        for (String name : CASES.keySet()) {
            JsonNode code = golden(name).get("response").get("code");
            if (code != null) {
                ErrorCode known = ErrorCode.valueOf(code.asText());
                assertThat(known.httpStatus()).as(name).isEqualTo(golden(name).get("status").asInt());
            }
        }
    }

    /** The cases as written: a decimal such as 90.0 stays 90.0 in the tree, where the default would make it 9E+1. */
    private static final ObjectMapper CASE_READER = SERVER.copy().setNodeFactory(
            JsonNodeFactory.withExactBigDecimals(true));

    static JsonNode golden(String name) throws IOException {
        try (InputStream in = GoldenRoundTripTest.class.getResourceAsStream("/golden/" + name + ".json")) {
            assertThat(in).as("golden/" + name + ".json").isNotNull();
            return CASE_READER.readTree(in);
        }
    }
}

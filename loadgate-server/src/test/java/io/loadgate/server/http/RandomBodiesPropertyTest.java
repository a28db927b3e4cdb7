package io.loadgate.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.server.testing.Runs;
import io.loadgate.server.testing.TestLedger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/** Whatever JSON a client sends, the answer is never a 5xx. */
class RandomBodiesPropertyTest {
    private static TestLedger ledger;
    private static String runId;
    private static final List<String> FIELDS = List.of("jobKey", "businessKey", "hdfsRoot", "stageTablePrefix",
            "allowEmptySource", "parameters", "executor", "snapshotScn", "sourceCount", "sourceNullSplitCount",
            "sourceMinSplit", "sourceMaxSplit", "plannedPartitionCount", "sourceMetrics", "partitions",
            "partitionId", "lowerBound", "upperBound", "expectedRowCount", "claimToken", "workerNode", "chunkIndex",
            "chunkCount", "hdfsPath", "recordCount", "byteCount", "expectedStatus", "failStatus", "errorClass",
            "message", "unexpected");

    @BeforeContainer
    static void start() {
        ledger = new TestLedger();
        runId = Runs.started(ledger, "PROPERTY", 10, 10);
    }

    @AfterContainer
    static void stop() {
        ledger.close();
    }

    @Property(tries = 300)
    void randomBodiesNeverCauseA5xx(@ForAll("endpoints") String path, @ForAll("bodies") Object body) {
        var response = ledger.post(path, body);
        assertThat(response.status()).as(path + " " + response).isLessThan(500);
        assertThat(response.raw().headers().firstValue("X-Request-Id")).isPresent();
    }

    @Provide
    Arbitrary<String> endpoints() {
        return Arbitraries.of("/v1/runs", "/v1/runs/" + "RUN/manifest", "/v1/runs/RUN/fail",
                "/v1/runs/RUN/partitions/0000/claim", "/v1/runs/RUN/partitions/0001/chunks",
                "/v1/runs/RUN/partitions/0000/fail", "/v1/runs/RUN/partitions/0000/heartbeat",
                "/v1/runs/RUN/partitions/NULL/claim").map(p -> p.replace("RUN", runId));
    }

    @Provide
    Arbitrary<Object> bodies() {
        Arbitrary<Object> scalar = Arbitraries.oneOf(
                Arbitraries.strings().ofMaxLength(50).map(s -> (Object) s),
                Arbitraries.longs().map(l -> (Object) l),
                Arbitraries.doubles().map(d -> (Object) d),
                Arbitraries.of(true, false).map(b -> (Object) b),
                Arbitraries.of("5000", "true", "-1", "99999999999999999999999999999999999999999", "../..",
                        "00000000-0000-0000-0000-000000000000", "", "NULL", "0000").map(s -> (Object) s),
                Arbitraries.just(null));
        Arbitrary<Object> nested = Arbitraries.oneOf(scalar,
                scalar.list().ofMaxSize(3).map(l -> (Object) l),
                Arbitraries.maps(Arbitraries.of(FIELDS), scalar).ofMaxSize(4).map(m -> (Object) m));
        Arbitrary<Object> object = Arbitraries.maps(Arbitraries.of(FIELDS), nested).ofMaxSize(12)
                .map(m -> (Object) new LinkedHashMap<>(m));
        return Arbitraries.oneOf(object, object, object,
                Arbitraries.strings().ofMaxLength(40).map(s -> (Object) ("{" + s)),
                nested.list().ofMaxSize(3).map(l -> (Object) new ArrayList<>(l)));
    }

}

package io.loadgate.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.loadgate.server.testing.Runs;
import io.loadgate.server.testing.TestLedger;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Who may call what: 401 without a known token, 403 for the wrong role, for every protected endpoint. */
class AuthTest {
    @RegisterExtension
    static final TestLedger ledger = new TestLedger();
    private static final String RUN = "/v1/runs/" + UUID.randomUUID();
    private static final List<String[]> WORKER_POSTS = List.of(
            new String[] {"POST", "/v1/runs"},
            new String[] {"POST", RUN + "/manifest"},
            new String[] {"POST", RUN + "/fail"},
            new String[] {"POST", RUN + "/partitions/0000/claim"},
            new String[] {"POST", RUN + "/partitions/0000/chunks"},
            new String[] {"POST", RUN + "/partitions/0000/fail"},
            new String[] {"POST", RUN + "/partitions/0000/heartbeat"});
    private static final List<String[]> READS = List.of(
            new String[] {"GET", "/v1/runs"},
            new String[] {"GET", RUN},
            new String[] {"GET", RUN + "/events"});

    @Test
    void noTokenOrAnUnknownTokenIs401() {
        for (String[] endpoint : concat(WORKER_POSTS, READS)) {
            for (String token : new String[] {null, "", "wrong", ledger.workerToken + "x"}) {
                var response = ledger.send(endpoint[0], endpoint[1], Map.of(), token);
                assertThat(response.status()).as(endpoint[1] + " with " + token).isEqualTo(401);
                assertThat(response.code()).isEqualTo("UNAUTHENTICATED");
            }
        }
    }

    @Test
    void operatorsAndViewersCannotMoveData() {
        for (String[] endpoint : WORKER_POSTS) {
            for (String token : new String[] {ledger.operatorToken, ledger.viewerToken}) {
                var response = ledger.send(endpoint[0], endpoint[1], Map.of(), token);
                assertThat(response.status()).as(endpoint[1]).isEqualTo(403);
                assertThat(response.code()).isEqualTo("FORBIDDEN");
            }
            assertThat(ledger.send(endpoint[0], endpoint[1], Map.of(), ledger.workerToken).status())
                    .as(endpoint[1]).isNotIn(401, 403);
        }
    }

    @Test
    void everyRoleCanRead() {
        for (String[] endpoint : READS) {
            for (String token : new String[] {ledger.workerToken, ledger.operatorToken, ledger.viewerToken}) {
                assertThat(ledger.send(endpoint[0], endpoint[1], null, token).status()).as(endpoint[1])
                        .isIn(200, 404);
            }
        }
    }

    @Test
    void aViewerReadsARunWithoutTheJobSpecItsParametersCarry() {
        Map<String, Object> create = Runs.create("AUTH_PARAMETERS", "2026-12-01");
        create.put("parameters", Map.of("jobSpec", "target:\n  catalog: {jdbc.password: s3cret}\n"));
        String runId = ledger.post("/v1/runs", create).text("runId");

        for (String token : new String[] {ledger.workerToken, ledger.operatorToken}) {
            assertThat(ledger.send("GET", "/v1/runs/" + runId, null, token).body().at("/parameters/jobSpec").asText())
                    .as("the processes that run and operate jobs read their spec").contains("s3cret");
        }
        var viewed = ledger.send("GET", "/v1/runs/" + runId, null, ledger.viewerToken);
        assertThat(viewed.status()).isEqualTo(200);
        assertThat(viewed.body().get("parameters").isEmpty()).as(viewed.body().toString()).isTrue();
        assertThat(viewed.body().toString()).doesNotContain("s3cret");
        assertThat(viewed.body().at("/jobKey").asText()).isEqualTo("AUTH_PARAMETERS");
    }

    @Test
    void authenticationComesBeforeBodyValidation() {
        assertThat(ledger.send("POST", "/v1/runs", "{broken", null).status()).isEqualTo(401);
        assertThat(ledger.send("POST", "/v1/runs", "{broken", ledger.viewerToken).status()).isEqualTo(403);
    }

    private static List<String[]> concat(List<String[]> a, List<String[]> b) {
        var all = new java.util.ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}

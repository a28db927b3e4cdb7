package io.loadgate.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.loadgate.server.testing.Runs;
import io.loadgate.server.testing.TestLedger;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code GET /v1/jobs/{jobKey}/keys} (extension): per business key, the run the target holds, page by page. */
class KeyHoldersApiTest {
    @RegisterExtension
    static final TestLedger ledger = new TestLedger();
    private static String replaced;
    private static String current;
    private static String rolledBack;
    private static String reloading;

    @BeforeAll
    static void start() {
        replaced = Runs.succeeded(ledger, "KEYS", "2026-11-01");
        current = Runs.succeeded(ledger, "KEYS", "2026-11-01");
        rolledBack = Runs.succeeded(ledger, "KEYS", "2026-11-02");
        var rollback = ledger.send("POST", "/v1/runs/" + rolledBack + "/rollback", Map.of("reason",
                "source resent the day", "targetRef", "snapshot-2"), ledger.operatorToken);
        assertThat(rollback.status()).as(rollback.toString()).isEqualTo(200);
        Runs.succeeded(ledger, "KEYS", "2026-11-03");
        reloading = Runs.extracting(ledger, "KEYS", "2026-11-03");
        Runs.succeeded(ledger, "OTHER_JOB", "2026-11-01");
    }

    private static JsonNode page(String query) {
        var answer = ledger.send("GET", "/v1/jobs/KEYS/keys" + query, null, ledger.viewerToken);
        assertThat(answer.status()).as(answer.toString()).isEqualTo(200);
        return answer.body();
    }

    @Test
    void eachKeyNamesTheLatestSuccessNotRolledBackAndItsNewestRun() {
        JsonNode keys = page("").get("keys");
        assertThat(keys).as(keys.toString()).hasSize(3);
        JsonNode first = keys.get(0);
        assertThat(first.get("businessKey").asText()).isEqualTo("2026-11-01");
        assertThat(first.get("inTargetRunId").asText()).as("not the replaced " + replaced).isEqualTo(current);
        assertThat(first.get("inTargetRows").asLong()).isEqualTo(30);
        assertThat(first.get("loadedAt").isNull()).isFalse();
        assertThat(first.get("lastTargetState").asText()).isEqualTo("CURRENT");
        JsonNode second = keys.get(1);
        assertThat(second.get("inTargetRunId").isNull()).isTrue();
        assertThat(second.get("rolledBackRunId").asText()).isEqualTo(rolledBack);
        assertThat(second.get("lastTargetState").asText()).isEqualTo("ROLLED_BACK");
        JsonNode third = keys.get(2);
        assertThat(third.get("inTargetRunId").isNull()).as("the earlier SUCCESS still holds it").isFalse();
        assertThat(third.get("lastRunId").asText()).isEqualTo(reloading);
        assertThat(third.get("lastStatus").asText()).isEqualTo("EXTRACTING");
        assertThat(third.get("lastTargetState").isNull()).isTrue();
        assertThat(page("").get("next").isNull()).as("one page").isTrue();
    }

    @Test
    void pagesFollowEachOtherByKeyWithoutGapOrRepeat() {
        JsonNode one = page("?limit=2");
        assertThat(one.get("keys")).extracting(k -> k.get("businessKey").asText())
                .containsExactly("2026-11-01", "2026-11-02");
        assertThat(one.get("next").asText()).isEqualTo("2026-11-02");
        JsonNode two = page("?limit=2&after=2026-11-02");
        assertThat(two.get("keys")).extracting(k -> k.get("businessKey").asText()).containsExactly("2026-11-03");
        assertThat(two.get("next").isNull()).isTrue();
        assertThat(ledger.send("GET", "/v1/jobs/NO_SUCH_JOB/keys", null, ledger.viewerToken).body().get("keys"))
                .isEmpty();
    }

    @Test
    void aBadJobKeyAfterOrLimitIs422NamingIt() {
        var answer = ledger.send("GET", "/v1/jobs/lower/keys?limit=0&after=%20", null, ledger.viewerToken);
        assertThat(answer.status()).as(answer.toString()).isEqualTo(422);
        assertThat(answer.text("code")).isEqualTo("REQUEST_INVALID");
        assertThat(answer.body().at("/details/errors").toString()).contains("jobKey", "after", "limit");
        assertThat(ledger.send("GET", "/v1/jobs/KEYS/keys", null, null).status()).isEqualTo(401);
    }
}

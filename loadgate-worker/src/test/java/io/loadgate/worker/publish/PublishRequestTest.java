package io.loadgate.worker.publish;

import static io.loadgate.worker.publish.StagedFiles.ORDERS_TABLE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loadgate.worker.testing.Fences;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class PublishRequestTest {
    private static final StagedFile FILE = new StagedFile("/stage/run-1/p0/chunk-0.parquet", 10, 2048);

    @Test
    void rejectsAFileListedTwice() {
        assertThatThrownBy(() -> request("2026-11-29", List.of(FILE, FILE)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("file listed twice for run run-1: /stage/run-1/p0/chunk-0.parquet");
    }

    @Test
    void rejectsABusinessKeyTheColumnCannotHold() {
        assertThatThrownBy(() -> request("2026-13-01", List.of(FILE)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("business key '2026-13-01' is not a valid date for column order_date");
    }

    @Test
    void copiesTheFileList() {
        List<StagedFile> files = new ArrayList<>(List.of(FILE));
        PublishRequest request = request("2026-11-29", files);
        files.clear();

        assertThat(request.files()).containsExactly(FILE);
    }

    @Test
    void outcomesCarryWhatTheLedgerNeeds() {
        assertThat(PublishOutcome.published(42L, "ok").targetRef()).isEqualTo("42");
        assertThatThrownBy(() -> new PublishOutcome(PublishOutcome.Status.PUBLISH_UNKNOWN, "42",
                PublishOutcome.ErrorCode.COMMIT_STATE_UNKNOWN, "m"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("PUBLISH_UNKNOWN has no targetRef, got 42");
        assertThatThrownBy(() -> new PublishOutcome(PublishOutcome.Status.FAILED_PUBLISH, null, null, "m"))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("errorCode is null");
    }

    private static PublishRequest request(String businessKey, List<StagedFile> files) {
        return new PublishRequest("run-1", "orders-daily", businessKey, UUID.randomUUID(), Fences.next(),
                ORDERS_TABLE, files);
    }
}

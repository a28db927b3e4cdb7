package io.loadgate.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Typed ids are checked once, when made, and are written as the plain strings the contract shows. */
class IdsTest {
    @Test
    void idsAreCheckedWhenMade() {
        assertThat(JobKey.of("ORDERS_2")).hasToString("ORDERS_2");
        assertThatThrownBy(() -> JobKey.of("orders")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("jobKey must match ^[A-Z0-9_]{1,200}$, got 'orders'");
        assertThat(BusinessKey.of("2026-11-29:eu.west")).hasToString("2026-11-29:eu.west");
        assertThatThrownBy(() -> BusinessKey.of("a b")).isInstanceOf(IllegalArgumentException.class);
        assertThat(PartitionId.of("NULL")).hasToString("NULL");
        assertThatThrownBy(() -> PartitionId.of("12")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RunId.of("not-a-uuid")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("runId is not a UUID: not-a-uuid");
    }

    @Test
    void idsAreWrittenAndReadAsPlainStrings() throws Exception {
        var mapper = GoldenRoundTripTest.SERVER;
        UUID uuid = UUID.fromString("00000000-0000-4000-8000-000000000001");
        assertThat(mapper.writeValueAsString(new RunId(uuid))).isEqualTo("\"" + uuid + "\"");
        assertThat(mapper.readValue("\"" + uuid + "\"", RunId.class)).isEqualTo(new RunId(uuid));
        assertThat(mapper.writeValueAsString(JobKey.of("ORDERS"))).isEqualTo("\"ORDERS\"");
        assertThat(mapper.readValue("\"0007\"", PartitionId.class)).isEqualTo(PartitionId.of("0007"));
        assertThat(new RunId(uuid).hex()).isEqualTo("00000000000040008000000000000001");
    }
}

package io.loadgate.ledger;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.loadgate.ledger.db.Tx;

/** The one JSON mapper of the ledger, for jsonb columns (manifests, payloads, event details). */
public final class LedgerJson {
    public static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .build();

    private LedgerJson() {
    }

    public static Tx.Jsonb jsonb(Object value) {
        try {
            return new Tx.Jsonb(MAPPER.writeValueAsString(value));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot serialise " + value.getClass().getSimpleName(), e);
        }
    }

    public static JsonNode read(String text) {
        if (text == null) {
            return null;
        }
        try {
            return MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("stored JSON is unreadable", e);
        }
    }
}

package io.loadgate.ledger.dispatch;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.loadgate.api.BusinessKey;
import io.loadgate.api.DispatchApi;
import io.loadgate.api.DispatchType;
import io.loadgate.api.JobKey;
import io.loadgate.api.PartitionId;
import io.loadgate.api.RunId;
import io.loadgate.ledger.LedgerJson;
import java.util.LinkedHashMap;
import java.util.UUID;

/**
 * A dispatch as a lease handed it out. {@code attempt} is the attempt this lease is (it was counted when the lease
 * was taken) and fences the lease holder's later compare-and-set: a holder whose lease expired and was taken again
 * no longer matches.
 */
public record LeasedDispatch(UUID dispatchId, RunId runId, DispatchType dispatchType, String partitionId,
                             JobKey jobKey, BusinessKey businessKey, JsonNode payload, int attempt) {
    public LeasedDispatch {
        requireNonNull(dispatchId, "dispatchId is null");
        requireNonNull(runId, "runId is null");
        requireNonNull(dispatchType, "dispatchType is null");
        requireNonNull(jobKey, "jobKey is null");
        requireNonNull(businessKey, "businessKey is null");
        payload = payload == null || !payload.isObject() ? LedgerJson.MAPPER.createObjectNode() : payload.deepCopy();
    }

    /** The stored payload plus the run's jobKey and businessKey, so an executor need not look the run up. */
    public ObjectNode payloadWithKeys() {
        ObjectNode copy = (ObjectNode) payload.deepCopy();
        copy.put("jobKey", jobKey.value());
        copy.put("businessKey", businessKey.value());
        return copy;
    }

    /** As the API answers a lease with it: the payload with the run's keys, its numbers exact. */
    public DispatchApi.LeasedDispatch toApi() {
        try {
            return new DispatchApi.LeasedDispatch(dispatchId, runId, dispatchType,
                    partitionId == null ? null : PartitionId.of(partitionId),
                    LedgerJson.MAPPER.readerFor(LinkedHashMap.class)
                            .with(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS,
                                    DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
                            .readValue(payloadWithKeys()));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}

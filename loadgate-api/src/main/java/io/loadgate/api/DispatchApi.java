package io.loadgate.api;

import static java.util.Objects.requireNonNull;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Pull delivery (executor "worker"): {@code POST /v1/dispatches/lease}. */
public final class DispatchApi {
    private DispatchApi() {
    }

    /** {@code POST /v1/dispatches/{dispatchId}/release}: the node that holds the lease hands it back. */
    public record Release(String node) {
        public Release {
            requireNonNull(node, "node is null");
        }
    }

    /** Whether the lease went back to PENDING. */
    public record Released(UUID dispatchId, boolean released) {
    }

    /** Waits up to {@code waitSeconds} for at most {@code max} dispatches of the given types. */
    public record Lease(String node, List<DispatchType> types, int max, int waitSeconds) {
        public Lease {
            requireNonNull(node, "node is null");
            types = List.copyOf(requireNonNull(types, "types is null"));
            if (types.isEmpty()) {
                throw new IllegalArgumentException("types is empty");
            }
            if (max < 1) {
                throw new IllegalArgumentException("max must be at least 1, got " + max);
            }
            if (waitSeconds < 0) {
                throw new IllegalArgumentException("waitSeconds must not be negative, got " + waitSeconds);
            }
        }
    }

    /**
     * A leased step. The lease is a receipt, not an acknowledgement: the step's own compare-and-set (claim,
     * validation/start, publish/claim) ACKs it, and an unacked lease is delivered again after the ack timeout.
     */
    public record LeasedDispatch(UUID dispatchId, RunId runId, DispatchType dispatchType, PartitionId partitionId,
                                 Map<String, Object> payload) {
        public LeasedDispatch {
            requireNonNull(dispatchId, "dispatchId is null");
            requireNonNull(runId, "runId is null");
            requireNonNull(dispatchType, "dispatchType is null");
            payload = payload == null ? Map.of() : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(payload));
        }
    }
}

package io.loadgate.api;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * Who executes a run's steps: a NiFi flow that receives pushed dispatches, Loadgate workers that lease them, or
 * (extension) a Spark driver whose own tasks run the partitions while its steps after extraction are leased by workers.
 */
public enum Executor {
    HTTP,
    WORKER,
    /**
     * A run whose driver hands each partition to a Spark task of its own (loadgate-spark): a partition's step is
     * never a dispatch, since a worker that took one would race the task; the driver beats the run instead
     * ({@code POST /v1/runs/{runId}/heartbeat}), and a run whose driver stops beating is ended by the sweeper.
     */
    SPARK;

    /** Whether the executor runs {@code type} from a dispatch; the ledger inserts no dispatch it would not take. */
    public boolean takesDispatch(DispatchType type) {
        return switch (this) {
            // A NiFi flow continues by itself after extraction and validation.
            case HTTP -> type.isPushed();
            case WORKER -> true;
            case SPARK -> !type.isPartitionStep();
        };
    }

    /** How its dispatches are delivered: pushed to NiFi, or leased by workers (a Spark driver's own worker among them). */
    public Executor delivery() {
        return switch (this) {
            case HTTP -> HTTP;
            case WORKER, SPARK -> WORKER;
        };
    }

    /** As the contract writes it: {@code "http"} or {@code "worker"}. */
    @JsonValue
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Executor fromWire(String text) {
        return valueOf(text.toUpperCase(Locale.ROOT));
    }
}

package io.loadgate.api;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** Who executes a run's steps: a NiFi flow that receives pushed dispatches, or Loadgate workers that lease them. */
public enum Executor {
    HTTP,
    WORKER;

    /** As the contract writes it: {@code "http"} or {@code "worker"}. */
    @JsonValue
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Executor fromWire(String text) {
        return valueOf(text.toUpperCase(Locale.ROOT));
    }
}

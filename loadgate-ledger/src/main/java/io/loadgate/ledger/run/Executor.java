package io.loadgate.ledger.run;

import java.util.Locale;

/** Who runs a run's steps: a NiFi flow that receives pushed dispatches, or Loadgate workers that lease them. */
public enum Executor {
    HTTP,
    WORKER;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Executor fromWire(String text) {
        return valueOf(text.toUpperCase(Locale.ROOT));
    }
}

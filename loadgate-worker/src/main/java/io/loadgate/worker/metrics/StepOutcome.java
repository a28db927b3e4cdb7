package io.loadgate.worker.metrics;

/** How a leased step ended, as {@code loadgate_worker_step_seconds{outcome}} counts it. */
public enum StepOutcome {
    /** The step did its work and reported it, whatever the verdict (a validation that finds a mismatch is ok). */
    OK,
    /** The step threw, or reported a failure of its own (a failed partition, a publish that did not land). */
    FAILED,
    /** Another worker had claimed or started the step, or the run had moved on: nothing to do here. */
    SKIPPED;

    String tag() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}

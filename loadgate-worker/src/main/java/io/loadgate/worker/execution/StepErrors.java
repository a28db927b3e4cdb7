package io.loadgate.worker.execution;

/**
 * What the ledger is told when a step throws an {@link Error} (a {@code NoSuchMethodError} from mismatched library
 * versions, an {@code OutOfMemoryError}): the step's failure like any other, reported at once, so its run ends now
 * instead of waiting for a stale claim. The code is the Error's class; the message is its own text, which names a
 * class or member, not a value or a credential; the stack trace stays in the worker's log.
 */
final class StepErrors {
    private StepErrors() {
    }

    static String code(Error e) {
        return e.getClass().getSimpleName();
    }

    static String message(Error e) {
        return "the worker hit " + e + " (its log has the stack trace)";
    }
}

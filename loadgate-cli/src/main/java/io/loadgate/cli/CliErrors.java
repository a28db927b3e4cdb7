package io.loadgate.cli;

/** Turns any failure into the one line a user sees. */
final class CliErrors {
    private CliErrors() {
    }

    static String oneLine(Throwable e) {
        Throwable t = e;
        String message = t.getMessage();
        // Library wrappers often say nothing of their own; the cause says what happened.
        while ((message == null || message.isBlank()) && t.getCause() != null) {
            t = t.getCause();
            message = t.getMessage();
        }
        if (message == null || message.isBlank()) {
            message = t.getClass().getSimpleName();
        }
        String first = message.strip().lines().findFirst().orElse(message);
        return first.length() > 400 ? first.substring(0, 400) + "..." : first;
    }
}

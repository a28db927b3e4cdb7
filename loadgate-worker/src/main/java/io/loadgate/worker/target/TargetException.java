package io.loadgate.worker.target;

/** The target could not be reached, read or changed; the message says what was tried and is complete. */
public final class TargetException extends RuntimeException {
    public TargetException(String message, Throwable cause) {
        super(message, cause);
    }

    /** The first line of the first message among {@code e} and its causes: what a one-line error can show of it. */
    public static String oneLine(Throwable e) {
        Throwable t = e;
        while ((t.getMessage() == null || t.getMessage().isBlank()) && t.getCause() != null) {
            t = t.getCause();
        }
        String text = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        return text.strip().lines().findFirst().orElse(text);
    }
}

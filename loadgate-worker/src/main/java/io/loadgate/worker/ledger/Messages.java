package io.loadgate.worker.ledger;

/** The ledger takes messages of at most 2,000 characters; a longer text (an exception's) is cut, not refused. */
public final class Messages {
    public static final int MAX_LENGTH = 2000;

    private Messages() {
    }

    public static String fit(String message) {
        return message == null || message.length() <= MAX_LENGTH ? message : message.substring(0, MAX_LENGTH);
    }
}

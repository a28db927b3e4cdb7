package io.loadgate.cli;

/** A failure the user can act on, with the exit code that tells scripts which kind it was. */
public final class CliException extends RuntimeException {
    private final int exitCode;

    public CliException(String message, int exitCode) {
        super(message);
        this.exitCode = exitCode;
    }

    public CliException(String message) {
        this(message, 1);
    }

    public int exitCode() {
        return exitCode;
    }
}

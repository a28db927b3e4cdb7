package io.loadgate.cli;

import picocli.CommandLine.Option;

/**
 * {@code --threads} of {@code run} and {@code replay}: the workers they start when, without {@code --ledger}, they
 * run the ledger and workers in this process.
 */
final class ThreadsOption {
    @Option(names = "--threads", paramLabel = "N", defaultValue = "4",
            description = "worker threads when running in this process (default: ${DEFAULT-VALUE})")
    int count;

    /** Refuses a bad count before anything starts, with {@code --ledger} too, where it would start nothing. */
    void check() {
        check(count);
    }

    /** The range every {@code --threads} takes; {@code worker}'s own (steps at once) is checked here too. */
    static void check(int threads) {
        if (threads < 1 || threads > 256) {
            throw new CliException("--threads must be between 1 and 256", LedgerOptions.EXIT_USAGE);
        }
    }
}

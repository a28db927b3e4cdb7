package io.loadgate.cli;

import io.loadgate.server.config.Durations;
import io.loadgate.worker.ledger.LedgerClientConfig;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * How long a command that moves data ({@code run}, {@code replay}, {@code worker}) keeps retrying a ledger that does
 * not answer, so that a ledger restart or a database outage shorter than this costs no run. Operator commands do
 * not take it: they should fail within seconds.
 */
final class LedgerRetryOption {
    static final String ENV = "LOADGATE_LEDGER_RETRY_WINDOW";

    @Option(names = "--ledger-retry-window", paramLabel = "DURATION",
            defaultValue = "${env:" + ENV + ":-2m}",
            description = "retry a ledger call that gets no answer, a timeout or a 5xx for this long (e.g. 2m, 90s; 0s"
                    + " for one attempt; keep it below the ledger's recovery.stale) before giving up; also $" + ENV
                    + " (default: 2m)")
    String window;

    LedgerClientConfig.Retry retry() {
        Duration parsed;
        try {
            parsed = Durations.parse(window);
        } catch (IllegalArgumentException e) {
            throw new CliException("--ledger-retry-window: " + e.getMessage(), LedgerOptions.EXIT_USAGE);
        }
        return LedgerClientConfig.Retry.within(parsed);
    }
}

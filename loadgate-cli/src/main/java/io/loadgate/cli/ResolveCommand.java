package io.loadgate.cli;

import io.loadgate.api.OperatorApi.Resolution;
import io.loadgate.api.OperatorApi.Resolve;
import io.loadgate.api.RunApi.RunChange;
import io.loadgate.api.RunId;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "resolve", mixinStandardHelpOptions = true,
        description = "Resolves a PUBLISH_UNKNOWN run after checking the target by hand: it was published, or it was "
                + "not. Needs the operator token. The reason is kept in the run's events.",
        footer = "Exit codes: 0 resolved, 1 the ledger refused (e.g. the run is not PUBLISH_UNKNOWN), 2 bad input, "
                + "3 the ledger is unreachable.")
final class ResolveCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Mixin
    LedgerOptions ledger;

    @Parameters(paramLabel = "RUN_ID", description = "the PUBLISH_UNKNOWN run")
    String runId;

    @Option(names = "--as", required = true, paramLabel = "OUTCOME",
            description = "what the target shows: ${COMPLETION-CANDIDATES}")
    Resolution resolution;

    @Option(names = "--reason", required = true, paramLabel = "TEXT",
            description = "why, for the record (at least " + Resolve.MIN_REASON + " characters)")
    String reason;

    @Override
    public void run() {
        RunId id = LedgerOptions.runId("RUN_ID", runId);
        String why = JobInput.reason(reason, Resolve.MIN_REASON);
        var client = ledger.client(LedgerOptions.Role.OPERATOR);
        RunChange change = ledger.call(client, c -> c.resolvePublishUnknown(id, new Resolve(resolution, why)));
        ledger.print(spec.commandLine().getOut(), change, out -> out.println(result(id, change)));
    }

    /** The line a person reads; the live monitor shows the same after acting. */
    static String result(RunId id, RunChange change) {
        return change.changed() ? "Run " + id + " is now " + change.runStatus() + "."
                : "Run " + id + " was already " + change.runStatus() + "; nothing changed.";
    }
}

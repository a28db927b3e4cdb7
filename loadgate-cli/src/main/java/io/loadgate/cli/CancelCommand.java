package io.loadgate.cli;

import io.loadgate.api.OperatorApi.Cancel;
import io.loadgate.api.RunApi.RunChange;
import io.loadgate.api.RunId;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "cancel", mixinStandardHelpOptions = true,
        description = "Cancels an active run that has not started publishing: the run becomes CANCELLED, its "
                + "unfinished partitions FAILED, and workers extracting them stop at their next heartbeat. Staged "
                + "files are left for cleanup. A run that is PUBLISHING, PUBLISHED or PUBLISH_UNKNOWN cannot be "
                + "cancelled. Needs the operator token. The reason is kept in the run's events.",
        footer = "Exit codes: 0 cancelled (or already cancelled), 1 the ledger refused (e.g. the run is publishing), "
                + "2 bad input, 3 the ledger is unreachable.")
final class CancelCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Mixin
    LedgerOptions ledger;

    @Parameters(paramLabel = "RUN_ID", description = "the run to cancel")
    String runId;

    @Option(names = "--reason", required = true, paramLabel = "TEXT",
            description = "why, for the record (at least " + Cancel.MIN_REASON + " characters)")
    String reason;

    @Override
    public void run() {
        RunId id = LedgerOptions.runId("RUN_ID", runId);
        String why = JobInput.reason(reason, Cancel.MIN_REASON);
        var client = ledger.client(LedgerOptions.Role.OPERATOR);
        RunChange change = ledger.call(client, c -> c.cancelRun(id, new Cancel(why)));
        ledger.print(spec.commandLine().getOut(), change, out -> out.println(result(id, change)));
    }

    /** The line a person reads; the live monitor shows the same after acting. */
    static String result(RunId id, RunChange change) {
        return change.changed() ? "Run " + id + " is now CANCELLED."
                : "Run " + id + " was already CANCELLED; nothing changed.";
    }
}

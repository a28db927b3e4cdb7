package io.loadgate.cli;

import io.loadgate.api.OperatorApi.Resent;
import io.loadgate.api.RunId;
import java.util.UUID;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "dispatch", mixinStandardHelpOptions = true, description = "Acts on a run's dispatches.",
        subcommands = {DispatchCommand.Resend.class})
final class DispatchCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    @Command(name = "resend", mixinStandardHelpOptions = true,
            description = "Puts a DEAD or SENT dispatch back to PENDING with its attempts reset, so it is delivered "
                    + "again. Needs the operator token. 'loadgate runs show RUN_ID' lists the dispatches.",
            footer = "Exit codes: 0 resent, 1 the ledger refused (e.g. the dispatch is ACKED), 2 bad input, "
                    + "3 the ledger is unreachable.")
    static final class Resend implements Runnable {
        @Spec
        CommandSpec spec;

        @Mixin
        LedgerOptions ledger;

        @Parameters(index = "0", paramLabel = "RUN_ID", description = "the run")
        String runId;

        @Parameters(index = "1", paramLabel = "DISPATCH_ID", description = "the dispatch")
        String dispatchId;

        @Override
        public void run() {
            RunId run = LedgerOptions.runId("RUN_ID", runId);
            UUID dispatch = LedgerOptions.uuid("DISPATCH_ID", dispatchId);
            var client = ledger.client(LedgerOptions.Role.OPERATOR);
            Resent resent = ledger.call(client, c -> c.resendDispatch(run, dispatch));
            ledger.print(spec.commandLine().getOut(), resent, out -> out.println(result(run, resent)));
        }

        /** The line a person reads; the live monitor shows the same after acting. */
        static String result(RunId run, Resent resent) {
            return "Dispatch " + resent.dispatchId() + " of run " + run + " is " + resent.status() + " again.";
        }
    }
}

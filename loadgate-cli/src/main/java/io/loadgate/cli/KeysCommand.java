package io.loadgate.cli;

import io.loadgate.api.JobKey;
import io.loadgate.api.KeyHolders;
import io.loadgate.worker.ledger.LedgerClient;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code loadgate keys JOB_KEY}: per business key, the run whose rows the target holds now, and the key's last run,
 * as the ledger computes them ({@code GET /v1/jobs/{jobKey}/keys}), every key of the job page by page.
 */
@Command(name = "keys", mixinStandardHelpOptions = true,
        description = "Lists a job's business keys with the run whose rows the target holds now.",
        footer = {"IN_TARGET is the key's latest SUCCESS unless it was rolled back; LAST_RUN is the key's newest run "
                + "(a reload in progress, or a failure the target does not show).",
            "Exit codes: 0 listed, 1 the ledger refused, 2 bad input, 3 the ledger is unreachable."})
final class KeysCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Mixin
    LedgerOptions ledger;

    @Parameters(paramLabel = "JOB_KEY", description = "the job key")
    String jobKey;

    @Override
    public void run() {
        LedgerClient client = ledger.client(LedgerOptions.Role.READER);
        List<KeyHolders.Key> keys = ledger.call(client,
                c -> c.allKeyHolders(LedgerOptions.key("JOB_KEY", jobKey, JobKey::of)));
        ledger.print(spec.commandLine().getOut(), keys, out -> print(out, keys));
    }

    private void print(PrintWriter out, List<KeyHolders.Key> keys) {
        if (keys.isEmpty()) {
            out.println("No runs of job " + jobKey + ".");
            return;
        }
        Table table = new Table("BUSINESS_KEY", "IN_TARGET", "ROWS", "LOADED", "LAST_RUN", "LAST_STATUS");
        for (KeyHolders.Key key : keys) {
            String inTarget = key.inTargetRunId() != null ? key.inTargetRunId().toString()
                    : key.rolledBackRunId() != null ? "none (rolled back)" : "none";
            table.row(key.businessKey(), inTarget, key.inTargetRows(), RunsCommand.time(key.loadedAt()),
                    key.lastRunId(), RunsCommand.status(key.lastStatus(), key.lastTargetState()));
        }
        table.print(out);
    }
}

package io.loadgate.cli;

import io.loadgate.api.RunApi.RunFilter;
import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunStatus;
import io.loadgate.api.TargetState;
import io.loadgate.worker.ledger.LedgerClient;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code loadgate keys JOB_KEY}: per business key, the run whose rows the target holds now, and the key's last run. */
@Command(name = "keys", mixinStandardHelpOptions = true,
        description = "Lists a job's business keys with the run whose rows the target holds now.",
        footer = {"IN_TARGET is the key's latest SUCCESS unless it was rolled back; LAST_RUN is the key's newest run "
                + "(a reload in progress, or a failure the target does not show).",
            "Exit codes: 0 listed, 1 the ledger refused, 2 bad input, 3 the ledger is unreachable."})
final class KeysCommand implements Runnable {
    /** The ledger's largest page of runs: the keys of the newest this many runs are listed. */
    static final int MAX_RUNS = 1000;

    @Spec
    CommandSpec spec;

    @Mixin
    LedgerOptions ledger;

    @Parameters(paramLabel = "JOB_KEY", description = "the job key")
    String jobKey;

    /** A business key's row: the run in the target (null when none is) and the key's newest run. */
    record Key(String businessKey, RunView inTarget, RunView rolledBack, RunView last) {
    }

    @Override
    public void run() {
        LedgerClient client = ledger.client(LedgerOptions.Role.WORKER);
        List<RunView> runs = ledger.call(client, c -> c.listRuns(new RunFilter(jobKey, null, null, MAX_RUNS)));
        List<Key> keys = keys(runs);
        PrintWriter out = spec.commandLine().getOut();
        if (ledger.json) {
            out.println(LedgerOptions.toJson(keys.stream().map(KeysCommand::json).toList()));
        } else if (keys.isEmpty()) {
            out.println("No runs of job " + jobKey + ".");
        } else {
            Table table = new Table("BUSINESS_KEY", "IN_TARGET", "LOADED", "LAST_RUN", "LAST_STATUS");
            for (Key key : keys) {
                String inTarget = key.inTarget() != null ? key.inTarget().runId().toString()
                        : key.rolledBack() != null ? "none (rolled back)" : "none";
                table.row(key.businessKey(), inTarget,
                        RunsCommand.time(key.inTarget() == null ? null : key.inTarget().completedAt()),
                        key.last().runId(), RunsCommand.status(key.last()));
            }
            table.print(out);
            if (runs.size() == MAX_RUNS) {
                out.println("Only the keys of the newest " + MAX_RUNS + " runs are listed.");
            }
        }
        out.flush();
    }

    /** Runs newest first, as the ledger lists them, grouped by key in that order. */
    static List<Key> keys(List<RunView> runs) {
        Map<String, List<RunView>> byKey = new LinkedHashMap<>();
        for (RunView run : runs) {
            byKey.computeIfAbsent(run.businessKey(), k -> new ArrayList<>()).add(run);
        }
        List<Key> keys = new ArrayList<>();
        byKey.forEach((businessKey, of) -> keys.add(new Key(businessKey, first(of, TargetState.CURRENT),
                first(of, TargetState.ROLLED_BACK), of.get(0))));
        keys.sort(java.util.Comparator.comparing(Key::businessKey));
        return keys;
    }

    private static RunView first(List<RunView> runs, TargetState state) {
        return runs.stream().filter(r -> r.status() == RunStatus.SUCCESS && r.targetState() == state).findFirst()
                .orElse(null);
    }

    private static Map<String, Object> json(Key key) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("businessKey", key.businessKey());
        row.put("inTargetRunId", key.inTarget() == null ? null : key.inTarget().runId());
        row.put("loadedAt", key.inTarget() == null ? null : key.inTarget().completedAt());
        row.put("rolledBackRunId", key.inTarget() == null && key.rolledBack() != null ? key.rolledBack().runId() : null);
        row.put("lastRunId", key.last().runId());
        row.put("lastStatus", key.last().status());
        return row;
    }
}

package io.loadgate.worker.execution;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.RunApi.RunView;
import io.loadgate.api.RunId;
import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.job.JobSpecException;
import io.loadgate.worker.job.JobSpecLoader;
import io.loadgate.worker.ledger.LedgerClient;
import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Finds a run's job: the submitter put the job's YAML into the run's parameters, so a worker on any host reads the
 * same job the planner used, with no file to distribute. Cached per run; a run's job never changes.
 */
public final class RunContexts {
    private final LedgerClient ledger;
    private final Map<RunId, RunContext> cache = new ConcurrentHashMap<>();

    public RunContexts(LedgerClient ledger) {
        this.ledger = requireNonNull(ledger, "ledger is null");
    }

    public RunContext get(RunId runId) {
        return cache.computeIfAbsent(runId, id -> load(ledger.getRun(id)));
    }

    static RunContext load(RunView run) {
        JobSpec job = JobSpecLoader.parse(Path.of("run-" + run.runId() + ".yaml"), jobSpecText(run));
        return new RunContext(run.runId(), run.businessKey().value(), job, URI.create(run.hdfsRunPath()));
    }

    /** The job's YAML as the submitter sent it with the run, the job file's text. */
    public static String jobSpecText(RunView run) {
        Object yaml = run.parameters().get(RunContext.JOB_SPEC_PARAMETER);
        if (!(yaml instanceof String text)) {
            throw new JobSpecException("run " + run.runId() + " carries no job spec in its parameters."
                    + RunContext.JOB_SPEC_PARAMETER + "; it was not submitted by loadgate run");
        }
        return text;
    }

    /** Forgets runs that have ended, so a long-running worker does not keep every job it ever saw. */
    public void forget(RunId runId) {
        cache.remove(runId);
    }
}

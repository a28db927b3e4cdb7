package io.loadgate.worker.execution;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.RunId;
import io.loadgate.worker.job.JobSpec;
import java.net.URI;

/** What every step of a run needs to know: the run, its job, where it stages. */
public record RunContext(RunId runId, String businessKey, JobSpec job, URI hdfsRunPath) {
    /** The key under which the run carries its job spec (the job's YAML text) in its parameters. */
    public static final String JOB_SPEC_PARAMETER = "jobSpec";

    public RunContext {
        requireNonNull(runId, "runId is null");
        requireNonNull(businessKey, "businessKey is null");
        requireNonNull(job, "job is null");
        requireNonNull(hdfsRunPath, "hdfsRunPath is null");
    }
}

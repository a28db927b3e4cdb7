package io.loadgate.api;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.List;

/**
 * {@code GET /v1/jobs/{jobKey}/loaded-directories} (extension), one element per business key of the job that has a
 * SUCCESS run: its latest SUCCESS run (by completion) and the source directories that run loaded, in name order. The
 * directories are recorded in the transaction that made the run SUCCESS; a run that read no directory (a table
 * source, or a file key whose directories held no file) has none.
 */
public record LoadedKey(BusinessKey businessKey, RunId runId, Instant completedAt, List<String> directories) {
    public LoadedKey {
        requireNonNull(businessKey, "businessKey is null");
        requireNonNull(runId, "runId is null");
        requireNonNull(completedAt, "completedAt is null");
        directories = List.copyOf(requireNonNull(directories, "directories is null"));
    }
}

package io.loadgate.worker.publish;

import static java.util.Objects.requireNonNull;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * One publish of a run: replace the business key's partition of {@code target} with exactly {@code files}.
 *
 * @param businessKey the run's business key, which is also the value of the target's business-key column in
 *     every row of the files (for example {@code 2026-11-29} for a {@code date} column)
 * @param publishToken the token the run claimed with {@code publish/claim}; written into the snapshot so that
 *     a probe can later tell whether this attempt landed
 * @param fence the generation and deadline the commit is checked against, and the generation it records
 * @param files the ledger's file list for the run; empty means the business key's partition becomes empty
 */
public record PublishRequest(
        String runId, String jobKey, String businessKey, UUID publishToken, PublishFence fence, TargetTable target,
        List<StagedFile> files) {
    public PublishRequest {
        requireNonNull(runId, "runId is null");
        requireNonNull(jobKey, "jobKey is null");
        requireNonNull(businessKey, "businessKey is null");
        requireNonNull(publishToken, "publishToken is null");
        requireNonNull(fence, "fence is null");
        requireNonNull(target, "target is null");
        files = List.copyOf(requireNonNull(files, "files is null"));
        // Parsed once here so that a business key the column cannot hold is rejected as invalid input, not
        // discovered half-way through a publish.
        target.businessKeyValue(businessKey);
        Set<String> seen = new HashSet<>();
        for (StagedFile file : files) {
            // The same file twice would be two copies of its rows in the table.
            if (!seen.add(file.location())) {
                throw new IllegalArgumentException("file listed twice for run " + runId + ": " + file.location());
            }
        }
    }
}

package io.loadgate.worker.target;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.publish.PublishFence;
import io.loadgate.worker.publish.StagedFile;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;
import org.apache.iceberg.Schema;

/**
 * One publish of a run, as {@link Target#publish} takes it.
 *
 * @param publishToken the token the run claimed with {@code publish/claim}; recorded with the data so that a probe
 *     can later tell whether this attempt landed
 * @param fence the ledger's publish generation for the key and the deadline of this attempt
 * @param files the ledger's data files of the run; empty means the business key becomes empty
 * @param stagedColumns the staged files' columns (of a data chunk, else of a rejects chunk without its reason);
 *     throws when the run staged nothing; asked only by a target that needs them
 */
public record Publication(String runId, String businessKey, UUID publishToken, PublishFence fence,
                          List<StagedFile> files, Supplier<Schema> stagedColumns) {
    public Publication {
        requireNonNull(runId, "runId is null");
        requireNonNull(businessKey, "businessKey is null");
        requireNonNull(publishToken, "publishToken is null");
        requireNonNull(fence, "fence is null");
        files = List.copyOf(requireNonNull(files, "files is null"));
        requireNonNull(stagedColumns, "stagedColumns is null");
    }
}

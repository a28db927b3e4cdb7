package io.loadgate.worker.cleanup;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.RunId;
import io.loadgate.api.RunStatus;
import java.util.List;

/**
 * What cleanup did with one candidate run.
 *
 * @param kept files left in the run's path because the target table references them (or, for a skipped run,
 *     nothing: a skipped run is not listed)
 * @param deleted files deleted, or for {@link Outcome#DRY_RUN} the files that would be
 * @param deletedBytes their total size
 * @param directoryRemoved whether the run's directory is gone (it stays while it holds a kept file)
 * @param message why a run was skipped or failed; null otherwise
 */
public record RunCleanup(RunId runId, String jobKey, String businessKey, RunStatus status, String hdfsRunPath,
                         Outcome outcome, List<String> kept, List<String> deleted, long deletedBytes,
                         boolean directoryRemoved, String message) {
    public RunCleanup {
        requireNonNull(runId, "runId is null");
        requireNonNull(outcome, "outcome is null");
        kept = List.copyOf(requireNonNull(kept, "kept is null"));
        deleted = List.copyOf(requireNonNull(deleted, "deleted is null"));
    }

    public enum Outcome {
        /** Unreferenced files deleted, the emptied directory removed, and the ledger told. */
        CLEANED,
        /** Nothing deleted: the report says what would have been. */
        DRY_RUN,
        /** Nothing deleted because what the table references could not be learned (no job, no catalog). */
        SKIPPED,
        /** Deleting or telling the ledger failed part-way; the run stays a candidate for the next pass. */
        FAILED;

        /** Whether the pass did what it was asked for this run. */
        public boolean isDone() {
            return switch (this) {
                case CLEANED, DRY_RUN -> true;
                case SKIPPED, FAILED -> false;
            };
        }
    }
}

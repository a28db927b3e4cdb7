package io.loadgate.api;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.List;

/**
 * {@code GET /v1/jobs/{jobKey}/loaded-directories} (extension), one element per business key of the job that has a
 * SUCCESS run: its latest SUCCESS run (by completion) and the source directories that run loaded, in name order. The
 * directories are recorded in the transaction that made the run SUCCESS; a run that read no directory (a table
 * source, or a file key whose directories held no file) has none. {@code files} (extension): every file that run
 * read, as its manifest listed it (path under the source root, length, modification time), in path order, so that a
 * file changed after its key was loaded makes the key due again.
 */
public record LoadedKey(BusinessKey businessKey, RunId runId, Instant completedAt, List<String> directories,
                        List<LoadedFile> files) {
    public LoadedKey {
        requireNonNull(businessKey, "businessKey is null");
        requireNonNull(runId, "runId is null");
        requireNonNull(completedAt, "completedAt is null");
        directories = List.copyOf(requireNonNull(directories, "directories is null"));
        files = files == null ? List.of() : List.copyOf(files);
    }

    /** A file a SUCCESS run read: {@code d_20261130-1400/part-0.json}, its length and modification time (ms). */
    public record LoadedFile(String path, long length, long modificationTime) {
        public LoadedFile {
            requireNonNull(path, "path is null");
        }
    }
}

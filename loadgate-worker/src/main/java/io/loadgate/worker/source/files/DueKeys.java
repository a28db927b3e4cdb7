package io.loadgate.worker.source.files;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.LoadedKey;
import io.loadgate.worker.job.FileGrouping;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.fs.FileStatus;

/**
 * The watermark's decision: which keys of a file job are due. A key is due when one of its due directories holding a
 * file is not among the directories its latest SUCCESS run loaded (the ledger's loaded-directories); a directory
 * without files carries no data and decides nothing, so a directory Camus has created but not filled yet never makes
 * a key due, and once filled it does. A due key that had been loaded is late: its new directories are named. A key is
 * due too when, in a directory its latest SUCCESS loaded, a file was added or removed or has another length or
 * modification time than that run's manifest listed: its changed files are named. A directory that is gone entirely
 * changes nothing, and so does one emptied of its files: retention deletes old directories, and reloading their keys
 * would drop rows the target holds.
 */
public final class DueKeys {
    private DueKeys() {
    }

    /**
     * A due key: every due directory of it now ({@code directories}, oldest first, what its run will load), and, when
     * it had been loaded, the directories that run did not load ({@code late}) and the files of the directories it
     * did load that differ from what it read ({@code changed}, paths under the root, in path order); both empty for
     * a key never loaded.
     */
    public record DueKey(FileKey key, List<String> directories, List<String> late, List<String> changed) {
        public DueKey {
            requireNonNull(key, "key is null");
            directories = List.copyOf(directories);
            late = List.copyOf(late);
            changed = List.copyOf(changed);
        }
    }

    /** The due keys among {@code listed} (the source's due directories, oldest first), oldest key first. */
    public static List<DueKey> of(FileGrouping grouping, List<FileSource.SourceDirectory> listed,
                                  List<LoadedKey> loaded) {
        Map<String, LoadedKey> loadedByKey = new HashMap<>();
        for (LoadedKey key : loaded) {
            loadedByKey.put(key.businessKey().value(), key);
        }
        Map<FileKey, List<FileSource.SourceDirectory>> byKey = new LinkedHashMap<>();
        for (FileSource.SourceDirectory directory : listed) {
            if (!directory.files().isEmpty()) {
                byKey.computeIfAbsent(FileKey.of(grouping, directory.time()), k -> new ArrayList<>()).add(directory);
            }
        }
        List<DueKey> due = new ArrayList<>();
        byKey.entrySet().stream().sorted(Map.Entry.comparingByKey(
                java.util.Comparator.comparing(FileKey::start))).forEach(e -> {
                    LoadedKey done = loadedByKey.get(e.getKey().toString());
                    List<String> names = e.getValue().stream().map(FileSource.SourceDirectory::name).toList();
                    if (done == null) {
                        due.add(new DueKey(e.getKey(), names, List.of(), List.of()));
                        return;
                    }
                    Set<String> doneDirectories = Set.copyOf(done.directories());
                    List<String> late = names.stream().filter(d -> !doneDirectories.contains(d)).toList();
                    List<String> changed = changed(e.getValue().stream()
                            .filter(d -> doneDirectories.contains(d.name())).toList(), done);
                    if (!late.isEmpty() || !changed.isEmpty()) {
                        due.add(new DueKey(e.getKey(), names, late, changed));
                    }
                });
        return List.copyOf(due);
    }

    /** The files of {@code directories} (all loaded by {@code done}) added, removed or changed since it read them. */
    private static List<String> changed(List<FileSource.SourceDirectory> directories, LoadedKey done) {
        if (done.files().isEmpty()) {
            // A ledger that lists no files of the run says nothing about them: only new directories decide.
            return List.of();
        }
        Map<String, FileStatus> now = new HashMap<>();
        // A set of the listed names: a key of many directories would otherwise scan them once per file it loaded.
        Set<String> listedNames = new HashSet<>();
        for (FileSource.SourceDirectory directory : directories) {
            listedNames.add(directory.name());
            for (FileStatus file : directory.files()) {
                now.put(directory.name() + "/" + file.getPath().getName(), file);
            }
        }
        TreeSet<String> changed = new TreeSet<>(now.keySet());
        for (LoadedKey.LoadedFile file : done.files()) {
            FileStatus status = now.get(file.path());
            if (status != null && status.getLen() == file.length()
                    && status.getModificationTime() == file.modificationTime()) {
                changed.remove(file.path());
            } else if (status == null && listedNames.contains(directoryOf(file.path()))) {
                changed.add(file.path());
            }
        }
        return List.copyOf(changed);
    }

    /** The directory part of a manifest path ({@code directory/file}), or null for a path without one. */
    private static String directoryOf(String path) {
        int slash = path.indexOf('/');
        return slash > 0 ? path.substring(0, slash) : null;
    }
}

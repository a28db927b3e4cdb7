package io.loadgate.worker.source.files;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.LoadedKey;
import io.loadgate.worker.job.FileGrouping;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The watermark's decision: which keys of a file job are due. A key is due when one of its due directories holding a
 * file is not among the directories its latest SUCCESS run loaded (the ledger's loaded-directories); a directory
 * without files carries no data and decides nothing, so a directory Camus has created but not filled yet never makes
 * a key due, and once filled it does. A due key that had been loaded is late: its new directories are named.
 */
public final class DueKeys {
    private DueKeys() {
    }

    /**
     * A due key: every due directory of it now ({@code directories}, oldest first, what its run will load) and, when
     * it had been loaded, the ones that run did not load ({@code late}); empty {@code late} for a key never loaded.
     */
    public record DueKey(FileKey key, List<String> directories, List<String> late) {
        public DueKey {
            requireNonNull(key, "key is null");
            directories = List.copyOf(directories);
            late = List.copyOf(late);
        }
    }

    /** The due keys among {@code listed} (the source's due directories, oldest first), oldest key first. */
    public static List<DueKey> of(FileGrouping grouping, List<FileSource.SourceDirectory> listed,
                                  List<LoadedKey> loaded) {
        Map<String, Set<String>> loadedByKey = new HashMap<>();
        for (LoadedKey key : loaded) {
            loadedByKey.put(key.businessKey().value(), Set.copyOf(key.directories()));
        }
        Map<FileKey, List<String>> byKey = new LinkedHashMap<>();
        for (FileSource.SourceDirectory directory : listed) {
            if (!directory.files().isEmpty()) {
                byKey.computeIfAbsent(FileKey.of(grouping, directory.time()), k -> new ArrayList<>())
                        .add(directory.name());
            }
        }
        List<DueKey> due = new ArrayList<>();
        byKey.entrySet().stream().sorted(Map.Entry.comparingByKey(
                java.util.Comparator.comparing(FileKey::start))).forEach(e -> {
                    Set<String> done = loadedByKey.get(e.getKey().toString());
                    List<String> missing = e.getValue().stream().filter(d -> done == null || !done.contains(d))
                            .toList();
                    if (!missing.isEmpty()) {
                        due.add(new DueKey(e.getKey(), e.getValue(), done == null ? List.of() : missing));
                    }
                });
        return List.copyOf(due);
    }
}

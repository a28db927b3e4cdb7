package io.loadgate.cli;

import io.loadgate.worker.job.FilesSpec;
import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.job.JobSpecException;
import io.loadgate.worker.source.files.CamusLayout;
import io.loadgate.worker.source.files.FileKey;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Thrive's files of a file job's keys, read whole before any work: its partitions file (rollback: one key per line,
 * {@code 2015/10/03/19}) and its replaydirs file (replay: one {@code d_YYYYMMDD-HHMM} directory per line). Blank
 * lines and {@code #} comments are skipped; a line that is neither is refused with its line number. Keys come back
 * canonical ({@code 2015-10-03T19}), oldest first, once each.
 */
final class FileKeysInput {
    private FileKeysInput() {
    }

    /** The keys of a partitions file; the same key twice is one key (Thrive's file may repeat or skip hours). */
    static List<String> partitions(JobSpec job, Path file) {
        FilesSpec files = filesOf(job, "--partitions-file");
        TreeMap<LocalDateTime, String> keys = new TreeMap<>();
        read(file, "--partitions-file").forEach((number, text) -> {
            try {
                FileKey key = FileKey.parse(files.groupBy(), text);
                keys.put(key.start(), key.toString());
            } catch (JobSpecException e) {
                throw new CliException(file + " line " + number + ": " + e.getMessage(), LedgerOptions.EXIT_USAGE);
            }
        });
        return List.copyOf(keys.values());
    }

    /** The directories of a replaydirs file by key, each key's directories in name order. */
    static Map<FileKey, List<String>> directories(JobSpec job, Path file) {
        FilesSpec files = filesOf(job, "--dirs-file");
        Map<FileKey, List<String>> byKey = new TreeMap<>(java.util.Comparator.comparing(FileKey::start));
        read(file, "--dirs-file").forEach((number, text) -> {
            Optional<LocalDateTime> time = CamusLayout.time(text);
            if (time.isEmpty()) {
                throw new CliException(file + " line " + number + ": '" + text + "' is not a Camus directory name"
                        + " (d_YYYYMMDD-HHMM)", LedgerOptions.EXIT_USAGE);
            }
            FileKey key = FileKey.of(files.groupBy(), time.get());
            List<String> names = byKey.computeIfAbsent(key, k -> new ArrayList<>());
            if (!names.contains(text)) {
                names.add(text);
                names.sort(null);
            }
        });
        return byKey;
    }

    private static FilesSpec filesOf(JobSpec job, String option) {
        if (job.source().files() == null) {
            throw new CliException(option + " is for a job reading files (source.files); job " + job.jobKey()
                    + " reads a table", LedgerOptions.EXIT_USAGE);
        }
        return job.source().files();
    }

    /** The file's meaningful lines by line number. */
    private static Map<Integer, String> read(Path file, String option) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new CliException("cannot read " + option + " " + file + ": " + CliErrors.oneLine(e),
                    LedgerOptions.EXIT_USAGE);
        }
        Map<Integer, String> meaningful = new TreeMap<>();
        for (int i = 0; i < lines.size(); i++) {
            int hash = lines.get(i).indexOf('#');
            String text = (hash < 0 ? lines.get(i) : lines.get(i).substring(0, hash)).strip();
            if (!text.isEmpty()) {
                meaningful.put(i + 1, text);
            }
        }
        if (meaningful.isEmpty()) {
            throw new CliException(file + " holds no " + (option.equals("--dirs-file") ? "directories" : "keys"),
                    LedgerOptions.EXIT_USAGE);
        }
        return meaningful;
    }
}

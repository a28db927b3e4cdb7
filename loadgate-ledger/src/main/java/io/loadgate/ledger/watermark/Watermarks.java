package io.loadgate.ledger.watermark;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.BusinessKey;
import io.loadgate.api.LoadedKey;
import io.loadgate.api.RunId;
import io.loadgate.ledger.db.Database;
import io.loadgate.ledger.db.Tx;
import io.loadgate.ledger.run.RunRow;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

/**
 * The watermark of file sources: which directories each SUCCESS run loaded. The ledger derives them itself from the
 * run's manifest, when its SUCCESS is recorded, rather than take them from the caller of {@code success}: the manifest
 * is what the run was planned and read at, while a caller listing the source again could name a directory that
 * appeared after the snapshot and was never read.
 */
public final class Watermarks {
    /** The snapshotRef a file source plans under (the worker's FileSource); only such runs have directories. */
    static final String FILE_SNAPSHOT_PREFIX = "files:";

    private static final String SOURCE_REFS = """
            SELECT source_ref FROM load_partition WHERE run_id = ? AND source_ref IS NOT NULL ORDER BY partition_id
            """;
    private static final String INSERT = """
            INSERT INTO load_run_directory (run_id, job_key, business_key, directory, late) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT DO NOTHING
            """;
    // The key's SUCCESS before this one (the run being recorded is not SUCCESS yet) and the directories it loaded.
    private static final String PREVIOUS = """
            SELECT p.run_id, d.directory
              FROM (SELECT run_id FROM load_run WHERE job_key = ? AND business_key = ? AND status = 'SUCCESS'
                     ORDER BY completed_at DESC, run_id DESC LIMIT 1) p
              LEFT JOIN load_run_directory d ON d.run_id = p.run_id
            """;
    // Per key, its latest SUCCESS by completion (run id breaking a tie, so the answer is stable), with its directories.
    private static final String LOADED = """
            SELECT k.business_key, k.run_id, k.completed_at, d.directory
              FROM (SELECT DISTINCT ON (business_key) business_key, run_id, completed_at
                      FROM load_run WHERE job_key = ? AND status = 'SUCCESS'
                     ORDER BY business_key, completed_at DESC, run_id DESC) k
              LEFT JOIN load_run_directory d ON d.run_id = k.run_id
             ORDER BY k.business_key, d.directory
            """;

    // The files the given runs read (their ids comma-joined): their partitions' listings, as their manifests had them.
    private static final String LOADED_FILES = """
            SELECT p.run_id, p.source_ref
              FROM load_run r JOIN load_partition p ON p.run_id = r.run_id
             WHERE r.run_id = ANY (string_to_array(?, ',')::uuid[]) AND r.snapshot_ref LIKE '%s%%'
               AND p.source_ref IS NOT NULL
            """.formatted(FILE_SNAPSHOT_PREFIX);

    private final Database database;

    public Watermarks(Database database) {
        this.database = requireNonNull(database, "database is null");
    }

    /**
     * Records the directories {@code run} loaded; called in the transaction that moves it to SUCCESS, with its row
     * locked. A run not planned by a file source records nothing. A directory is late when the key had a SUCCESS
     * before, which did not load it: it appeared after its key was loaded ({@code loadgate_late_directories_total}).
     */
    public static void recordSuccess(Tx tx, RunRow run) throws SQLException {
        if (run.snapshotRef() == null || !run.snapshotRef().startsWith(FILE_SNAPSHOT_PREFIX)) {
            return;
        }
        TreeSet<String> directories = new TreeSet<>();
        for (String sourceRef : tx.query(SOURCE_REFS, rs -> rs.getString(1), run.runId())) {
            directories.addAll(directories(sourceRef));
        }
        List<String[]> previous = tx.query(PREVIOUS, rs -> new String[] {rs.getString(1), rs.getString(2)},
                run.jobKey(), run.businessKey());
        Set<String> loadedBefore = new HashSet<>();
        previous.stream().filter(p -> p[1] != null).forEach(p -> loadedBefore.add(p[1]));
        for (String directory : directories) {
            boolean late = !previous.isEmpty() && !loadedBefore.contains(directory);
            tx.update(INSERT, run.runId(), run.jobKey(), run.businessKey(), directory, late);
        }
    }

    /**
     * The directories a file partition's sourceRef names: its items are {@code path,length,mtime,lines} joined by
     * {@code ;}, each path relative to the source root with {@code %}, {@code ,} and {@code ;} percent-escaped, and a
     * file's directory is its path's first segment ({@code d_20261130-1400/part-0.gz}). A path without a directory
     * (a file at the root) names none.
     */
    static List<String> directories(String sourceRef) {
        List<String> directories = new ArrayList<>();
        for (LoadedKey.LoadedFile file : files(sourceRef)) {
            int slash = file.path().indexOf('/');
            if (slash > 0) {
                directories.add(file.path().substring(0, slash));
            }
        }
        return directories;
    }

    /** The files a file partition's sourceRef lists (see {@link #directories}), paths unescaped. */
    static List<LoadedKey.LoadedFile> files(String sourceRef) {
        List<LoadedKey.LoadedFile> files = new ArrayList<>();
        if (sourceRef.isEmpty()) {
            return files;
        }
        for (String item : sourceRef.split(";", -1)) {
            String[] fields = item.split(",", -1);
            String path = fields[0].replace("%3B", ";").replace("%2C", ",").replace("%25", "%");
            files.add(new LoadedKey.LoadedFile(path, fields.length > 1 ? number(fields[1]) : -1,
                    fields.length > 2 ? number(fields[2]) : -1));
        }
        return files;
    }

    /** A listing's number; -1 (never a file's length or time, so the file counts as changed) when it is none. */
    private static long number(String text) {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Every key of {@code jobKey} with a SUCCESS run: its latest one and the directories that run loaded. */
    public List<LoadedKey> loaded(String jobKey) {
        requireNonNull(jobKey, "jobKey is null");
        record Row(String businessKey, UUID runId, java.time.Instant completedAt, String directory) {
        }
        record Listing(UUID runId, String sourceRef) {
        }
        record Read(List<Row> rows, List<Listing> listings) {
        }
        // By the run ids the first query found: a SUCCESS recorded between the two reads changes nothing here.
        Read read = database.inTransaction(tx -> {
            List<Row> found = tx.query(LOADED, rs -> new Row(rs.getString("business_key"),
                    rs.getObject("run_id", UUID.class), Tx.instant(rs, "completed_at"), rs.getString("directory")),
                    jobKey);
            String runIds = String.join(",", found.stream().map(r -> r.runId().toString()).distinct().toList());
            return new Read(found, runIds.isEmpty() ? List.of() : tx.query(LOADED_FILES,
                    rs -> new Listing(rs.getObject(1, UUID.class), rs.getString(2)), runIds));
        });
        List<Row> rows = read.rows();
        Map<UUID, List<LoadedKey.LoadedFile>> files = new LinkedHashMap<>();
        for (Listing listing : read.listings()) {
            files.computeIfAbsent(listing.runId(), k -> new ArrayList<>()).addAll(files(listing.sourceRef()));
        }
        Map<UUID, List<String>> directories = new LinkedHashMap<>();
        Map<UUID, Row> runs = new LinkedHashMap<>();
        for (Row row : rows) {
            runs.putIfAbsent(row.runId(), row);
            List<String> names = directories.computeIfAbsent(row.runId(), k -> new ArrayList<>());
            if (row.directory() != null) {
                names.add(row.directory());
            }
        }
        return runs.values().stream().map(r -> new LoadedKey(BusinessKey.of(r.businessKey()), new RunId(r.runId()),
                r.completedAt(), directories.get(r.runId()), files.getOrDefault(r.runId(), List.<LoadedKey.LoadedFile>of())
                        .stream().sorted(java.util.Comparator.comparing(LoadedKey.LoadedFile::path)).toList()))
                .toList();
    }
}

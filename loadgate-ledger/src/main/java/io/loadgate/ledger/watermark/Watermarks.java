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
        if (sourceRef.isEmpty()) {
            return directories;
        }
        for (String item : sourceRef.split(";", -1)) {
            int comma = item.indexOf(',');
            String path = comma < 0 ? item : item.substring(0, comma);
            int slash = path.indexOf('/');
            if (slash > 0) {
                directories.add(path.substring(0, slash).replace("%3B", ";").replace("%2C", ",").replace("%25", "%"));
            }
        }
        return directories;
    }

    /** Every key of {@code jobKey} with a SUCCESS run: its latest one and the directories that run loaded. */
    public List<LoadedKey> loaded(String jobKey) {
        requireNonNull(jobKey, "jobKey is null");
        record Row(String businessKey, UUID runId, java.time.Instant completedAt, String directory) {
        }
        List<Row> rows = database.inTransaction(tx -> tx.query(LOADED, rs -> new Row(rs.getString("business_key"),
                rs.getObject("run_id", UUID.class), Tx.instant(rs, "completed_at"), rs.getString("directory")), jobKey));
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
                r.completedAt(), directories.get(r.runId()))).toList();
    }
}

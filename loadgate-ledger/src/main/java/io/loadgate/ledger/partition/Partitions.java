package io.loadgate.ledger.partition;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.DispatchApi;
import io.loadgate.api.DispatchType;
import io.loadgate.api.ErrorCode;
import io.loadgate.api.PartitionApi;
import io.loadgate.api.PartitionId;
import io.loadgate.api.PartitionStatus;
import io.loadgate.api.RunId;
import io.loadgate.api.RunStatus;
import io.loadgate.ledger.LedgerException;
import io.loadgate.ledger.LedgerSettings;
import io.loadgate.ledger.LedgerSettings.RecoveryMode;
import io.loadgate.ledger.db.Database;
import io.loadgate.ledger.db.Tx;
import io.loadgate.ledger.dispatch.Dispatches;
import io.loadgate.ledger.dispatch.Outbox;
import io.loadgate.ledger.event.EventLog;
import io.loadgate.ledger.run.RunRow;
import io.loadgate.ledger.run.RunTransitions;
import io.loadgate.ledger.run.SourceMetricsLater;
import io.loadgate.ledger.run.StagePath;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/** Partition ownership and the chunk reports that commit a partition's files. */
public final class Partitions {
    private static final String CLAIM = """
            UPDATE load_partition p
               SET status = 'RUNNING', claim_token = ?, worker_node = ?, attempt_count = attempt_count + 1,
                   heartbeat_at = now(), started_at = now(), rows_read = NULL, error_stage = NULL,
                   error_class = NULL, error_code = NULL, error_message = NULL
             WHERE run_id = ? AND partition_id = ? AND status IN ('PENDING', 'RETRY') AND attempt_count < ?
               AND EXISTS (SELECT 1 FROM load_run r WHERE r.run_id = p.run_id AND r.status = 'EXTRACTING')
            RETURNING attempt_count, (SELECT status FROM load_run r WHERE r.run_id = p.run_id) AS run_status
            """;
    private static final String READ = """
            SELECT p.status, p.claim_token, p.attempt_count, r.status AS run_status
              FROM load_partition p JOIN load_run r USING (run_id)
             WHERE p.run_id = ? AND p.partition_id = ?
            """;
    private static final String COMMITTED_CHUNK = """
            SELECT chunk_count, hdfs_path, record_count, byte_count, checksum, kind, lines_read, lines_skipped,
                   rows_emitted
              FROM load_file WHERE run_id = ? AND partition_id = ? AND chunk_index = ? AND status = 'COMMITTED'
            """;
    private static final String OTHER_CHUNK_COUNT = """
            SELECT chunk_count FROM load_file
             WHERE run_id = ? AND partition_id = ? AND status = 'COMMITTED' AND chunk_count <> ? LIMIT 1
            """;
    // A mapper's counts are the partition's, not the chunk's: every chunk of it must carry the same ones, or none.
    private static final String OTHER_MAPPER_COUNTS = """
            SELECT lines_read, lines_skipped, rows_emitted FROM load_file
             WHERE run_id = ? AND partition_id = ? AND status = 'COMMITTED'
               AND (lines_read, lines_skipped, rows_emitted) IS DISTINCT FROM (?::bigint, ?::bigint, ?::bigint)
             LIMIT 1
            """;
    private static final String INSERT_FILE = """
            INSERT INTO load_file (run_id, partition_id, chunk_index, chunk_count, claim_token, attempt,
                                   fragment_identifier, hdfs_path, record_count, byte_count, checksum, kind,
                                   lines_read, lines_skipped, rows_emitted)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """;
    private static final String HEARTBEAT = """
            UPDATE load_partition SET heartbeat_at = now()
             WHERE run_id = ? AND partition_id = ? AND claim_token = ? AND status = 'RUNNING'
            """;
    // Heartbeats of one attempt may arrive out of order (a beat retried after a lost answer lands after a later
    // one), so a count below the stored one is an old beat, not news: the WHERE clause keeps the count from
    // moving back. A new attempt starts from NULL (claim), so this never holds an earlier attempt's count up.
    private static final String RECORD_ROWS_READ = """
            UPDATE load_partition SET rows_read = ?
             WHERE run_id = ? AND partition_id = ? AND claim_token = ? AND status = 'RUNNING'
               AND (rows_read IS NULL OR rows_read <= ?)
            """;
    private static final String RUN_HEARTBEAT = "UPDATE load_run SET heartbeat_at = now() WHERE run_id = ?";
    // The run row first (lock order run, partition): only the partition's owner refreshes the run's heartbeat.
    private static final String OWNER_RUN_HEARTBEAT = """
            UPDATE load_run r SET heartbeat_at = now()
             WHERE r.run_id = ? AND EXISTS (SELECT 1 FROM load_partition p WHERE p.run_id = r.run_id
                                               AND p.partition_id = ? AND p.claim_token = ? AND p.status = 'RUNNING')
            """;
    private static final String CHUNK_TOTALS = """
            SELECT count(*) AS chunks, COALESCE(sum(record_count), 0) AS records
              FROM load_file WHERE run_id = ? AND partition_id = ? AND status = 'COMMITTED'
            """;
    private static final String MAPPER_COUNTS = """
            SELECT lines_read, lines_skipped, rows_emitted FROM load_file
             WHERE run_id = ? AND partition_id = ? AND status = 'COMMITTED' AND lines_read IS NOT NULL
             LIMIT 1
            """;
    private static final String FINISH_PARTITION = """
            UPDATE load_partition
               SET status = ?, actual_row_count = ?, lines_read = ?, lines_skipped = ?, rows_emitted = ?,
                   completed_at = now(), error_stage = ?, error_code = ?, error_message = ?
             WHERE run_id = ? AND partition_id = ? AND status = 'RUNNING' AND claim_token = ?
            """;
    private static final String FAIL_PARTITION = """
            UPDATE load_partition
               SET status = 'FAILED', completed_at = now(), error_stage = ?, error_class = ?, error_code = ?,
                   error_message = ?
             WHERE run_id = ? AND partition_id = ? AND status = 'RUNNING' AND claim_token = ?
            """;
    // lines: what the source's count is compared with, the lines a mapper read or else the rows themselves.
    private static final String RUN_TOTALS = """
            SELECT count(*) FILTER (WHERE status <> 'SUCCESS') AS unfinished,
                   COALESCE(sum(actual_row_count) FILTER (WHERE status = 'SUCCESS'), 0) AS extracted,
                   COALESCE(sum(COALESCE(lines_read, actual_row_count)) FILTER (WHERE status = 'SUCCESS'), 0) AS lines
              FROM load_partition WHERE run_id = ?
            """;
    private static final String RECORD_EXTRACTED = """
            UPDATE load_run SET extracted_count = ?, extract_completed_at = now() WHERE run_id = ?
            """;

    private static final String END_UNFINISHED = """
            WITH open AS (
                SELECT partition_id, status FROM load_partition
                 WHERE run_id = ? AND status IN ('PENDING', 'RUNNING', 'RETRY') FOR UPDATE)
            UPDATE load_partition p
               SET status = ?, completed_at = now(), error_stage = ?, error_code = ?, error_message = ?
              FROM open
             WHERE p.run_id = ? AND p.partition_id = open.partition_id
            RETURNING p.partition_id, open.status
            """;

    private final Database database;
    private final LedgerSettings settings;

    public Partitions(Database database, LedgerSettings settings) {
        this.database = requireNonNull(database, "database is null");
        this.settings = requireNonNull(settings, "settings is null");
    }

    public record ClaimResult(boolean claimed, RunStatus runStatus, PartitionStatus partitionStatus, int attempt) {
    }

    /**
     * PENDING/RETRY to RUNNING by compare-and-set: of many concurrent claimers exactly one wins. The winner's token
     * presented again wins again (its first response may have been lost); everyone else gets claimed=false.
     */
    public ClaimResult claim(RunId runId, PartitionId partitionId, PartitionApi.Claim claim) {
        UUID claimToken = claim.claimToken();
        String workerNode = claim.workerNode();
        return database.inTransaction(tx -> {
            Optional<ClaimResult> won = tx.queryOne(CLAIM, rs -> new ClaimResult(true,
                    RunStatus.valueOf(rs.getString("run_status")), PartitionStatus.RUNNING,
                    rs.getInt("attempt_count")), claimToken, workerNode, runId, partitionId, settings.maxAttempts());
            // A claim answers the partition's dispatch whether it wins or not: the winner takes the partition up, and
            // a loser's partition is owned, finished or closed, so redelivering the dispatch would change nothing.
            Outbox.ackOpen(tx, runId, DispatchType.REISSUE_PARTITION, partitionId.value());
            Outbox.ackOpen(tx, runId, DispatchType.EXTRACT_PARTITION, partitionId.value());
            if (won.isPresent()) {
                EventLog.append(tx, runId, partitionId.value(), "PARTITION_CLAIMED", null, PartitionStatus.RUNNING,
                        workerNode, Map.of("claimToken", claimToken.toString(), "attempt", won.get().attempt()));
                return won.get();
            }
            var current = tx.queryOne(READ, rs -> new ClaimState(PartitionStatus.valueOf(rs.getString(1)),
                    rs.getObject(2, UUID.class), rs.getInt(3), RunStatus.valueOf(rs.getString(4))), runId, partitionId);
            if (current.isEmpty()) {
                RunTransitions.read(tx, runId).orElseThrow(() -> RunTransitions.notFound(runId));
                throw partitionNotFound(runId, partitionId.value());
            }
            ClaimState row = current.get();
            boolean sameOwner = claimToken.equals(row.claimToken()) && row.status() == PartitionStatus.RUNNING
                    && row.runStatus() == RunStatus.EXTRACTING;
            return new ClaimResult(sameOwner, row.runStatus(), row.status(), row.attemptCount());
        });
    }

    /** A partition a claim did not win, as READ finds it: who owns it and its run's status. */
    private record ClaimState(PartitionStatus status, UUID claimToken, int attemptCount, RunStatus runStatus) {
    }

    /** A chunk already committed at an index, as COMMITTED_CHUNK reads it, for the identical-resend check. */
    private record CommittedChunk(int chunkCount, String hdfsPath, long recordCount, long byteCount, String checksum,
                                  String kind, MapperCounts mapper) {
        boolean sameAs(PartitionApi.ChunkReport report, String normalisedPath) {
            return chunkCount == report.chunkCount() && hdfsPath.equals(normalisedPath)
                    && recordCount == report.recordCount() && byteCount == report.byteCount()
                    && Objects.equals(checksum, report.checksum()) && kind.equals(report.kind().name())
                    && Objects.equals(mapper, MapperCounts.of(report));
        }
    }

    /** A mapper's counts for a partition, as its chunk reports carry them. */
    private record MapperCounts(long linesRead, long linesSkipped, long rowsEmitted) {
        /** The report's counts, or null when its rows are the source's own. */
        static MapperCounts of(PartitionApi.ChunkReport report) {
            return report.mapped()
                    ? new MapperCounts(report.linesRead(), report.linesSkipped(), report.rowsEmitted()) : null;
        }

        /** Columns {@code from}..{@code from+2} of {@code rs}, or null when they are NULL. */
        static MapperCounts read(ResultSet rs, int from) throws SQLException {
            long linesRead = rs.getLong(from);
            return rs.wasNull() ? null : new MapperCounts(linesRead, rs.getLong(from + 1), rs.getLong(from + 2));
        }
    }

    /** How many chunks a partition (or a run's partitions) has and their rows. */
    private record Totals(long count, long rows) {
    }

    /** A run's partitions not yet SUCCESS, and the rows and the source lines of those that are. */
    private record RunTotals(long unfinished, long rows, long lines) {
    }

    /** A partition that endUnfinished ended, and the status it left. */
    private record Ended(String partitionId, String fromStatus) {
    }

    public static LedgerException.NotFound partitionNotFound(RunId runId, String partitionId) {
        return new LedgerException.NotFound(ErrorCode.PARTITION_NOT_FOUND,
                "run " + runId + " has no partition " + partitionId);
    }

    /**
     * Records one chunk. The run row is locked first (lock order run, partition, file, dispatch), which serialises
     * the reports of a run: of two simultaneous last reports, the second sees the first's completion and its own
     * completion compare-and-set finds the run no longer EXTRACTING, so the VALIDATE_RUN dispatch is inserted once.
     */
    public PartitionApi.ChunkResult reportChunk(RunId runId, PartitionId partitionId, PartitionApi.ChunkReport report) {
        return reportChunk(runId, partitionId, report, null);
    }

    /**
     * {@link #reportChunk(RunId, PartitionId, PartitionApi.ChunkReport)}, where {@code requestId} names the report
     * across its attempts (its {@code X-Request-Id}): a resend of the report that completed the extraction is answered
     * with the VALIDATE_RUN dispatch handed to its caller, as the lost answer was.
     */
    public PartitionApi.ChunkResult reportChunk(RunId runId, PartitionId partitionId, PartitionApi.ChunkReport report,
                                                String requestId) {
        return database.inTransaction(tx -> {
            RunRow run = RunTransitions.lock(tx, runId);
            PartitionRow partition = lockPartition(tx, runId, partitionId.value());
            if (run.status().isTerminal()) {
                EventLog.append(tx, runId, partitionId.value(), "CHUNK_IGNORED", null, null, null, Map.of(
                        "reason", "run " + run.status(), "chunkIndex", report.chunkIndex(),
                        "hdfsPath", report.hdfsPath(), "claimToken", report.claimToken().toString()));
                return new PartitionApi.ChunkResult(false, partition.status(), run.status(), 0, report.chunkCount(),
                        false);
            }
            requireOwner(partition, report.claimToken());
            if (report.chunkIndex() < 0 || report.chunkIndex() >= report.chunkCount()) {
                throw new LedgerException.Invalid(ErrorCode.CHUNK_INDEX_OUT_OF_RANGE,
                        "chunkIndex " + report.chunkIndex()
                        + " is outside 0.." + (report.chunkCount() - 1));
            }
            StagePath runPath = StagePath.parse(run.hdfsRunPath());
            StagePath chunkPath;
            try {
                chunkPath = StagePath.parse(report.hdfsPath());
            } catch (IllegalArgumentException e) {
                throw new LedgerException.Invalid(ErrorCode.HDFS_PATH_OUTSIDE_RUN,
                        e.getMessage() + ": " + report.hdfsPath());
            }
            if (!runPath.strictlyContains(chunkPath)) {
                throw new LedgerException.Invalid(ErrorCode.HDFS_PATH_OUTSIDE_RUN, report.hdfsPath()
                        + " is not under the run path " + run.hdfsRunPath());
            }
            var existing = tx.queryOne(COMMITTED_CHUNK, rs -> new CommittedChunk(rs.getInt(1), rs.getString(2),
                    rs.getLong(3), rs.getLong(4), rs.getString(5), rs.getString(6), MapperCounts.read(rs, 7)), runId,
                    partitionId, report.chunkIndex());
            if (existing.isPresent()) {
                if (!existing.get().sameAs(report, chunkPath.toString())) {
                    throw chunkConflict(report, "chunk " + report.chunkIndex() + " is already recorded with "
                            + "other content");
                }
                return chunkResult(tx, run, runId, partitionId.value(), report, false, requestId);
            }
            if (partition.status() != PartitionStatus.RUNNING) {
                throw chunkConflict(report, "partition " + partitionId + " is " + partition.status()
                        + "; its files are final");
            }
            Optional<Integer> otherCount = tx.queryOne(OTHER_CHUNK_COUNT, rs -> rs.getInt(1), runId, partitionId,
                    report.chunkCount());
            if (otherCount.isPresent()) {
                throw chunkConflict(report, "chunkCount " + report.chunkCount() + " differs from the chunkCount "
                        + otherCount.get() + " already reported for this partition");
            }
            Optional<String> otherMapper = tx.queryOne(OTHER_MAPPER_COUNTS, rs -> describe(MapperCounts.read(rs, 1)),
                    runId, partitionId, report.linesRead(), report.linesSkipped(), report.rowsEmitted());
            if (otherMapper.isPresent()) {
                throw chunkConflict(report, "linesRead, linesSkipped and rowsEmitted differ from those already"
                        + " reported for this partition (" + otherMapper.get() + ")");
            }
            tx.update(INSERT_FILE, runId, partitionId, report.chunkIndex(), report.chunkCount(), report.claimToken(),
                    partition.attemptCount(), report.fragmentIdentifier(), chunkPath.toString(), report.recordCount(),
                    report.byteCount(), report.checksum(), report.kind().name(), report.linesRead(),
                    report.linesSkipped(), report.rowsEmitted());
            tx.update(HEARTBEAT, runId, partitionId, report.claimToken());
            tx.update(RUN_HEARTBEAT, runId);
            return chunkResult(tx, run, runId, partitionId.value(), report, true, requestId);
        });
    }

    private static LedgerException.Conflict chunkConflict(PartitionApi.ChunkReport report, String message) {
        return new LedgerException.Conflict(ErrorCode.CHUNK_CONFLICT,
                message, Map.of("chunkIndex", report.chunkIndex()));
    }

    private PartitionApi.ChunkResult chunkResult(Tx tx, RunRow run, RunId runId, String partitionId,
                                                 PartitionApi.ChunkReport report,
                                                 boolean inserted, String requestId) throws SQLException {
        Totals totals = tx.queryOne(CHUNK_TOTALS, rs -> new Totals(rs.getLong(1), rs.getLong(2)), runId, partitionId)
                .orElseThrow();
        long chunks = totals.count();
        PartitionStatus partitionStatus = PartitionStatus.RUNNING;
        RunStatus runStatus = run.status();
        boolean validationScheduled = false;
        if (inserted && chunks == report.chunkCount()) {
            PartitionRow partition = lockPartition(tx, runId, partitionId);
            MapperCounts mapper = tx.queryOne(MAPPER_COUNTS, rs -> MapperCounts.read(rs, 1), runId, partitionId)
                    .orElse(null);
            String mismatch = countMismatch(partition, totals.rows(), mapper);
            if (mismatch == null) {
                finishPartition(tx, runId, partitionId, report.claimToken(), PartitionStatus.SUCCESS, totals.rows(),
                        mapper, null);
                partitionStatus = PartitionStatus.SUCCESS;
                Completion completion = completeExtractionIfLast(tx, run);
                runStatus = completion.runStatus();
                validationScheduled = completion.validationScheduled();
            } else {
                String message = "partition " + partitionId + " " + mismatch;
                finishPartition(tx, runId, partitionId, report.claimToken(), PartitionStatus.FAILED, totals.rows(),
                        mapper, message);
                partitionStatus = PartitionStatus.FAILED;
                RunTransitions.transition(tx, runId, RunStatus.EXTRACTING, RunStatus.FAILED_EXTRACT,
                        new RunTransitions.Failure("EXTRACT", "ROW_COUNT_MISMATCH", message), "ledger");
                runStatus = RunTransitions.read(tx, runId).orElseThrow().status();
            }
        } else if (!inserted) {
            partitionStatus = lockPartition(tx, runId, partitionId).status();
        }
        // The reporter's node runs the validation itself: leased to it here, no poll waits for the outbox's notice.
        DispatchApi.LeasedDispatch next = runStatus != RunStatus.EXTRACTED_VALIDATED ? null
                : Dispatches.handOff(tx, runId, DispatchType.VALIDATE_RUN, report.handOffTo(), requestId).orElse(null);
        return new PartitionApi.ChunkResult(true, partitionStatus, runStatus, Math.toIntExact(chunks),
                report.chunkCount(), validationScheduled, next);
    }

    /**
     * Why a partition's chunks do not account for its source, or null when they do. Without a mapper the chunks'
     * rows are the expected rows; with one, the lines it read are the expected rows (the lines counted at
     * planning) and the chunks' rows, staged or rejected, are the rows it emitted.
     */
    private static String countMismatch(PartitionRow partition, long rows, MapperCounts mapper) {
        if (mapper == null) {
            return rows == partition.expectedRowCount() ? null
                    : "staged " + rows + " rows, expected " + partition.expectedRowCount();
        }
        if (mapper.linesRead() != partition.expectedRowCount()) {
            return "had " + mapper.linesRead() + " lines read by its mapper, expected " + partition.expectedRowCount();
        }
        return rows == mapper.rowsEmitted() ? null
                : "staged and rejected " + rows + " rows, its mapper emitted " + mapper.rowsEmitted();
    }

    private static String describe(MapperCounts mapper) {
        return mapper == null ? "none" : mapper.linesRead() + " lines read, " + mapper.linesSkipped() + " skipped, "
                + mapper.rowsEmitted() + " rows emitted";
    }

    private static void finishPartition(Tx tx, RunId runId, String partitionId, UUID token, PartitionStatus to,
                                        long rows, MapperCounts mapper, String message) throws SQLException {
        int updated = tx.update(FINISH_PARTITION, to, rows, mapper == null ? null : mapper.linesRead(),
                mapper == null ? null : mapper.linesSkipped(), mapper == null ? null : mapper.rowsEmitted(),
                message == null ? null : "EXTRACT", message == null ? null : "ROW_COUNT_MISMATCH", message, runId,
                partitionId, token);
        if (updated != 1) {
            throw new IllegalStateException("finishing a locked RUNNING partition changed " + updated + " rows");
        }
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("rows", rows);
        if (mapper != null) {
            details.put("linesRead", mapper.linesRead());
            details.put("linesSkipped", mapper.linesSkipped());
            details.put("rowsEmitted", mapper.rowsEmitted());
        }
        if (message != null) {
            details.put("message", message);
        }
        EventLog.append(tx, runId, partitionId, "PARTITION_STATUS", PartitionStatus.RUNNING, to, null, details);
    }

    private record Completion(RunStatus runStatus, boolean validationScheduled) {
    }

    /** The completion compare-and-set: the one report that finishes the last partition moves the run on. */
    private static Completion completeExtractionIfLast(Tx tx, RunRow run) throws SQLException {
        RunTotals totals = tx.queryOne(RUN_TOTALS, rs -> new RunTotals(rs.getLong(1), rs.getLong(2), rs.getLong(3)),
                run.runId()).orElseThrow();
        if (totals.unfinished() > 0) {
            return new Completion(run.status(), false);
        }
        if (run.sourceCount() == null || totals.lines() != run.sourceCount()) {
            String message = totals.lines() == totals.rows()
                    ? "partitions staged " + totals.rows() + " rows but the source has " + run.sourceCount()
                    : "partitions read " + totals.lines() + " lines but the source has " + run.sourceCount();
            RunTransitions.transition(tx, run.runId(), RunStatus.EXTRACTING, RunStatus.FAILED_EXTRACT,
                    new RunTransitions.Failure("EXTRACT", "ROW_COUNT_MISMATCH", message), "ledger");
            return new Completion(RunStatus.FAILED_EXTRACT, false);
        }
        if (!RunTransitions.transition(tx, run.runId(), RunStatus.EXTRACTING, RunStatus.EXTRACTED_VALIDATED, null,
                "ledger", Map.of("extractedCount", totals.rows()))) {
            return new Completion(RunTransitions.read(tx, run.runId()).orElseThrow().status(), false);
        }
        tx.update(RECORD_EXTRACTED, totals.rows(), run.runId());
        // Source metrics still awaited: their arrival schedules the validation (SourceMetricsLater).
        return new Completion(RunStatus.EXTRACTED_VALIDATED, SourceMetricsLater.scheduleValidation(tx, run));
    }

    private static PartitionRow lockPartition(Tx tx, RunId runId, String partitionId) throws SQLException {
        return tx.queryOne(PartitionRow.LOCK, PartitionRow::map, runId, partitionId)
                .orElseThrow(() -> partitionNotFound(runId, partitionId));
    }

    private static void requireOwner(PartitionRow partition, UUID claimToken) {
        if (!claimToken.equals(partition.claimToken())) {
            throw new LedgerException.Conflict(ErrorCode.CLAIM_MISMATCH, "claim token " + claimToken
                    + " does not own partition " + partition.partitionId(),
                    Map.of("partitionStatus", partition.status().name()));
        }
    }

    /**
     * A worker gives up its partition. The run fails (FAILED_SNAPSHOT_EXPIRED when the snapshot is gone), except
     * in REISSUE mode for a transient error with attempts left, where the partition is reissued at the same snapshot.
     */
    public PartitionApi.FailResult fail(RunId runId, PartitionId partitionId, PartitionApi.PartitionFailure failure) {
        return database.inTransaction(tx -> {
            RunRow run = RunTransitions.lock(tx, runId);
            PartitionRow partition = lockPartition(tx, runId, partitionId.value());
            requireOwner(partition, failure.claimToken());
            if (partition.status() == PartitionStatus.FAILED || partition.status() == PartitionStatus.RETRY) {
                return new PartitionApi.FailResult(partition.status(), run.status(), false);
            }
            if (partition.status() != PartitionStatus.RUNNING) {
                throw new LedgerException.Conflict(ErrorCode.PARTITION_STATUS_MISMATCH,
                        "partition " + partitionId + " is "
                        + partition.status() + ", not RUNNING", Map.of("partitionStatus", partition.status().name()));
            }
            if (run.recoveryMode(settings) == RecoveryMode.REISSUE && isTransient(failure) && !isSnapshotLoss(failure)
                    && partition.attemptCount() < settings.maxAttempts() && run.status() == RunStatus.EXTRACTING) {
                Reissue.reissue(tx, run, partitionId.value(), PartitionStatus.RUNNING, failure.errorCode(), "worker");
                return new PartitionApi.FailResult(PartitionStatus.RETRY, run.status(), true);
            }
            tx.update(FAIL_PARTITION, failure.errorStage(), failure.errorClass(), failure.errorCode(),
                    failure.message(), runId, partitionId, failure.claimToken());
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("errorClass", failure.errorClass());
            details.put("errorCode", failure.errorCode());
            details.put("message", failure.message());
            EventLog.append(tx, runId, partitionId.value(), "PARTITION_STATUS", PartitionStatus.RUNNING,
                    PartitionStatus.FAILED, null, details);
            RunStatus failStatus = isSnapshotLoss(failure) ? RunStatus.FAILED_SNAPSHOT_EXPIRED
                    : RunStatus.FAILED_EXTRACT;
            boolean moved = RunTransitions.transition(tx, runId, RunStatus.EXTRACTING, failStatus,
                    new RunTransitions.Failure(failure.errorStage() == null ? "EXTRACT" : failure.errorStage(),
                            failure.errorCode(), "partition " + partitionId + ": " + failure.message()), "worker");
            return new PartitionApi.FailResult(PartitionStatus.FAILED, moved ? failStatus : run.status(), true);
        });
    }

    /**
     * Ends every unfinished partition of a run that was ended from outside as {@code ending}: FAILED when an
     * operator cancelled it or its submitter lost the snapshot, TIMED_OUT when the sweeper gave up on it. The caller
     * holds the run row (lock order run, partition). A RUNNING partition's owner learns it from its next heartbeat,
     * which no longer finds the partition RUNNING, and stops writing.
     *
     * @return how many partitions were ended
     */
    public static int endUnfinished(Tx tx, RunId runId, PartitionStatus ending, String stage, String code,
                                    String message, String actor) throws SQLException {
        if (ending != PartitionStatus.FAILED && ending != PartitionStatus.TIMED_OUT) {
            throw new IllegalArgumentException("a run ended from outside ends its partitions FAILED or TIMED_OUT, not "
                    + ending);
        }
        var ended = tx.query(END_UNFINISHED, rs -> new Ended(rs.getString(1), rs.getString(2)), runId,
                ending.name(), stage, code, message, runId);
        for (Ended p : ended) {
            EventLog.append(tx, runId, p.partitionId(), "PARTITION_STATUS", p.fromStatus(), ending, actor,
                    Map.of("errorCode", code));
        }
        return ended.size();
    }

    /** Keeps the owner's claim alive and records how far it has read, when the beat says. */
    public PartitionApi.HeartbeatResult heartbeat(RunId runId, PartitionId partitionId,
                                                  PartitionApi.PartitionHeartbeat beat) {
        return database.inTransaction(tx -> {
            if (tx.update(OWNER_RUN_HEARTBEAT, runId, partitionId, beat.claimToken()) == 1
                    && tx.update(HEARTBEAT, runId, partitionId, beat.claimToken()) == 1) {
                if (beat.rowsRead() != null) {
                    // Zero rows is a late beat with a smaller count: the stored one stands.
                    tx.update(RECORD_ROWS_READ, beat.rowsRead(), runId, partitionId, beat.claimToken(),
                            beat.rowsRead());
                }
                return new PartitionApi.HeartbeatResult(PartitionStatus.RUNNING,
                        RunTransitions.read(tx, runId).orElseThrow().status());
            }
            RunRow run = RunTransitions.read(tx, runId).orElseThrow(() -> RunTransitions.notFound(runId));
            PartitionRow partition = tx.queryOne(PartitionRow.LOCK, PartitionRow::map, runId, partitionId)
                    .orElseThrow(() -> partitionNotFound(runId, partitionId.value()));
            requireOwner(partition, beat.claimToken());
            return new PartitionApi.HeartbeatResult(partition.status(), run.status());
        });
    }

    /** The snapshot the run reads at is gone: re-reading would see another point in time, so the run fails. */
    private static boolean isSnapshotLoss(PartitionApi.PartitionFailure failure) {
        return "SNAPSHOT".equals(failure.errorClass()) || "ORA-01555".equals(failure.errorCode())
                || "ORA-08180".equals(failure.errorCode());
    }

    private static boolean isTransient(PartitionApi.PartitionFailure failure) {
        return "TRANSIENT".equals(failure.errorClass());
    }
}

package io.loadgate.worker.execution;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.ChunkKind;
import io.loadgate.api.DispatchApi.LeasedDispatch;
import io.loadgate.api.ErrorCode;
import io.loadgate.api.PartitionApi.ChunkReport;
import io.loadgate.api.PartitionApi.ChunkResult;
import io.loadgate.api.PartitionApi.Claim;
import io.loadgate.api.PartitionApi.PartitionFailure;
import io.loadgate.api.PartitionId;
import io.loadgate.api.RunId;
import io.loadgate.worker.ledger.LedgerCallException;
import io.loadgate.worker.ledger.Messages;
import io.loadgate.worker.metrics.StepOutcome;
import io.loadgate.worker.metrics.WorkerMetrics;
import io.loadgate.worker.source.Partition;
import io.loadgate.worker.source.PartitionRows;
import io.loadgate.worker.source.SnapshotExpiredException;
import io.loadgate.worker.source.SourceException;
import io.loadgate.worker.staging.ChunkNaming;
import io.loadgate.worker.staging.ChunkWriter;
import io.loadgate.worker.staging.RejectsWriter;
import io.loadgate.worker.staging.SourceRecords;
import io.loadgate.worker.staging.SourceSchemas;
import io.loadgate.worker.staging.StagedChunk;
import io.loadgate.worker.transform.MapperCounts;
import io.loadgate.worker.transform.MapperFailedException;
import io.loadgate.worker.transform.TransformChain;
import io.loadgate.worker.transform.TransformedRows;
import io.micrometer.core.instrument.Counter;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * EXTRACT_PARTITION and REISSUE_PARTITION: claim the partition, read it at the run's snapshot, write its chunks
 * under names that carry the attempt and claim token, then report each closed chunk. The ledger's record of a
 * chunk is its commit; nothing is renamed. Whatever goes wrong is reported as the partition's failure, with the
 * error class the ledger needs to decide between failing the run and reissuing the partition.
 */
public final class ExtractStep {
    private static final Logger LOG = LoggerFactory.getLogger(ExtractStep.class);

    private final WorkerContext context;
    private final Optional<EarlyMeasurements> early;
    private final Optional<Consumer<LeasedDispatch>> handOff;

    /** A step for another engine's attempts (a Spark task), whose process does not validate the run. */
    public ExtractStep(WorkerContext context) {
        this(context, Optional.empty(), Optional.empty());
    }

    /**
     * A worker's step, having its partition's chunks measured for the run's validation while it reports them. With
     * {@code handOff}, the partition's last report asks the ledger for the run's validation should it complete the
     * extraction, and the step gives what the ledger handed it to {@code handOff}: the worker runs it on this thread
     * once this step has ended.
     */
    ExtractStep(WorkerContext context, Optional<EarlyMeasurements> early, Optional<Consumer<LeasedDispatch>> handOff) {
        this.context = requireNonNull(context, "context is null");
        this.early = requireNonNull(early, "early is null");
        this.handOff = requireNonNull(handOff, "handOff is null");
    }

    /**
     * Who claims a partition: the claim's token (one per attempt), the node the ledger records as its owner, and the
     * writer its chunk names carry ({@link ChunkNaming#writer()}, empty for a Loadgate worker).
     */
    public record Claimant(UUID claimToken, String node, String writer) {
        public Claimant {
            requireNonNull(claimToken, "claimToken is null");
            requireNonNull(node, "node is null");
            requireNonNull(writer, "writer is null");
        }
    }

    StepOutcome run(LeasedDispatch dispatch) {
        return extract(dispatch.runId(), partition(dispatch), (String) dispatch.payload().get("snapshotRef"),
                new Claimant(UUID.randomUUID(), context.node(), ""));
    }

    /**
     * Claims {@code partition} for {@code claimant} and, when the claim is won, extracts it at {@code snapshotRef} and
     * reports its chunks. SKIPPED: the claim was not won, or was lost while extracting (the files written are left for
     * cleanup); FAILED: the failure was reported to the ledger. Another engine (a Spark task) calls this for its own
     * attempt, with a claimant of that attempt.
     *
     * @throws LedgerCallException when the ledger could not be told
     * @throws Error an Error of the extraction, after it was reported as the partition's failure
     */
    public StepOutcome extract(RunId runId, Partition partition, String snapshotRef, Claimant claimant) {
        RunContext run = context.shared().runs().get(runId);
        PartitionId partitionId = PartitionId.of(partition.partitionId());
        PartitionOpening opening = PartitionOpening.start(() -> context.shared().sources()
                .forRun(run.runId(), run.job()).readPartition(snapshotRef, partition, run.businessKey()));
        try {
            return extract(run, partition, partitionId, opening, claimant);
        } finally {
            // A no-op once the rows were handed to the writer, which closes them.
            opening.discard();
        }
    }

    private StepOutcome extract(RunContext run, Partition partition, PartitionId partitionId, PartitionOpening opening,
                                Claimant claimant) {
        UUID token = claimant.claimToken();
        var claim = context.ledger().claim(run.runId(), partitionId, new Claim(token, claimant.node()));
        if (!claim.claimed()) {
            LOG.debug("partition {}/{} not claimed: {} / {}", run.runId(), partition.partitionId(),
                    claim.runStatus(), claim.partitionStatus());
            return StepOutcome.SKIPPED;
        }
        Written written;
        ChunkResult reported;
        try (Heartbeat heartbeat = Heartbeat.start(context, run.runId(), partitionId, token,
                claim.heartbeatIntervalMillis())) {
            written = write(run, partition, opening, claim.attempt(), claimant, heartbeat);
            if (written.chunks().isEmpty()) {
                return fail(run, partition, token, claim.attempt(), "DATA", "ROW_COUNT_MISMATCH",
                        "the partition read no rows but expected " + partition.expectedRowCount());
            }
            measureMeanwhile(run, written);
            reported = report(run, partition, token, written);
        } catch (ClaimLostException e) {
            LOG.warn("partition {}/{} was taken from this worker (reissued or cancelled); its files are left for cleanup",
                    run.runId(), partition.partitionId());
            return StepOutcome.SKIPPED;
        } catch (SnapshotExpiredException e) {
            return fail(run, partition, token, claim.attempt(), "SNAPSHOT", "SNAPSHOT_EXPIRED", e.getMessage());
        } catch (SourceException e) {
            return fail(run, partition, token, claim.attempt(), "SOURCE", "SOURCE_ERROR", e.getMessage());
        } catch (TransformException e) {
            return fail(run, partition, token, claim.attempt(), "DATA", "TRANSFORM_INVALID", e.getMessage());
        } catch (MapperFailedException e) {
            return fail(run, partition, token, claim.attempt(), "TRANSFORM", e.reason().name(), e.getMessage());
        } catch (java.io.UncheckedIOException e) {
            return fail(run, partition, token, claim.attempt(), "TRANSIENT", "STAGING_IO", e.getMessage());
        } catch (LedgerCallException e) {
            throw e;
        } catch (RuntimeException e) {
            return fail(run, partition, token, claim.attempt(), "WORKER", e.getClass().getSimpleName(),
                    e.getMessage());
        } catch (Error e) {
            // Reported like any failure of the attempt, then thrown on: the caller (the worker, or a Spark task)
            // decides what an Error means for the process.
            fail(run, partition, token, claim.attempt(), "WORKER", StepErrors.code(e), StepErrors.message(e));
            throw e;
        }
        if (reported.nextDispatch() != null) {
            // This report completed the extraction and the ledger handed the run's validation to this node: this
            // thread runs it next, taking over the files measured meanwhile, without a lease's round trip (13–85 ms
            // on the bench's 1,000,000-row loads while the worker's other thread still measured, 2026-12-05).
            handOff.orElseThrow().accept(reported.nextDispatch());
        }
        return StepOutcome.OK;
    }

    /**
     * Has the written data chunks' staging metrics taken on another thread while this one reports them, for the run's
     * validation ({@link EarlyMeasurements}): while other partitions still extract, or, after the last partition,
     * while its reports and the validation's start go to the ledger and back (~20 ms) rather than after them. It
     * runs beside the worker's threads, so no step waits for it but the validation that takes its file.
     * Not for a file source's chunks nor a partition with rejects: their validation measures data and rejects together.
     */
    private void measureMeanwhile(RunContext run, Written written) {
        if (early.isEmpty() || run.job().source().isFiles()
                || written.chunks().stream().anyMatch(c -> c.kind() != ChunkKind.DATA)) {
            return;
        }
        early.get().measureMeanwhile(run.runId(), written.chunks().stream().map(ChunkToReport::chunk).toList(),
                run.job().validation());
    }

    /**
     * Writes the partition's data chunks and, when its transforms rejected rows, the rejects file as the last chunk:
     * every source row is in exactly one of them, so the ledger's row count covers both.
     */
    private Written write(RunContext run, Partition partition, PartitionOpening opening, int attempt,
                          Claimant claimant, Heartbeat heartbeat) {
        try (PartitionRows rows = opening.rows()) {
            Schema schema = SourceSchemas.toIceberg(rows.columns());
            TransformChain transforms;
            try {
                transforms = TransformChain.bind(run.job(), schema, context.shared().sources().environment());
            } catch (IllegalArgumentException e) {
                throw new TransformException(e.getMessage());
            }
            ChunkNaming naming = new ChunkNaming(partition.partitionId(), attempt, claimant.claimToken(),
                    claimant.writer());
            ChunkWriter writer = new ChunkWriter(context.hadoop(), run.hdfsRunPath(), schema, run.job().staging());
            WorkerMetrics metrics = context.shared().metrics();
            String job = run.job().jobKey();
            try (RejectsWriter rejects = rows.rejectsLines()
                    ? RejectsWriter.forLines(context.hadoop(), run.hdfsRunPath(), schema, run.job().staging(), naming)
                    : new RejectsWriter(context.hadoop(), run.hdfsRunPath(), schema, run.job().staging(), naming)) {
                if (rows.rejectsLines()) {
                    Counter rejectedLines = metrics.rowsRejected(job);
                    rows.rejectLinesTo((line, reason) -> {
                        rejectedLines.increment();
                        rejects.addLine(line, reason);
                    });
                }
                Counter extracted = metrics.rowsExtracted(job);
                List<StagedChunk> data;
                if (transforms.isEmpty() && !rows.rejectsLines() && writer.writesPrimitives()
                        && rows.primitiveRow().isPresent()) {
                    // The rows go to the files as they are: no record between (the same files).
                    data = writer.writePrimitivePartition(naming,
                            whileOwned(counted(heartbeat.counting(SourceRecords.primitives(rows)), extracted), heartbeat));
                } else {
                    // Counted before the transforms: a rejected row was read too, and is one of the partition's rows.
                    Iterator<Record> records = counted(heartbeat.counting(SourceRecords.of(schema, rows)), extracted);
                    if (!transforms.isEmpty()) {
                        Counter rejected = metrics.rowsRejected(job);
                        records = TransformedRows.of(records, transforms, (row, reason) -> {
                            rejected.increment();
                            rejects.add(row, reason);
                        });
                    }
                    data = writer.writePartition(naming, whileOwned(records, heartbeat));
                }
                List<ChunkToReport> chunks = new ArrayList<>();
                data.forEach(chunk -> chunks.add(new ChunkToReport(chunk, ChunkKind.DATA)));
                MapperCounts mapper = rows.mapperCounts().orElse(null);
                if (chunks.isEmpty() && mapper != null) {
                    // The mapper gave no row for any line (each skipped, with its reason): the partition holds no
                    // row, which an empty rejects chunk reports; without a mapper no rows for expected lines is
                    // a mismatch, and the step fails the partition.
                    chunks.add(new ChunkToReport(rejects.finishEvenIfEmpty(0), ChunkKind.REJECTS));
                } else {
                    rejects.finish(chunks.size())
                            .ifPresent(chunk -> chunks.add(new ChunkToReport(chunk, ChunkKind.REJECTS)));
                }
                chunks.forEach(c -> metrics.chunkWritten(job, c.chunk().byteCount()));
                if (mapper != null) {
                    LOG.info("partition {}/{}: the mapper read {} lines, skipped {} {}, emitted {} rows", run.runId(),
                            partition.partitionId(), mapper.linesRead(), mapper.linesSkipped(),
                            mapper.skipReasons(), mapper.rowsEmitted());
                }
                return new Written(chunks, mapper);
            }
        }
    }

    private record ChunkToReport(StagedChunk chunk, ChunkKind kind) {
    }

    /** A partition's chunks, and what its mapper did when the job has one (else null). */
    private record Written(List<ChunkToReport> chunks, MapperCounts mapper) {
    }

    /**
     * Counts rows as they are read, so a long partition shows progress before its chunks are reported. The counter is
     * told every few thousand rows rather than per row: a per-row increment is a shared-memory write on the hot path.
     */
    private static <T> Iterator<T> counted(Iterator<T> records, Counter counter) {
        return new Iterator<>() {
            private static final int FLUSH_EVERY = 4096;
            private int pending;

            @Override
            public boolean hasNext() {
                boolean more = records.hasNext();
                if (!more) {
                    flush();
                }
                return more;
            }

            @Override
            public T next() {
                T record = records.next();
                if (++pending == FLUSH_EVERY) {
                    flush();
                }
                return record;
            }

            private void flush() {
                if (pending > 0) {
                    counter.increment(pending);
                    pending = 0;
                }
            }
        };
    }

    /**
     * Stops the rows as soon as the heartbeat learns the partition was reissued to someone else, or its beats ended
     * with an Error (thrown here, to be reported as the partition's failure).
     */
    private static <T> Iterator<T> whileOwned(Iterator<T> records, Heartbeat heartbeat) {
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                heartbeat.checkAlive();
                if (heartbeat.lost()) {
                    throw new ClaimLostException();
                }
                return records.hasNext();
            }

            @Override
            public T next() {
                return records.next();
            }
        };
    }

    /** Reports each chunk; returns the ledger's answer to the last report. */
    private ChunkResult report(RunContext run, Partition partition, UUID token, Written written) {
        List<ChunkToReport> chunks = written.chunks();
        MapperCounts mapper = written.mapper();
        ChunkResult result = null;
        for (int i = 0; i < chunks.size(); i++) {
            ChunkToReport toReport = chunks.get(i);
            StagedChunk chunk = toReport.chunk();
            try {
                // Every chunk carries the mapper's counts: the ledger judges them with whichever report is last.
                ChunkReport report = new ChunkReport(token, chunk.chunkIndex(), chunks.size(), partition.partitionId(),
                        chunk.path().toString(), chunk.recordCount(), chunk.byteCount(), chunk.checksum(),
                        toReport.kind(), mapper == null ? null : mapper.linesRead(),
                        mapper == null ? null : mapper.linesSkipped(), mapper == null ? null : mapper.rowsEmitted());
                // Only the partition's last report can complete the run's extraction.
                if (handOff.isPresent() && i == chunks.size() - 1) {
                    report = report.handingOffTo(context.node());
                }
                result = context.ledger().reportChunk(run.runId(), PartitionId.of(partition.partitionId()), report);
            } catch (LedgerCallException e) {
                if (e.is(ErrorCode.CLAIM_MISMATCH)) {
                    throw new ClaimLostException();
                }
                throw e;
            }
        }
        return result;
    }

    private StepOutcome fail(RunContext run, Partition partition, UUID token, int attempt, String errorClass,
                             String errorCode, String message) {
        LOG.warn("partition {}/{} failed ({} {}): {}", run.runId(), partition.partitionId(), errorClass, errorCode,
                message);
        String text = Messages.fit(message == null ? errorCode : message);
        try {
            context.ledger().failPartition(run.runId(), PartitionId.of(partition.partitionId()),
                    new PartitionFailure(token, "EXTRACT", errorClass, errorCode, text, attempt));
        } catch (LedgerCallException e) {
            // CLAIM_MISMATCH: the partition was reissued meanwhile; the new owner's outcome is the one that counts.
            LOG.warn("reporting the failure of {}/{} was refused: {}", run.runId(), partition.partitionId(),
                    e.getMessage());
        }
        return StepOutcome.FAILED;
    }

    @SuppressWarnings("unchecked")
    static Partition partition(LeasedDispatch dispatch) {
        Map<String, Object> p = (Map<String, Object>) dispatch.payload().get("partition");
        if (p == null) {
            throw new IllegalArgumentException("dispatch " + dispatch.dispatchId() + " carries no partition");
        }
        return new Partition((String) p.get("partitionId"), text(p.get("lowerBound")), text(p.get("upperBound")),
                Boolean.TRUE.equals(p.get("upperInclusive")), Boolean.TRUE.equals(p.get("isNullPartition")),
                ((Number) p.get("expectedRowCount")).longValue(), text(p.get("sourceRef")));
    }

    private static String text(Object value) {
        return value == null ? null : value.toString();
    }

    /** The job's transforms cannot apply to the source's columns: no attempt can succeed. */
    static final class TransformException extends RuntimeException {
        TransformException(String message) {
            super(message);
        }
    }

    /** This worker no longer owns the partition: stop quietly, the new owner carries on. */
    static final class ClaimLostException extends RuntimeException {
        ClaimLostException() {
            super("claim lost", null, false, false);
        }
    }
}

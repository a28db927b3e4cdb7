package io.loadgate.worker.publish;

import static java.util.Objects.requireNonNull;

import io.loadgate.worker.publish.PublishOutcome.ErrorCode;
import io.loadgate.worker.validation.DataFileInput;
import io.loadgate.worker.validation.ParquetFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.OverwriteFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes into an Iceberg table: one overwrite commit that replaces the business key's partition with the
 * staged files, referenced where they lie (no data is rewritten), and the run's identity in the snapshot summary.
 */
public final class IcebergPublisher {
    public static final String RUN_ID_PROPERTY = "loadgate.run-id";
    public static final String PUBLISH_TOKEN_PROPERTY = "loadgate.publish-token";
    public static final String JOB_KEY_PROPERTY = "loadgate.job-key";
    public static final String BUSINESS_KEY_PROPERTY = "loadgate.business-key";
    /** In the snapshot summary: the publish generation the commit was fenced with. */
    public static final String PUBLISH_GENERATION_PROPERTY = "loadgate.publish-generation";

    private static final Logger log = LoggerFactory.getLogger(IcebergPublisher.class);

    private final TargetCatalog tables;

    public IcebergPublisher(TargetCatalog tables) {
        this.tables = requireNonNull(tables, "tables is null");
    }

    /** Replaces the request's business-key partition with exactly its files, in one fenced commit ({@code Target}). */
    public PublishOutcome publish(PublishRequest request) {
        requireNonNull(request, "request is null");
        PreparedCommit prepared;
        try {
            prepared = prepare(request);
        } catch (TargetMismatchException e) {
            return PublishOutcome.failed(ErrorCode.TARGET_MISMATCH, describe(request, e));
        } catch (RuntimeException e) {
            // Loading or creating the table, checking the files and building the update commit no data, so
            // whatever failed here (even a lost catalog connection) left the table's data as it was.
            return PublishOutcome.failed(ErrorCode.NOT_COMMITTED, describe(request, e));
        }

        // The one commit. Inside it Iceberg may repeat the compare-and-set (commit.retry.num-retries, default
        // 4), but only after the catalog refused the previous attempt, and CommitVerifyingOperations reloads
        // the table to confirm each refusal did not land: at most one attempt lands, and no attempt follows one
        // whose outcome is unknown (Iceberg retries nothing but CommitFailedException; neither do we). We keep
        // those retries rather than set them to 0 because a refusal usually means another business key's
        // publish committed to the same table a moment earlier, and re-applying our replace on top of it is
        // exactly right; the conflict validation set in prepare() turns a retry into a ValidationException
        // instead if anyone put data into this business key's partition since we started.
        //
        // The fence: the key's generation is a table property set in the same commit as the overwrite, and
        // CommitVerifyingOperations checks it (and the deadline) on every attempt against the very metadata the
        // compare-and-set requires, so no retry can land over a later publish of the key.
        try {
            prepared.overwrite().commit();
            prepared.transaction().updateProperties()
                    .set(generationProperty(request.jobKey(), request.businessKey()),
                            Long.toString(request.fence().generation()))
                    .commit();
            prepared.transaction().commitTransaction();
        } catch (CommitStateUnknownException e) {
            return PublishOutcome.unknown(ErrorCode.COMMIT_STATE_UNKNOWN, describe(request, e));
        } catch (PublishFencedException e) {
            log.warn("run {}: publish to {} refused by its fence: {}", request.runId(), request.target().identifier(),
                    e.getMessage());
            return PublishOutcome.failed(ErrorCode.PUBLISH_FENCED, describe(request, e));
        } catch (ValidationException e) {
            return PublishOutcome.failed(ErrorCode.COMMIT_VALIDATION_FAILED, describe(request, e));
        } catch (CommitFailedException e) {
            return PublishOutcome.failed(ErrorCode.COMMIT_CONFLICT, describe(request, e));
        } catch (RuntimeException e) {
            // UncheckedSQLException from a lost catalog connection, a timeout, an I/O error: the update may
            // have reached the catalog before the failure, so nothing can be concluded here.
            return PublishOutcome.unknown(ErrorCode.COMMIT_INTERRUPTED, describe(request, e));
        }

        // Iceberg refreshed the table after committing; the snapshot is found by token, not taken as the
        // current one, because another writer may already have committed on top of it.
        Optional<Snapshot> committed = findByToken(prepared.table(), request.publishToken());
        if (committed.isEmpty()) {
            return PublishOutcome.unknown(ErrorCode.COMMIT_STATE_UNKNOWN, "commit of run " + request.runId()
                    + " returned but no snapshot of " + request.target().identifier()
                    + " carries its publish token yet; probe the table");
        }
        long snapshotId = committed.get().snapshotId();
        log.info("run {} published {} files to {} for business key {}: snapshot {}", request.runId(),
                request.files().size(), request.target().identifier(), request.businessKey(), snapshotId);
        return PublishOutcome.published(snapshotId, "snapshot " + snapshotId + " of "
                + request.target().identifier() + " replaces business key " + request.businessKey() + " with "
                + request.files().size() + " files");
    }

    /**
     * Looks through every retained snapshot of {@code identifier} for one committed with {@code publishToken}.
     * Throws when the catalog cannot be read, or when the token is found under another run id.
     *
     * <p>Snapshots removed by {@code expire_snapshots} are not seen, so probe well within the table's snapshot
     * retention (Iceberg keeps five days by default; the ledger's {@code publish_stale} is two hours).
     */
    public ProbeResult probe(TableIdentifier identifier, String runId, UUID publishToken) {
        requireNonNull(identifier, "identifier is null");
        requireNonNull(runId, "runId is null");
        requireNonNull(publishToken, "publishToken is null");
        Table table;
        try {
            // Loaded afresh from the catalog: a cached table would miss a commit that landed after its load.
            table = tables.loadTable(identifier);
        } catch (NoSuchTableException e) {
            return new ProbeResult(ProbeResult.Status.NOT_FOUND, null,
                    "table " + identifier + " does not exist, so no commit with publish token " + publishToken
                            + " landed in it");
        }
        Optional<Snapshot> found = findByToken(table, publishToken);
        if (found.isEmpty()) {
            long searched = StreamSupport.stream(table.snapshots().spliterator(), false).count();
            return new ProbeResult(ProbeResult.Status.NOT_FOUND, null, "none of the " + searched
                    + " retained snapshots of " + identifier + " carries publish token " + publishToken);
        }
        Snapshot snapshot = found.get();
        String recordedRun = snapshot.summary().get(RUN_ID_PROPERTY);
        if (!runId.equals(recordedRun)) {
            throw new IllegalStateException("snapshot " + snapshot.snapshotId() + " of " + identifier
                    + " carries publish token " + publishToken + " but run id " + recordedRun + ", not " + runId);
        }
        return new ProbeResult(ProbeResult.Status.PUBLISHED, snapshot.snapshotId(), "snapshot "
                + snapshot.snapshotId() + " of " + identifier + ", committed at "
                + Instant.ofEpochMilli(snapshot.timestampMillis()) + ", carries publish token " + publishToken
                + " of run " + runId);
    }

    private PreparedCommit prepare(PublishRequest request) {
        TargetTable target = request.target();
        Table loaded = tables.createIfAbsent(target);
        if (!(loaded instanceof HasTableOperations withOperations)) {
            throw new IllegalStateException("table " + target.identifier() + " is a " + loaded.getClass().getName()
                    + ", whose commits cannot be verified");
        }
        String generationProperty = generationProperty(request.jobKey(), request.businessKey());
        String where = "table " + target.identifier();
        Table table = new BaseTable(new CommitVerifyingOperations(withOperations.operations(), base -> {
            String recorded = base == null ? null : base.properties().get(generationProperty);
            request.fence().checkNotBehind(recorded == null ? null : Long.valueOf(recorded), where);
            request.fence().checkDeadline();
        }), loaded.name());
        Transaction transaction = table.newTransaction();

        Expression partition = target.businessKeyFilter(request.businessKey());
        // Overwrite by filter rather than newReplacePartitions(): replace-partitions derives the partitions to
        // replace from the added files, so an empty file list would silently keep the old rows.
        OverwriteFiles overwrite = transaction.newOverwrite()
                .scanManifestsWith(SameThreadExecutor.INSTANCE)
                .writeManifestsWith(SameThreadExecutor.INSTANCE, 1)
                .overwriteByRowFilter(partition)
                .conflictDetectionFilter(partition)
                .validateNoConflictingData()
                .validateNoConflictingDeletes()
                .set(RUN_ID_PROPERTY, request.runId())
                .set(PUBLISH_TOKEN_PROPERTY, request.publishToken().toString())
                .set(JOB_KEY_PROPERTY, request.jobKey())
                .set(BUSINESS_KEY_PROPERTY, request.businessKey())
                .set(PUBLISH_GENERATION_PROPERTY, Long.toString(request.fence().generation()));
        Snapshot start = table.currentSnapshot();
        if (start != null) {
            overwrite.validateFromSnapshot(start.snapshotId());
        }
        if (!request.files().isEmpty()) {
            // Checks each file's partition against the filter; Iceberg needs an added file to run the check
            // (and with none there is nothing to check).
            overwrite.validateAddedFilesMatchOverwriteFilter();
        }
        MetricsConfig metricsConfig = MetricsConfig.forTable(table);
        for (StagedFile file : request.files()) {
            overwrite.addFile(dataFile(table, request, file, metricsConfig));
        }
        return new PreparedCommit(table, transaction, overwrite);
    }

    /**
     * The table property holding the newest publish generation of one job's business key (a job key has no dot, so
     * the name is unambiguous). One property per key the table was ever published for.
     */
    public static String generationProperty(String jobKey, String businessKey) {
        return PUBLISH_GENERATION_PROPERTY + "." + jobKey + "." + businessKey;
    }

    /**
     * The file as the table will reference it. Only its Parquet footer is read (for column metrics that let
     * engines skip files, and to check it against the ledger's counts), never its data, so publish time grows
     * with the number of files, not with their size.
     */
    private static DataFile dataFile(Table table, PublishRequest request, StagedFile file, MetricsConfig config) {
        InputFile input = table.io().newInputFile(file.location());
        long length = input.getLength();
        if (length != file.byteCount()) {
            throw new IllegalStateException("staged file " + file.location() + " has " + length
                    + " bytes but the ledger recorded " + file.byteCount());
        }
        Metrics metrics;
        // Iceberg's ParquetUtil.fileMetrics, but opened without a new Hadoop Configuration per file (ParquetFiles).
        try (ParquetFileReader reader = ParquetFiles.open(DataFileInput.of(input).parquet())) {
            metrics = ParquetUtil.footerMetrics(reader.getFooter(), Stream.empty(), config);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the footer of staged file " + file.location() + ": "
                    + e.getMessage(), e);
        }
        if (metrics.recordCount() == null || metrics.recordCount() != file.recordCount()) {
            throw new IllegalStateException("staged file " + file.location() + " holds " + metrics.recordCount()
                    + " records but the ledger recorded " + file.recordCount());
        }
        return DataFiles.builder(table.spec())
                .withPath(file.location())
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(file.byteCount())
                .withMetrics(metrics)
                .withPartitionValues(List.of(request.businessKey()))
                .build();
    }

    private static Optional<Snapshot> findByToken(Table table, UUID publishToken) {
        String token = publishToken.toString();
        for (Snapshot snapshot : table.snapshots()) {
            if (token.equals(snapshot.summary().get(PUBLISH_TOKEN_PROPERTY))) {
                return Optional.of(snapshot);
            }
        }
        return Optional.empty();
    }

    private static String describe(PublishRequest request, RuntimeException e) {
        // The cause often says more than the wrapper (UncheckedSQLException's "Database Connection failed"
        // over the driver's message); both go to the run's event log.
        Throwable cause = e.getCause();
        return "publish of run " + request.runId() + " to " + request.target().identifier() + " for business key "
                + request.businessKey() + ": " + e + (cause == null ? "" : " (caused by " + cause + ")");
    }

    private record PreparedCommit(Table table, Transaction transaction, OverwriteFiles overwrite) {
    }
}

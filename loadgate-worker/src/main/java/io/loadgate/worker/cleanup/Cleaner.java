package io.loadgate.worker.cleanup;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.ChunkKind;
import io.loadgate.api.OperatorApi.Cleanup;
import io.loadgate.api.OperatorApi.CleanupCandidate;
import io.loadgate.api.RunStatus;
import io.loadgate.worker.cleanup.RunCleanup.Outcome;
import io.loadgate.worker.execution.RunContext;
import io.loadgate.worker.execution.RunContexts;
import io.loadgate.worker.execution.TargetCatalogs;
import io.loadgate.worker.job.TargetSpec;
import io.loadgate.worker.ledger.LedgerCallException;
import io.loadgate.worker.ledger.LedgerClient;
import io.loadgate.worker.ledger.Messages;
import io.loadgate.worker.staging.StagingFileSystems;
import io.loadgate.worker.target.SnapshotExpiry;
import io.loadgate.worker.target.Target;
import io.loadgate.worker.target.Targets;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes the staging files of finished runs past retention, except those a target table references.
 *
 * <p>For each candidate the ledger returns (it never returns a PUBLISH_UNKNOWN run, whose files may be in the
 * table without the ledger knowing): learn every data file the run's target table references in any retained
 * snapshot, list the run's {@code hdfsRunPath}, delete every file in it the table does not reference, remove the
 * directories that emptied, then record the cleanup with {@code POST /v1/runs/{runId}/cleanup}.
 *
 * <p>The directory listing is deliberate and is the one place Loadgate lists a staging directory: the files to
 * delete are exactly those no ledger row names (a zombie's chunks, a speculative duplicate, a crashed attempt),
 * which only a listing finds. What must stay is decided by the table, not by the run's status or the ledger's
 * file list: a SUCCESS run keeps its published files, and so does a FAILED_TARGET_VALIDATION run, whose files
 * the table holds although the run failed. A SUCCESS run also keeps its REJECTS chunks (the rows its transforms
 * refused, in the ledger's file list): they are the load's record of what it did not publish.
 *
 * <p>When what the table references cannot be learned — the run carries no job, its catalog cannot be opened,
 * the table cannot be read — the run is skipped and nothing of it is deleted. A table that does not exist
 * references nothing.
 */
public final class Cleaner {
    private static final Logger LOG = LoggerFactory.getLogger(Cleaner.class);

    private final LedgerClient ledger;
    private final RunContexts runs;
    private final Targets targets;
    private final Configuration hadoop;
    private final SnapshotExpiry expiry;

    /** With the default snapshot retention, {@link SnapshotExpiry.Retention#DEFAULT}. */
    public Cleaner(LedgerClient ledger, RunContexts runs, TargetCatalogs catalogs, Configuration hadoop) {
        this(ledger, runs, catalogs, hadoop, new SnapshotExpiry(SnapshotExpiry.Retention.DEFAULT,
                java.time.Clock.systemUTC()));
    }

    public Cleaner(LedgerClient ledger, RunContexts runs, TargetCatalogs catalogs, Configuration hadoop,
                   SnapshotExpiry expiry) {
        this.ledger = requireNonNull(ledger, "ledger is null");
        this.runs = requireNonNull(runs, "runs is null");
        this.hadoop = requireNonNull(hadoop, "hadoop is null");
        this.expiry = requireNonNull(expiry, "expiry is null");
        // Nothing here reads a warehouse's password: a warehouse references no staged file.
        this.targets = new Targets(requireNonNull(catalogs, "catalogs is null"), Map.of(), hadoop);
    }

    /**
     * One pass over the ledger's current candidates (at most its {@code cleanup.max_batch}). A run that fails is
     * reported and the pass goes on; a failure to read the candidates is thrown as {@link LedgerCallException}.
     */
    public List<RunCleanup> clean(CleanupMode mode) {
        requireNonNull(mode, "mode is null");
        List<CleanupCandidate> candidates = ledger.cleanupCandidates();
        // One read of a target's references serves every run of the pass (a job's target spec names one table). Safe to reuse: a candidate has ended and
        // PUBLISH_UNKNOWN runs are never candidates, so no commit can come to reference a candidate's files
        // later in the pass (another run's publish references only files in its own run path).
        Map<TargetSpec, Optional<Set<String>>> referenced = new HashMap<>();
        List<RunCleanup> reports = new ArrayList<>(candidates.size());
        for (CleanupCandidate candidate : candidates) {
            RunCleanup report = clean(candidate, mode, referenced);
            if (report.outcome() == Outcome.SKIPPED && mode == CleanupMode.DELETE) {
                recordSkip(report);
            }
            log(report);
            reports.add(report);
        }
        return List.copyOf(reports);
    }

    private RunCleanup clean(CleanupCandidate candidate, CleanupMode mode,
                             Map<TargetSpec, Optional<Set<String>>> cache) {
        Report report = new Report(candidate);
        if (candidate.hdfsRunPath() == null || candidate.hdfsRunPath().isBlank()) {
            return report.skipped("the ledger names no hdfsRunPath for the run");
        }
        RunContext run;
        try {
            run = runs.get(candidate.runId());
        } catch (RuntimeException e) {
            return report.skipped("cannot read the run's job: " + message(e));
        }
        FileSystem fs;
        Locations locations;
        try {
            fs = StagingFileSystems.forUri(new Path(candidate.hdfsRunPath()).toUri(), hadoop);
            locations = new Locations(FileSystem.getDefaultUri(hadoop));
        } catch (RuntimeException e) {
            return report.skipped("cannot open the file system of " + candidate.hdfsRunPath() + ": " + message(e));
        }
        Target target = targets.forJob(run.job());
        Optional<Set<String>> referenced;
        try {
            referenced = cache.computeIfAbsent(run.job().target(), t -> referencedKeys(target, locations, mode));
        } catch (RuntimeException e) {
            return report.skipped(message(e));
        }
        // A run that published yet whose table this catalog lacks was published elsewhere: with the wrong
        // catalog, "nothing is referenced" would delete a live table's files.
        if (candidate.targetRef() != null && referenced.isEmpty()) {
            return report.skipped("the run published snapshot " + candidate.targetRef() + " of "
                    + target.table() + ", which this catalog does not have; is the catalog the workers' one?");
        }
        Set<String> inTable = referenced.orElse(Set.of());
        Set<String> keep = inTable;
        if (candidate.status() == RunStatus.SUCCESS) {
            try {
                keep = withRejects(candidate, keep, locations);
            } catch (RuntimeException e) {
                return report.skipped("cannot read the run's rejects files from the ledger: " + message(e));
            }
        }
        try {
            return clean(candidate, mode, report, fs, locations, keep, inTable);
        } catch (IOException | RuntimeException e) {
            return report.failed(message(e));
        }
    }

    private RunCleanup clean(CleanupCandidate candidate, CleanupMode mode, Report report, FileSystem fs,
                             Locations locations, Set<String> keep, Set<String> inTable) throws IOException {
        Path runDir = new Path(candidate.hdfsRunPath());
        Listing listing = new Listing();
        FileStatus runStatus = status(fs, runDir);
        if (runStatus == null) {
            // Nothing was staged (a manifest failure), or an earlier pass (or another cleaner right now) removed
            // it; either way there is nothing to delete and the ledger may record the run as cleaned.
            report.directoryRemoved = true;
        } else if (isSymlink(fs, runDir)) {
            return report.skipped("the run path " + runDir + " is a symbolic link; not following it");
        } else {
            list(fs, runStatus, listing);
        }
        List<FileStatus> doomed = new ArrayList<>();
        for (FileStatus file : listing.files) {
            String location = file.getPath().toString();
            if (!locations.isBelow(location, candidate.hdfsRunPath())) {
                // A listing of the run path yields only paths below it; anything else means the file system
                // resolved something we did not ask for. Touch nothing of this run.
                return report.skipped("the listing of " + runDir + " returned " + location + ", outside the run path");
            }
            String key = locations.key(location);
            if (keep.contains(key)) {
                report.kept.add(location);
                if (inTable.contains(key)) {
                    report.keptInTable++;
                }
            } else {
                doomed.add(file);
            }
        }
        report.kept.addAll(listing.links);
        if (mode == CleanupMode.DRY_RUN) {
            doomed.forEach(report::deleted);
            return report.finish(Outcome.DRY_RUN);
        }
        for (FileStatus file : doomed) {
            if (deleteFile(fs, file.getPath())) {
                report.deleted(file);
            } else if (fs.exists(file.getPath())) {
                throw new IOException("could not delete " + file.getPath());
            }
            // else another cleaner deleted it first; its report counts it
        }
        // Deepest first, so a directory is empty by the time it is looked at; one that is not (a kept file, a
        // link) stays.
        for (Path dir : listing.directoriesDeepestFirst) {
            try {
                if (fs.listStatus(dir).length > 0) {
                    continue;
                }
                fs.delete(dir, false);
            } catch (FileNotFoundException e) {
                // Another cleaner removed it first: gone is what we wanted.
                LOG.debug("run {}: directory {} already removed", candidate.runId(), dir);
            } catch (IOException e) {
                // A file appeared since we looked (nothing writes into an ended run's path, but a forgotten
                // process might): the directory stays, and so does the file.
                LOG.warn("run {}: directory {} not removed: {}", candidate.runId(), dir, message(e));
                continue;
            }
            if (dir.equals(listing.root)) {
                report.directoryRemoved = true;
            }
        }
        // deletedPath says what went: the run path when anything in it did, null when there was nothing to delete.
        boolean anythingDeleted = !report.deleted.isEmpty() || (report.directoryRemoved && listing.root != null);
        try {
            // The count of files the table still holds lets the ledger offer the run again once they may have gone
            // from it (its key replaced or rolled back, the old snapshots expired).
            ledger.cleanup(candidate.runId(), new Cleanup(null, anythingDeleted ? candidate.hdfsRunPath() : null,
                    report.keptInTable));
        } catch (LedgerCallException e) {
            return report.failed("files deleted, but the ledger did not record the cleanup: " + e.getMessage());
        }
        return report.finish(Outcome.CLEANED);
    }

    /**
     * True only when this call removed the file. Hadoop's local file system cannot say so: when the file goes
     * between its existence check and its delete (another cleaner), it answers true as well, and both cleaners
     * would report the file. An unlink through java.nio succeeds for one caller only; HDFS's delete is one
     * request to the NameNode, which answers true to one caller only.
     */
    static boolean deleteFile(FileSystem fs, Path file) throws IOException {
        return StagingFileSystems.isLocal(fs) ? java.nio.file.Files.deleteIfExists(StagingFileSystems.localPath(file))
                : fs.delete(file, false);
    }

    private static FileStatus status(FileSystem fs, Path path) throws IOException {
        try {
            return fs.getFileStatus(path);
        } catch (FileNotFoundException e) {
            return null;
        }
    }

    /**
     * Tells the ledger why the run was skipped: the operator sees it among the run's events, and the run goes behind
     * the other candidates, so runs that keep being skipped cannot take every batch.
     */
    private void recordSkip(RunCleanup report) {
        try {
            ledger.cleanupSkipped(report.runId(), Messages.fit(report.message()));
        } catch (RuntimeException e) {
            LOG.warn("run {}: could not record the skipped cleanup in the ledger: {}", report.runId(), message(e));
        }
    }

    /**
     * A loaded run's rejected rows are part of its outcome, kept for the people who must fix them: its REJECTS
     * chunks stay with the files the table references.
     */
    private Set<String> withRejects(CleanupCandidate candidate, Set<String> keep, Locations locations) {
        Set<String> keys = new HashSet<>(keep);
        ledger.files(candidate.runId()).stream().filter(f -> f.kind() == ChunkKind.REJECTS)
                .forEach(f -> keys.add(locations.key(f.hdfsPath())));
        return keys;
    }

    /**
     * The target's referenced files as location keys; empty when its table does not exist. A deleting pass first
     * lets the target forget its history past retention: a replaced or rolled-back run's files are referenced by
     * old snapshots only, and stay for as long as those do. A dry run expires nothing, so it lists such files as kept.
     */
    private Optional<Set<String>> referencedKeys(Target target, Locations locations, CleanupMode mode) {
        if (mode == CleanupMode.DELETE) {
            try {
                int expired = target.expireHistory(expiry);
                if (expired > 0) {
                    LOG.info("table {}: expired {} snapshot(s) past retention", target.table(), expired);
                }
            } catch (RuntimeException e) {
                // Nothing expired means more is kept, never less: the pass goes on with every snapshot retained.
                LOG.warn("table {}: snapshots not expired: {}", target.table(), message(e));
            }
        }
        return target.referencedFiles().map(files -> files.stream().map(locations::key)
                .collect(Collectors.toUnmodifiableSet()));
    }

    private static void list(FileSystem fs, FileStatus dir, Listing listing) throws IOException {
        if (listing.root == null) {
            listing.root = dir.getPath();
        }
        FileStatus[] children;
        try {
            children = fs.listStatus(dir.getPath());
        } catch (FileNotFoundException e) {
            return;
        }
        for (FileStatus child : children) {
            if (isSymlink(fs, child)) {
                // Never followed, never deleted: a link could lead out of the run path.
                listing.links.add(child.getPath().toString());
            } else if (child.isDirectory()) {
                list(fs, child, listing);
            } else {
                listing.files.add(child);
            }
        }
        listing.directoriesDeepestFirst.add(dir.getPath());
    }

    /**
     * Hadoop's local file system reports a link as what it points to (and cannot answer {@code isSymlink}), so
     * a local link is told apart through java.nio; other file systems (HDFS) mark links in the status.
     */
    private static boolean isSymlink(FileSystem fs, FileStatus status) {
        return StagingFileSystems.isLocal(fs) ? isSymlink(fs, status.getPath()) : status.isSymlink();
    }

    private static boolean isSymlink(FileSystem fs, Path path) {
        return StagingFileSystems.isLocal(fs) && java.nio.file.Files.isSymbolicLink(StagingFileSystems.localPath(path));
    }

    private static String message(Throwable e) {
        Throwable t = e;
        while ((t.getMessage() == null || t.getMessage().isBlank()) && t.getCause() != null) {
            t = t.getCause();
        }
        String text = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        return text.strip().lines().findFirst().orElse(text);
    }

    private static void log(RunCleanup r) {
        switch (r.outcome()) {
            case CLEANED -> LOG.info("run {} ({} {}): deleted {} file(s), {} bytes; kept {}{}", r.runId(),
                    r.status(), r.jobKey(), r.deleted().size(), r.deletedBytes(), r.kept().size(),
                    r.directoryRemoved() ? "; run directory removed" : "");
            case DRY_RUN -> LOG.info("run {} ({} {}): would delete {} file(s), {} bytes; would keep {}", r.runId(),
                    r.status(), r.jobKey(), r.deleted().size(), r.deletedBytes(), r.kept().size());
            case SKIPPED -> LOG.warn("run {} ({} {}) skipped, nothing deleted: {}", r.runId(), r.status(),
                    r.jobKey(), r.message());
            case FAILED -> LOG.warn("run {} ({} {}) cleanup failed: {}", r.runId(), r.status(), r.jobKey(),
                    r.message());
        }
    }

    private static final class Listing {
        Path root;
        final List<FileStatus> files = new ArrayList<>();
        final List<String> links = new ArrayList<>();
        final List<Path> directoriesDeepestFirst = new ArrayList<>();
    }

    /** The report of one run as it is built up. */
    private static final class Report {
        final CleanupCandidate candidate;
        final List<String> kept = new ArrayList<>();
        final List<String> deleted = new ArrayList<>();
        long deletedBytes;
        int keptInTable;

        void deleted(FileStatus file) {
            deleted.add(file.getPath().toString());
            deletedBytes += file.getLen();
        }
        boolean directoryRemoved;

        Report(CleanupCandidate candidate) {
            this.candidate = candidate;
        }

        RunCleanup finish(Outcome outcome) {
            return build(outcome, kept, deleted, deletedBytes, null);
        }

        RunCleanup skipped(String message) {
            return build(Outcome.SKIPPED, List.of(), List.of(), 0, message);
        }

        /** The files deleted before the failure stay in the report: they are gone. */
        RunCleanup failed(String message) {
            return build(Outcome.FAILED, kept, deleted, deletedBytes, message);
        }

        private RunCleanup build(Outcome outcome, List<String> keptFiles, List<String> deletedFiles, long bytes,
                                 String message) {
            return new RunCleanup(candidate.runId(), candidate.jobKey().value(), candidate.businessKey().value(), candidate.status(),
                    candidate.hdfsRunPath(), outcome, keptFiles, deletedFiles, bytes, directoryRemoved, message);
        }
    }
}

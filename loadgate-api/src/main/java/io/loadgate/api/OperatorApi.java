package io.loadgate.api;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Requests and responses of operator actions, the publish probe, cleanup and the monitor. */
public final class OperatorApi {
    private OperatorApi() {
    }

    public enum Resolution {
        PUBLISHED,
        FAILED_PUBLISH
    }

    /**
     * {@code POST .../cancel} (operator, extension): stops a run that has not started publishing; the reason (at least
     * 5 characters) is kept in the run's events.
     */
    public record Cancel(String reason) {
        public static final int MIN_REASON = 5;

        public Cancel {
            requireNonNull(reason, "reason is null");
            if (reason.strip().length() < MIN_REASON) {
                throw new IllegalArgumentException("reason must be at least " + MIN_REASON + " characters");
            }
        }
    }

    /** {@code POST .../publish-unknown/resolve} (operator): the reason (at least 5 characters) is kept as an event. */
    public record Resolve(Resolution resolution, String reason) {
        public static final int MIN_REASON = 5;

        public Resolve {
            requireNonNull(resolution, "resolution is null");
            requireNonNull(reason, "reason is null");
            if (reason.strip().length() < MIN_REASON) {
                throw new IllegalArgumentException("reason must be at least " + MIN_REASON + " characters");
            }
        }
    }

    /**
     * {@code POST .../rollback} (operator, extension): the business key's partition was removed from the target by
     * snapshot {@code targetRef}; the ledger keeps it, with the reason, as a ROLLED_BACK event of the run.
     */
    public record Rollback(String reason, String targetRef) {
        public static final int MIN_REASON = 5;

        public Rollback {
            requireNonNull(reason, "reason is null");
            requireNonNull(targetRef, "targetRef is null");
            if (reason.strip().length() < MIN_REASON) {
                throw new IllegalArgumentException("reason must be at least " + MIN_REASON + " characters");
            }
        }
    }

    /** {@code POST .../dispatches/{dispatchId}/resend} (operator): the dispatch is PENDING again, attempts reset. */
    public record Resent(UUID dispatchId, DispatchStatus status) {
        public Resent {
            requireNonNull(dispatchId, "dispatchId is null");
            requireNonNull(status, "status is null");
        }
    }

    /**
     * {@code POST .../publish-unknown/probe}: what a worker found when it looked for the run's publish token in the
     * target — {@code found} with the {@code snapshotId} that carries it, or absent; {@code attemptReturned} when the
     * publishing process saw its commit call return. The ledger decides.
     */
    public record PublishProbe(UUID publishToken, boolean found, String snapshotId, boolean attemptReturned,
                               Map<String, Object> evidence) {
        public PublishProbe {
            requireNonNull(publishToken, "publishToken is null");
            evidence = evidence == null ? Map.of() : Map.copyOf(evidence);
        }
    }

    /** A finished run whose staged files and table are past retention, with every file the ledger recorded. */
    @JsonPropertyOrder({"runId", "jobKey", "businessKey", "status", "completedAt", "hdfsRunPath", "stageTable",
        "targetRef", "files"})
    public record CleanupCandidate(RunId runId, JobKey jobKey, BusinessKey businessKey, RunStatus status,
                                   String hdfsRunPath, String stageTable, Instant completedAt, String targetRef,
                                   List<CleanupFile> files) {
        public CleanupCandidate {
            requireNonNull(runId, "runId is null");
            files = files == null ? List.of() : List.copyOf(files);
        }

        public CleanupCandidate withFiles(List<CleanupFile> newFiles) {
            return new CleanupCandidate(runId, jobKey, businessKey, status, hdfsRunPath, stageTable, completedAt,
                    targetRef, newFiles);
        }
    }

    /** A file of a cleanup candidate, committed or not (a failed attempt's files are removed too). */
    public record CleanupFile(String hdfsPath, String status) {
        public CleanupFile {
            requireNonNull(hdfsPath, "hdfsPath is null");
        }
    }

    /** {@code POST .../cleanup/skipped} (extension): why a cleaner could not clean a due run. */
    public record CleanupSkipped(String reason) {
        public CleanupSkipped {
            requireNonNull(reason, "reason is null");
        }
    }

    /** {@code POST .../cleanup}: what was removed; the same report again is {@code changed=false}. */
    /**
     * {@code keptFiles} (extension, optional): how many staged files stayed because the target references them; the
     * ledger offers such a run again once its key was replaced, so that they go when no snapshot needs them.
     */
    public record Cleanup(String droppedTable, String deletedPath,
                          @JsonInclude(JsonInclude.Include.NON_NULL) Integer keptFiles) {
        public Cleanup(String droppedTable, String deletedPath) {
            this(droppedTable, deletedPath, null);
        }
    }

    public record CleanupResult(RunId runId, boolean changed) {
    }

    /** Why a run is in the monitor summary's attention list. */
    public enum AttentionKind {
        PUBLISH_UNKNOWN,
        DEAD_DISPATCH,
        FAILED_RUN,
        /** An active run none of whose due steps a worker has taken for a minute. */
        NO_WORKER,
        /** An active run in one state longer than that state's threshold (the monitor's {@code stuck_after}). */
        STUCK_RUN,
        /** A job whose last successful load is older than its expected freshness. */
        STALE_DATA,
        /** A failed run of the last 24 hours whose key a later run loaded with SUCCESS: nothing to do, shown quietly. */
        SUPERSEDED_FAILURE
    }

    /**
     * What an operator must look at (extension): a run whose publish is unknown, a dead dispatch of an active run
     * (with its dispatch and last error), a run failed in the last 24 hours, or a run no worker takes; a run stuck
     * in a state, a job whose data is stale, a failure a later SUCCESS superseded ({@code supersededBy}).
     * {@code fix} is the command that settles the entry ({@code <...>} to fill in), null when nothing is to be done.
     */
    public record Attention(RunId runId, JobKey jobKey, BusinessKey businessKey, RunStatus status, Instant since,
                            String reason, AttentionKind kind, UUID dispatchId, DispatchType dispatchType,
                            String errorStage, String errorCode, String errorMessage, String fix,
                            RunId supersededBy) {
        public Attention {
            requireNonNull(runId, "runId is null");
            requireNonNull(kind, "kind is null");
        }
    }

    /**
     * {@code GET /v1/monitor/summary}: counts the ledger chooses to report, kept as the JSON it sent (numbers,
     * strings, nested objects), so a new counter needs no client change.
     */
    public static final class MonitorSummary {
        private final Map<String, Object> fields = new LinkedHashMap<>();

        @JsonAnySetter
        void put(String name, Object value) {
            fields.put(name, value);
        }

        @JsonAnyGetter
        public Map<String, Object> fields() {
            return java.util.Collections.unmodifiableMap(fields);
        }

        @Override
        public String toString() {
            return "MonitorSummary" + fields;
        }
    }
}

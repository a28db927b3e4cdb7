package io.loadgate.ledger.run;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.BusinessKey;
import io.loadgate.api.DispatchType;
import io.loadgate.api.JobKey;
import io.loadgate.api.OperatorApi.Attention;
import io.loadgate.api.OperatorApi.AttentionKind;
import io.loadgate.api.RunId;
import io.loadgate.api.RunStatus;
import io.loadgate.ledger.db.SqlLists;
import io.loadgate.ledger.db.Tx;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * What needs a person now, each entry with the command that settles it: a publish whose outcome is unknown, a dead
 * dispatch, a run no worker takes, a run stuck in a state past its threshold, a job whose data is stale, a failure
 * nobody has loaded over. A failure a later SUCCESS of the same key superseded is listed too, as such, for the record.
 */
final class AttentionList {
    // The runs the monitor flags as failed: a cancel is an operator's own act, not something to look at.
    static final Set<RunStatus> FAILED_RUN = RunStatus.TERMINAL.stream()
            .filter(s -> s.isFailure() && s != RunStatus.CANCELLED)
            .collect(Collectors.toCollection(() -> EnumSet.noneOf(RunStatus.class)));
    /** The run states a cancel is allowed from. */
    private static final Set<RunStatus> BEFORE_PUBLISHING = EnumSet.of(RunStatus.CREATED, RunStatus.EXTRACTING,
            RunStatus.EXTRACTED_VALIDATED, RunStatus.STAGE_VALIDATING, RunStatus.STAGING_VALIDATED);

    /** A SUCCESS of run {@code r}'s job and key that started after {@code r}: the key was loaded over it. */
    static final String LATER_SUCCESS = """
            SELECT l.run_id FROM load_run l
             WHERE l.job_key = r.job_key AND l.business_key = r.business_key AND l.status = 'SUCCESS'
               AND l.started_at > r.started_at""";

    // kind and dispatchId let a client act without parsing the reason text. A failure counts as superseded by a
    // SUCCESS of the same job and key that started after it: that load replaced whatever the failure left undone.
    private static final String LISTED = """
            SELECT r.run_id, r.job_key, r.business_key, r.status, r.status_changed_at AS since,
                   CASE WHEN r.status = 'PUBLISH_UNKNOWN' THEN 'PUBLISH_UNKNOWN'
                        WHEN s.run_id IS NOT NULL THEN 'SUPERSEDED_FAILURE' ELSE 'FAILED_RUN' END AS kind,
                   NULL::uuid AS dispatch_id, NULL::text AS dispatch_type,
                   CASE WHEN r.status = 'PUBLISH_UNKNOWN' THEN 'publish outcome unknown: resolve it'
                        WHEN s.run_id IS NOT NULL THEN 'failed (' || COALESCE(r.error_code, r.status)
                             || '), then loaded again with SUCCESS by run ' || s.run_id
                        ELSE 'failed in the last 24 hours: ' || COALESCE(r.error_code, r.status) END AS reason,
                   r.error_stage, r.error_code, r.error_message, s.run_id AS superseded_by
              FROM load_run r
              LEFT JOIN LATERAL (%s ORDER BY l.started_at DESC LIMIT 1) s ON r.status <> 'PUBLISH_UNKNOWN'
             WHERE r.status = 'PUBLISH_UNKNOWN'
                OR r.status IN (%s) AND r.completed_at > now() - interval '24 hours'
            UNION ALL
            SELECT d.run_id, r.job_key, r.business_key, r.status, d.created_at, 'DEAD_DISPATCH', d.dispatch_id,
                   d.dispatch_type,
                   'dispatch ' || d.dispatch_type || ' ' || d.dispatch_id || ' is DEAD: ' || COALESCE(d.last_error, ''),
                   NULL, NULL, d.last_error, NULL
              FROM load_dispatch d JOIN load_run r USING (run_id)
             WHERE d.status = 'DEAD' AND r.status IN ('EXTRACTED_VALIDATED', 'STAGING_VALIDATED', 'PUBLISHED', 'EXTRACTING')
            UNION ALL
            SELECT r.run_id, r.job_key, r.business_key, r.status, min(d.next_attempt_at) FILTER (WHERE d.status = 'PENDING'),
                   'NO_WORKER', NULL, NULL,
                   'no worker has taken its ' || count(*) FILTER (WHERE d.status = 'PENDING') || ' waiting dispatch(es)',
                   NULL, NULL, NULL, NULL
              FROM load_run r JOIN load_dispatch d USING (run_id)
             WHERE r.status IN ('CREATED', 'EXTRACTING', 'EXTRACTED_VALIDATED', 'STAGE_VALIDATING', 'STAGING_VALIDATED',
                                'PUBLISHING', 'PUBLISHED')
               AND d.executor = 'worker' AND d.status IN ('PENDING', 'SENT', 'DEAD')
             GROUP BY r.run_id, r.job_key, r.business_key, r.status
            -- Nobody is on the run (no lease out, no partition extracting: a claim acknowledges its dispatch) and its
            -- next step has been due for a minute, which a leasing worker with a free thread never lets happen. A dead
            -- dispatch is listed as such instead.
            HAVING count(*) FILTER (WHERE d.status IN ('SENT', 'DEAD')) = 0
               AND min(d.next_attempt_at) FILTER (WHERE d.status = 'PENDING') < now() - interval '1 minute'
               AND NOT EXISTS (SELECT 1 FROM load_partition p WHERE p.run_id = r.run_id AND p.status = 'RUNNING')
            UNION ALL
            SELECT r.run_id, r.job_key, r.business_key, r.status, t.since, 'STUCK_RUN', NULL, NULL,
                   r.status || ' for ' || justify_interval(date_trunc('second', now() - t.since))
                   || CASE WHEN r.status = 'EXTRACTING' THEN ' without a heartbeat' ELSE '' END
                   || ' (threshold ' || justify_interval(make_interval(secs => t.secs)) || ')',
                   NULL, NULL, NULL, NULL
              FROM load_run r
              JOIN (VALUES %s) AS t0(status, secs) ON t0.status = r.status,
                   LATERAL (SELECT CASE WHEN r.status = 'EXTRACTING' THEN COALESCE(r.heartbeat_at, r.status_changed_at)
                                        ELSE r.status_changed_at END AS since, t0.secs) t
             WHERE t.since < now() - make_interval(secs => t.secs)
            ORDER BY since LIMIT 200
            """;

    private final String listed;
    private final AttentionRules rules;

    AttentionList(AttentionRules rules) {
        this.rules = requireNonNull(rules, "rules is null");
        // The thresholds are numbers of the server's configuration, written into the text once, never input.
        String thresholds = rules.stuckAfter().entrySet().stream()
                .map(e -> "('" + e.getKey().name() + "', " + e.getValue().toMillis() / 1000.0 + "::float8)")
                .collect(Collectors.joining(", "));
        this.listed = LISTED.formatted(LATER_SUCCESS, SqlLists.quoted(FAILED_RUN), thresholds);
    }

    List<Attention> read(Tx tx, List<RunViews.JobFreshness> jobs) throws SQLException {
        List<Attention> entries = new ArrayList<>();
        // A run listed for a precise cause (dead dispatch, no worker) is not listed again as merely stuck.
        Set<RunId> explained = new HashSet<>();
        List<Attention> stuck = new ArrayList<>();
        for (Attention a : tx.query(listed, AttentionList::entry)) {
            if (a.kind() == AttentionKind.STUCK_RUN) {
                stuck.add(a);
            } else {
                explained.add(a.runId());
                entries.add(a);
            }
        }
        stuck.stream().filter(a -> !explained.contains(a.runId())).forEach(entries::add);
        for (RunViews.JobFreshness job : jobs) {
            Duration expected = rules.freshness().get(job.jobKey().value());
            if (expected != null && job.lastSuccessAge().compareTo(expected) > 0) {
                entries.add(new Attention(job.lastSuccessRunId(), job.jobKey(), job.businessKey(), RunStatus.SUCCESS,
                        job.lastSuccessAt(), "last successful load " + hours(job.lastSuccessAge())
                        + " ago (key " + job.businessKey() + "), expected every " + hours(expected),
                        AttentionKind.STALE_DATA, null, null, null, null, null,
                        "loadgate run <" + job.jobKey() + ".yaml> --business-key <the next key>", null));
            }
        }
        return entries;
    }

    private static String hours(Duration d) {
        long minutes = d.toMinutes();
        return minutes < 120 ? minutes + " min" : String.format(java.util.Locale.ROOT, "%.1f h", minutes / 60.0);
    }

    private static Attention entry(ResultSet rs) throws SQLException {
        RunId runId = Tx.runId(rs, "run_id");
        RunStatus status = RunStatus.valueOf(rs.getString("status"));
        AttentionKind kind = AttentionKind.valueOf(rs.getString("kind"));
        UUID dispatchId = rs.getObject("dispatch_id", UUID.class);
        Instant since = Tx.instant(rs, "since");
        return new Attention(runId, Tx.jobKey(rs, "job_key"), Tx.businessKey(rs, "business_key"), status, since,
                rs.getString("reason"), kind, dispatchId,
                rs.getString("dispatch_type") == null ? null : DispatchType.valueOf(rs.getString("dispatch_type")),
                rs.getString("error_stage"), rs.getString("error_code"), rs.getString("error_message"),
                fix(kind, runId, status, Tx.jobKey(rs, "job_key"), Tx.businessKey(rs, "business_key"), dispatchId),
                Tx.runId(rs, "superseded_by"));
    }

    /** The one command that settles an entry; {@code <...>} is for the operator to fill in. */
    static String fix(AttentionKind kind, RunId runId, RunStatus status, JobKey jobKey, BusinessKey businessKey,
                      UUID dispatchId) {
        return switch (kind) {
            case PUBLISH_UNKNOWN -> "loadgate resolve " + runId
                    + " --as PUBLISHED|FAILED_PUBLISH --reason \"<what the target shows for loadgate.run-id>\"";
            case DEAD_DISPATCH -> "loadgate dispatch resend " + runId + " " + dispatchId;
            case NO_WORKER -> "loadgate worker --token-file <worker token>";
            // Cancelled, the key is free for a new run (FAILED_RUN's fix). From PUBLISHING on a run can no longer be
            // given up: its publisher (or, at publish_stale, the probe) settles it; the run's page names its claim.
            case STUCK_RUN -> BEFORE_PUBLISHING.contains(status)
                    ? "loadgate cancel " + runId + " --reason \"<why>\""
                    : "loadgate runs show " + runId;
            case FAILED_RUN -> "loadgate run <" + jobKey + ".yaml> --business-key " + businessKey;
            case STALE_DATA -> "loadgate run <" + jobKey + ".yaml> --business-key <the next key>";
            case SUPERSEDED_FAILURE -> null;
        };
    }
}

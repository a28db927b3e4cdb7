package io.loadgate.ledger.run;

import static java.util.Objects.requireNonNull;

import io.loadgate.api.BusinessKey;
import io.loadgate.api.JobKey;
import io.loadgate.api.KeyHolders;
import io.loadgate.api.RunId;
import io.loadgate.api.RunStatus;
import io.loadgate.api.TargetState;
import io.loadgate.ledger.db.Database;
import io.loadgate.ledger.db.Tx;
import io.loadgate.ledger.rollback.Rollbacks;
import java.util.List;

/**
 * Which run each business key of a job has in the target, a page of keys in one statement. The rule is the run
 * views' {@code targetState}: a key's partition holds its last SUCCESS to complete (runs of a key never overlap),
 * unless an operator rolled that one back.
 */
public final class KeyHolderViews {
    // The keys come from load_run_job_key (job_key, business_key, started_at DESC) in key order, and the scan stops
    // once the page is full; each key's newest run is the first entry of its range of that index, its runs are few.
    private static final String PAGE = """
            WITH page AS (
                SELECT DISTINCT business_key FROM load_run
                 WHERE job_key = ? AND (?::text IS NULL OR business_key > ?)
                 ORDER BY business_key LIMIT ?)
            SELECT k.business_key, last.run_id AS last_run_id, last.status AS last_status,
                   last.started_at AS last_started_at, won.run_id AS success_run_id, won.completed_at AS loaded_at,
                   won.target_count AS loaded_rows,
                   EXISTS (SELECT 1 FROM load_event e WHERE e.run_id = won.run_id AND e.event_type = '%s')
                       AS rolled_back
              FROM page k
              CROSS JOIN LATERAL (SELECT run_id, status, started_at FROM load_run
                                   WHERE job_key = ? AND business_key = k.business_key
                                   ORDER BY started_at DESC, run_id LIMIT 1) last
              LEFT JOIN LATERAL (SELECT run_id, completed_at, target_count FROM load_run
                                  WHERE job_key = ? AND business_key = k.business_key AND status = 'SUCCESS'
                                  ORDER BY completed_at DESC, run_id LIMIT 1) won ON true
             ORDER BY k.business_key
            """.formatted(Rollbacks.EVENT_TYPE);

    private final Database database;

    public KeyHolderViews(Database database) {
        this.database = requireNonNull(database, "database is null");
    }

    /** Up to {@code limit} keys after {@code after} (null: from the first), in key order. */
    public KeyHolders page(JobKey jobKey, BusinessKey after, int limit) {
        requireNonNull(jobKey, "jobKey is null");
        if (limit < 1 || limit > KeyHolders.MAX_LIMIT) {
            throw new IllegalArgumentException("limit must be between 1 and " + KeyHolders.MAX_LIMIT + ", got " + limit);
        }
        // One more than asked: whether a next page exists is known without asking for an empty one.
        List<KeyHolders.Key> keys = database.inTransaction(tx -> tx.query(PAGE, rs -> {
            RunId won = Tx.runId(rs, "success_run_id");
            boolean rolledBack = rs.getBoolean("rolled_back");
            RunId last = Tx.runId(rs, "last_run_id");
            RunStatus lastStatus = RunStatus.valueOf(rs.getString("last_status"));
            TargetState lastState = lastStatus != RunStatus.SUCCESS ? null
                    : !last.equals(won) ? TargetState.REPLACED
                    : rolledBack ? TargetState.ROLLED_BACK : TargetState.CURRENT;
            boolean held = won != null && !rolledBack;
            return new KeyHolders.Key(Tx.businessKey(rs, "business_key"), held ? won : null,
                    held ? Tx.instant(rs, "loaded_at") : null, held ? Tx.nullableLong(rs, "loaded_rows") : null,
                    won != null && rolledBack ? won : null, last, lastStatus, lastState,
                    Tx.instant(rs, "last_started_at"));
        }, jobKey, after, after, limit + 1, jobKey, jobKey));
        if (keys.size() <= limit) {
            return new KeyHolders(jobKey, keys, null);
        }
        List<KeyHolders.Key> shown = keys.subList(0, limit);
        return new KeyHolders(jobKey, shown, shown.get(limit - 1).businessKey());
    }
}

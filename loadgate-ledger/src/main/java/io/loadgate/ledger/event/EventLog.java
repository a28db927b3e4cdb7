package io.loadgate.ledger.event;

import io.loadgate.api.RunId;
import io.loadgate.ledger.LedgerJson;
import io.loadgate.ledger.db.Tx;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/** Every state change writes one event in the transaction that made it, so the log can never disagree. */
public final class EventLog {
    private static final String INSERT = """
            INSERT INTO load_event (run_id, partition_id, event_type, from_status, to_status, actor, details)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """;
    private static final String LIST = """
            SELECT event_id, partition_id, event_type, from_status, to_status, actor, details, created_at
              FROM load_event WHERE run_id = ? AND event_id > ? ORDER BY event_id LIMIT ?
            """;

    private EventLog() {
    }

    public static void append(Tx tx, RunId runId, String partitionId, String eventType, Object from, Object to,
                              String actor, Map<String, ?> details) throws SQLException {
        tx.update(INSERT, runId, partitionId, eventType, from == null ? null : from.toString(),
                to == null ? null : to.toString(), actor, LedgerJson.jsonb(details));
    }

    public static List<Event> list(Tx tx, RunId runId, long afterEventId, int limit) throws SQLException {
        return tx.query(LIST, rs -> new Event(rs.getLong("event_id"), rs.getString("partition_id"),
                rs.getString("event_type"), rs.getString("from_status"), rs.getString("to_status"),
                rs.getString("actor"), LedgerJson.read(rs.getString("details")), Tx.instant(rs, "created_at")),
                runId, afterEventId, limit);
    }

    public record Event(long eventId, String partitionId, String eventType, String fromStatus, String toStatus,
                        String actor, com.fasterxml.jackson.databind.JsonNode details, java.time.Instant createdAt) {
    }
}
